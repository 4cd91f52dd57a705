import { Alert } from "@mantine/core";
import { Outlet, useOutletContext } from "react-router";
import type { Context } from "../api/types";

/** Settings pages: system users only (the server refuses the rest with 403 anyway). */
export function SystemOnly() {
  const context = useOutletContext<Context>();
  if (context.user.systemRole !== "system") {
    return (
      <Alert color="yellow" title="System users only" maw={560}>
        Users, spaces and the application's settings are managed by system users.
      </Alert>
    );
  }
  return <Outlet context={context} />;
}
