import { Alert, Anchor } from "@mantine/core";
import { Link } from "react-router";

export default function NotFoundPage() {
  return (
    <Alert color="yellow" title="No such page" maw={560}>
      There is nothing at this address.{" "}
      <Anchor component={Link} to="/">
        Open the jobs
      </Anchor>
      .
    </Alert>
  );
}
