import { Alert } from "@mantine/core";
import { describeError } from "../api/client";

/** A failed request, in words. Nothing when there is no error. */
export function ErrorAlert({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  return (
    <Alert color="red" title={title} role="alert">
      {describeError(error)}
    </Alert>
  );
}
