import { Anchor, AppShell, Burger, Group, Menu, NavLink, Select, Stack, Text, UnstyledButton } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { useQueryClient } from "@tanstack/react-query";
import { Suspense } from "react";
import { Link, Navigate, Outlet, useLocation, useMatch, useNavigate } from "react-router";
import { ApiError, post } from "../api/client";
import { useContextQuery } from "../api/queries";
import type { Context } from "../api/types";
import { ErrorAlert } from "./error-alert";
import { PageLoader } from "./page-loader";
import { lastSpace } from "./space-layout";

const ACCESS_WORDS = { ro: "read only", rw: "read and write", admin: "admin" } as const;

/** Everything around a signed-in page: header, space switcher, navigation by access, sign-out. */
export function AppFrame() {
  const context = useContextQuery();
  const location = useLocation();
  if (context.error instanceof ApiError && context.error.status === 401) {
    const next = location.pathname + location.search;
    return <Navigate to={next === "/" ? "/login" : `/login?next=${encodeURIComponent(next)}`} replace />;
  }
  if (context.error) {
    return (
      <Stack p="xl" maw={640}>
        <ErrorAlert error={context.error} title="Pagewright cannot start" />
      </Stack>
    );
  }
  if (!context.data) return <PageLoader />;
  return <SignedInFrame context={context.data} />;
}

function SignedInFrame({ context }: { context: Context }) {
  const [opened, { toggle, close }] = useDisclosure();
  const navigate = useNavigate();
  const location = useLocation();
  const queryClient = useQueryClient();
  const match = useMatch("/s/:space/*");
  // Outside a space (settings), the navigation keeps the space used last.
  const spaceId = match?.params.space ?? lastSpace();
  const space = context.spaces.find((s) => s.id === spaceId) ?? (match ? undefined : context.spaces[0]);
  const base = space ? `/s/${encodeURIComponent(space.id)}` : undefined;

  const signOut = async () => {
    try {
      await post("/auth/logout");
    } finally {
      queryClient.clear();
      navigate("/login", { replace: true });
    }
  };

  const nav = (to: string, label: string) => (
    <NavLink
      key={to}
      component={Link}
      to={to}
      label={label}
      active={location.pathname.startsWith(to)}
      onClick={close}
    />
  );

  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 230, breakpoint: "sm", collapsed: { mobile: !opened } }}
      padding="md"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Menu" />
            <Anchor component={Link} to="/" fw={700} underline="never" c="inherit">
              Pagewright
            </Anchor>
          </Group>
          <Group gap="sm" wrap="nowrap">
            <Anchor href="/llms.txt" size="sm" visibleFrom="xs" title="The guide for AI agents (Markdown)">
              llms.txt
            </Anchor>
            <Menu position="bottom-end" withinPortal>
              <Menu.Target>
                <UnstyledButton aria-label={`Account of ${context.user.username}`}>
                  <Text size="sm" fw={500}>
                    {context.user.username}
                  </Text>
                </UnstyledButton>
              </Menu.Target>
              <Menu.Dropdown>
                <Menu.Label>
                  {context.user.systemRole === "system" ? "System user" : "User"} · version {context.version}
                </Menu.Label>
                <Menu.Item onClick={signOut}>Sign out</Menu.Item>
              </Menu.Dropdown>
            </Menu>
          </Group>
        </Group>
      </AppShell.Header>

      <AppShell.Navbar p="sm">
        <Stack gap="xs" h="100%">
          <Select
            label="Space"
            data={context.spaces.map((s) => ({ value: s.id, label: `${s.name} (${ACCESS_WORDS[s.access]})` }))}
            value={space?.id ?? null}
            placeholder={context.spaces.length ? "Choose a space" : "No space"}
            allowDeselect={false}
            comboboxProps={{ withinPortal: true }}
            onChange={(value) => {
              if (value) {
                close();
                navigate(`/s/${encodeURIComponent(value)}/jobs`);
              }
            }}
          />
          {base && space && (
            <nav aria-label="Pages of the space">
              {nav(`${base}/jobs`, "Jobs")}
              {nav(`${base}/runs`, "Runs")}
              {nav(`${base}/templates`, "Templates")}
              {space.access === "admin" && nav(`${base}/delivery-interfaces`, "Delivery interfaces")}
              {space.access === "admin" && nav(`${base}/ai-providers`, "AI providers")}
              {space.access === "admin" && nav(`${base}/audit`, "Audit log")}
            </nav>
          )}
          {context.user.systemRole === "system" && (
            <nav aria-label="Settings">
              <Text size="xs" fw={500} c="dimmed" px="sm" pt="xs">
                Settings
              </Text>
              {nav("/settings/users", "Users")}
              {nav("/settings/spaces", "Spaces and members")}
              {nav("/settings/health-alerts", "Health alerts")}
              {nav("/settings/health", "Health")}
              {nav("/settings/observer-keys", "Observer keys")}
              {nav("/settings/audit", "Audit log (all spaces)")}
              {nav("/settings/backup", "Backup")}
            </nav>
          )}
          <Stack gap={4} mt="auto">
            <Anchor href="/llms.txt" size="xs">
              Guide for AI agents (llms.txt)
            </Anchor>
            <Anchor href="/llms/openapi.json" size="xs">
              OpenAPI description
            </Anchor>
          </Stack>
        </Stack>
      </AppShell.Navbar>

      <AppShell.Main>
        <Suspense fallback={<PageLoader />}>
          <Outlet context={context} />
        </Suspense>
      </AppShell.Main>
    </AppShell>
  );
}
