import { Alert, Stack, Text } from "@mantine/core";
import { createContext, useContext, useEffect } from "react";
import { Link, Navigate, Outlet, useOutletContext, useParams } from "react-router";
import type { Context, SpaceAccess } from "../api/types";

/** The space a page works in, with the signed-in user's access to it. */
export type CurrentSpace = SpaceAccess & {
  canWrite: boolean;
  isAdmin: boolean;
  isSystem: boolean;
  context: Context;
};

const SpaceContext = createContext<CurrentSpace | null>(null);

export function useSpace(): CurrentSpace {
  const space = useContext(SpaceContext);
  if (!space) throw new Error("useSpace outside a space route");
  return space;
}

const LAST_SPACE = "pagewright.lastSpace";

/** The space the user opened last (this browser), if any. */
export const lastSpace = () => localStorage.getItem(LAST_SPACE) ?? undefined;

/** `/`: the space used last, else the first the user can open. */
export function SpaceHome() {
  const context = useOutletContext<Context>();
  const last = lastSpace();
  const target = context.spaces.find((s) => s.id === last) ?? context.spaces[0];
  if (!target) {
    return (
      <Stack maw={560}>
        <Alert color="yellow" title="No space yet">
          You are not a member of any space. Ask a system user to give you access to one.
        </Alert>
      </Stack>
    );
  }
  return <Navigate to={`/s/${encodeURIComponent(target.id)}/jobs`} replace />;
}

/** `/s/:space/…`: checks the user's access to the space and hands it to the pages below. */
export function SpaceLayout() {
  const context = useOutletContext<Context>();
  const { space: spaceId } = useParams();
  const access = context.spaces.find((s) => s.id === spaceId);
  useEffect(() => {
    if (access) localStorage.setItem(LAST_SPACE, access.id);
  }, [access]);
  if (!access) {
    return (
      <Alert color="red" title="No access" maw={560}>
        <Text size="sm">
          You have no access to the space “{spaceId}”, or it does not exist. <Link to="/">Open your spaces</Link>.
        </Text>
      </Alert>
    );
  }
  const current: CurrentSpace = {
    ...access,
    canWrite: access.access !== "ro",
    isAdmin: access.access === "admin",
    isSystem: context.user.systemRole === "system",
    context,
  };
  return (
    <SpaceContext.Provider value={current}>
      <Outlet context={context} />
    </SpaceContext.Provider>
  );
}
