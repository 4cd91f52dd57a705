import { createTheme, MantineProvider, Modal } from "@mantine/core";
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { lazy, StrictMode, Suspense } from "react";
import { createBrowserRouter, Navigate, RouterProvider } from "react-router";
import { ApiError, setUnauthorizedHandler } from "./api/client";
import { AppFrame } from "./components/app-frame";
import { PageLoader } from "./components/page-loader";
import { RouteError } from "./components/route-error";
import { SpaceHome, SpaceLayout } from "./components/space-layout";
import { SystemOnly } from "./components/system-only";

// Each page is its own chunk, loaded when first opened.
const LoginPage = lazy(() => import("./routes/login-page"));
const JobsPage = lazy(() => import("./routes/jobs-page"));
const JobEditorPage = lazy(() => import("./routes/job-editor-page"));
const RunsPage = lazy(() => import("./routes/runs-page"));
const RunPage = lazy(() => import("./routes/run-page"));
const DeliveryInterfacesPage = lazy(() => import("./routes/delivery-interfaces-page"));
const AiProvidersPage = lazy(() => import("./routes/ai-providers-page"));
const TemplatesPage = lazy(() => import("./routes/templates-page"));
const HealthPage = lazy(() => import("./routes/health-page"));
const SettingsUsersPage = lazy(() => import("./routes/settings-users-page"));
const SettingsSpacesPage = lazy(() => import("./routes/settings-spaces-page"));
const SettingsHealthAlertsPage = lazy(() => import("./routes/settings-health-alerts-page"));
const SettingsObserverKeysPage = lazy(() => import("./routes/settings-observer-keys-page"));
const SettingsBackupPage = lazy(() => import("./routes/settings-backup-page"));
const AuditPage = lazy(() => import("./routes/audit-page"));
const NotFoundPage = lazy(() => import("./routes/not-found-page"));

const theme = createTheme({
  primaryColor: "blue",
  defaultRadius: "md",
  components: {
    // Mantine's close button has no accessible name of its own.
    Modal: Modal.extend({ defaultProps: { closeButtonProps: { "aria-label": "Close" } } }),
  },
});

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 5_000,
      // A 4xx will not change by asking again.
      retry: (count, error) => !(error instanceof ApiError && error.status >= 400 && error.status < 500) && count < 2,
    },
  },
  queryCache: new QueryCache(),
  mutationCache: new MutationCache(),
});

const router = createBrowserRouter([
  {
    path: "/login",
    element: (
      <Suspense fallback={<PageLoader />}>
        <LoginPage />
      </Suspense>
    ),
    errorElement: <RouteError />,
  },
  {
    path: "/",
    element: <AppFrame />,
    errorElement: <RouteError />,
    children: [
      { index: true, element: <SpaceHome /> },
      {
        path: "s/:space",
        element: <SpaceLayout />,
        children: [
          { index: true, element: <Navigate to="jobs" replace /> },
          { path: "jobs", element: <JobsPage /> },
          { path: "jobs/new", element: <JobEditorPage /> },
          { path: "jobs/:jobId", element: <JobEditorPage /> },
          { path: "runs", element: <RunsPage /> },
          { path: "runs/:runId", element: <RunPage /> },
          { path: "delivery-interfaces", element: <DeliveryInterfacesPage /> },
          { path: "ai-providers", element: <AiProvidersPage /> },
          { path: "templates", element: <TemplatesPage /> },
          { path: "audit", element: <AuditPage /> },
        ],
      },
      {
        path: "settings",
        element: <SystemOnly />,
        children: [
          { index: true, element: <Navigate to="users" replace /> },
          { path: "users", element: <SettingsUsersPage /> },
          { path: "spaces", element: <SettingsSpacesPage /> },
          { path: "health-alerts", element: <SettingsHealthAlertsPage /> },
          { path: "health", element: <HealthPage /> },
          { path: "observer-keys", element: <SettingsObserverKeysPage /> },
          { path: "audit", element: <AuditPage /> },
          { path: "backup", element: <SettingsBackupPage /> },
        ],
      },
      { path: "*", element: <NotFoundPage /> },
    ],
  },
]);

// The session ended (expired, logged out in another tab): back to the login, then back here.
setUnauthorizedHandler(() => {
  if (window.location.pathname === "/login") return;
  queryClient.clear();
  const next = window.location.pathname + window.location.search;
  void router.navigate(`/login?next=${encodeURIComponent(next)}`, { replace: true });
});

export function App() {
  return (
    <StrictMode>
      {/* "auto": light or dark as the system says, and it follows when the system changes. */}
      <MantineProvider theme={theme} defaultColorScheme="auto">
        <QueryClientProvider client={queryClient}>
          <RouterProvider router={router} />
        </QueryClientProvider>
      </MantineProvider>
    </StrictMode>
  );
}
