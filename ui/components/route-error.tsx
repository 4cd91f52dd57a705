import { Alert, Button, Container, Stack } from "@mantine/core";
import { isRouteErrorResponse, useRouteError } from "react-router";

/** Shown when a page fails to load or render (a new build replaced a chunk, a bug). */
export function RouteError() {
  const error = useRouteError();
  const message = isRouteErrorResponse(error)
    ? `${error.status} ${error.statusText}`
    : error instanceof Error
      ? error.message
      : String(error);
  return (
    <Container size="sm" py="xl">
      <Stack>
        <Alert color="red" title="This page failed to load">
          {message}
        </Alert>
        <Button onClick={() => window.location.reload()} w="fit-content">
          Reload
        </Button>
      </Stack>
    </Container>
  );
}
