import { Alert, Anchor, Badge, Button, Checkbox, Group, List, Modal, Stack, Tabs, Text, Title } from "@mantine/core";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { Link, useBlocker, useLocation, useNavigate, useParams, useSearchParams } from "react-router";
import { ApiError, del, describeError, get, issuesByField, post, put } from "../api/client";
import { keys, spacePath, useInterfaces, useJob, useLastRun, useProviders } from "../api/queries";
import type { Blueprint, Job, StreamEnd } from "../api/types";
import { ConfirmModal } from "../components/confirm-modal";
import { ErrorAlert } from "../components/error-alert";
import { CaptureTab } from "../components/job-editor/capture-tab";
import { capturedNames } from "../components/job-editor/captured-names";
import { ComposerTab } from "../components/job-editor/composer-tab";
import { DeliveryTab } from "../components/job-editor/delivery-tab";
import { GeneralTab } from "../components/job-editor/general-tab";
import type { Loose } from "../components/job-editor/object-fields";
import { PageLoader } from "../components/page-loader";
import { RunProgress } from "../components/run-progress";
import { useSpace } from "../components/space-layout";
import { TemplateForm } from "../components/template-form";

type Tab = "general" | "capture" | "composer" | "delivery";

/** Which tab holds a field of the job body, by the first segment of its path. */
const tabOf = (path: string): Tab =>
  path.startsWith("capture")
    ? "capture"
    : path.startsWith("report")
      ? "composer"
      : path.startsWith("deliveries")
        ? "delivery"
        : "general";

const newJob = (): Loose => ({
  name: "",
  description: "",
  enabled: true,
  cron: null,
  timezone: Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC",
  retry: { attempts: 0, delayMinutes: 5 },
  notify: { minIntervalMinutes: 0 },
  retentionDays: 90,
  capture: { viewport: { width: 1440, height: 900 }, auth: { type: "none" }, steps: [{ type: "navigate", url: "" }] },
  deliveries: [],
});

export default function JobEditorPage() {
  const space = useSpace();
  const { jobId } = useParams();
  const [params] = useSearchParams();
  const location = useLocation();
  const blueprintId = jobId ? null : params.get("blueprint");
  const job = useJob(space.id, jobId);
  const blueprint = useQuery({
    queryKey: ["blueprints", space.id, blueprintId],
    queryFn: () => get<Blueprint>(`${spacePath(space.id)}/blueprints/${blueprintId}`),
    enabled: !!blueprintId,
  });
  if ((jobId && job.isPending) || (blueprintId && blueprint.isPending)) return <PageLoader />;
  if (jobId && !job.data) return <ErrorAlert error={job.error} title="The job cannot be opened" />;
  if (blueprintId && !blueprint.data)
    return <ErrorAlert error={blueprint.error} title="The template cannot be opened" />;
  let initial: Loose = job.data ?? newJob();
  if (!jobId && blueprint.data) {
    const { id: _id, ...body } = blueprint.data.job as Loose;
    initial = { ...newJob(), ...body };
  }
  // A job saved for the first time moves to its own address with the same editor (its state,
  // and what the user types meanwhile, stay); any other change of job opens a fresh editor.
  const editorKey = (location.state as { editorKey?: string } | null)?.editorKey ?? jobId ?? blueprintId ?? "new";
  return (
    <JobEditor
      key={editorKey}
      editorKey={editorKey}
      initial={initial}
      jobId={jobId}
      placeholders={jobId ? [] : (blueprint.data?.placeholders ?? [])}
    />
  );
}

function JobEditor(props: {
  editorKey: string;
  initial: Loose;
  jobId: string | undefined;
  placeholders: { path: string; description: string }[];
}) {
  const space = useSpace();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const interfaces = useInterfaces(space.id);
  const providers = useProviders(space.id);
  const [draft, setDraft] = useState<Loose>(props.initial);
  const [tab, setTab] = useState<Tab>("general");
  const [savedAt, setSavedAt] = useState<Date | null>(null);
  const [testing, setTesting] = useState<{ key: number; body: Loose } | null>(null);
  const [deliverInTest, setDeliverInTest] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [templating, setTemplating] = useState(false);
  // The run whose data fills the composer's preview: the last test here, else the job's last run.
  const [testRunId, setTestRunId] = useState<string | null>(null);
  const lastRun = useLastRun(space.id, props.jobId ?? "", !!props.jobId);
  const previewRunId = testRunId ?? lastRun.data?.id ?? null;
  const names = useMemo(() => capturedNames(draft.capture?.steps), [draft.capture?.steps]);
  const onTestEnd = useCallback((end: StreamEnd) => end.runId && setTestRunId(end.runId), []);
  const disabled = !space.canWrite;
  // Changes not saved yet: leaving the page asks first. A ref, so that the navigation right after
  // a save (a new job's address) already sees it clean.
  const dirty = useRef(false);
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) => dirty.current && currentLocation.pathname !== nextLocation.pathname,
  );
  useEffect(() => {
    const warn = (event: BeforeUnloadEvent) => {
      if (dirty.current) event.preventDefault();
    };
    window.addEventListener("beforeunload", warn);
    return () => window.removeEventListener("beforeunload", warn);
  }, []);
  const base = `/s/${encodeURIComponent(space.id)}`;

  const save = useMutation({
    mutationFn: () =>
      props.jobId
        ? put<Job>(`${spacePath(space.id)}/jobs/${props.jobId}`, draft)
        : post<Job>(`${spacePath(space.id)}/jobs`, draft),
    onSuccess: (saved) => {
      queryClient.setQueryData(keys.job(space.id, saved.id), saved);
      void queryClient.invalidateQueries({ queryKey: keys.jobs(space.id), exact: true });
      dirty.current = false;
      setDraft(saved as Loose);
      setSavedAt(new Date());
      if (!props.jobId) navigate(`${base}/jobs/${saved.id}`, { replace: true, state: { editorKey: props.editorKey } });
    },
    onError: (error) => {
      // Show the tab of the first field the server named.
      if (error instanceof ApiError && error.issues[0]) setTab(tabOf(error.issues[0].path.join(".")));
    },
  });
  const remove = useMutation({
    mutationFn: () => del(`${spacePath(space.id)}/jobs/${props.jobId}`),
    onSuccess: async () => {
      dirty.current = false;
      // Not the deleted job's own query: this editor still shows it, and asking again would be a 404.
      const own = keys.job(space.id, props.jobId ?? "");
      await queryClient.invalidateQueries({
        queryKey: keys.jobs(space.id),
        predicate: (query) => query.queryKey[2] !== own[2],
      });
      navigate(`${base}/jobs`, { replace: true });
    },
  });

  const errors = issuesByField(save.error);
  const issues = save.error instanceof ApiError ? save.error.issues : [];
  const count = (t: Tab) => issues.filter((i) => tabOf(i.path.join(".")) === t).length;
  const tabLabel = (t: Tab, label: string) => (
    <Group gap={6} wrap="nowrap">
      {label}
      {count(t) > 0 && (
        <Badge color="red" size="xs" circle aria-label={`${count(t)} problems`}>
          {count(t)}
        </Badge>
      )}
    </Group>
  );

  const change = (next: Loose) => {
    dirty.current = true;
    setDraft(next);
    setSavedAt(null);
  };

  return (
    <Stack>
      <Group justify="space-between" align="flex-start">
        <Stack gap={2}>
          <Anchor component={Link} to={`${base}/jobs`} size="sm">
            ← Jobs
          </Anchor>
          <Title order={1} size="h2">
            {props.jobId ? draft.name || "Job" : "New job"}
          </Title>
        </Stack>
        <Group gap="xs">
          {props.jobId && (
            <Button variant="default" component={Link} to={`${base}/runs?jobId=${props.jobId}`}>
              Runs
            </Button>
          )}
          {space.canWrite && (
            <>
              {props.jobId && (
                <Button variant="subtle" color="red" onClick={() => setDeleting(true)}>
                  Delete
                </Button>
              )}
              {space.isAdmin && (
                <Button variant="subtle" onClick={() => setTemplating(true)}>
                  Save as template
                </Button>
              )}
              <Button variant="default" onClick={() => setTesting({ key: Date.now(), body: draft })}>
                Test
              </Button>
              <Button onClick={() => save.mutate()} loading={save.isPending}>
                Save
              </Button>
            </>
          )}
        </Group>
      </Group>

      {disabled && (
        <Alert color="gray">You can read this job; changing it needs read-and-write access to the space.</Alert>
      )}
      {props.placeholders.length > 0 && (
        <Alert color="blue" title="Fill in the template">
          <List size="sm">
            {props.placeholders.map((p) => (
              <List.Item key={p.path}>
                <Text span ff="monospace" size="sm">
                  {p.path}
                </Text>
                : {p.description}
              </List.Item>
            ))}
          </List>
        </Alert>
      )}
      {savedAt && (
        <Alert color="green" role="status">
          Saved at {savedAt.toLocaleTimeString()}.
        </Alert>
      )}
      {save.error ? (
        <Alert color="red" role="alert" title="Not saved">
          {issues.length ? (
            <List size="sm">
              {issues.slice(0, 10).map((issue) => (
                <List.Item key={`${issue.path.join(".")}-${issue.code}-${issue.message}`}>
                  <Anchor
                    component="button"
                    type="button"
                    size="sm"
                    onClick={() => setTab(tabOf(issue.path.join(".")))}
                  >
                    {issue.path.join(".") || "job"}
                  </Anchor>
                  : {issue.message}
                </List.Item>
              ))}
            </List>
          ) : (
            describeError(save.error)
          )}
        </Alert>
      ) : null}

      <Tabs value={tab} onChange={(v) => v && setTab(v as Tab)} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="general">{tabLabel("general", "General")}</Tabs.Tab>
          <Tabs.Tab value="capture">{tabLabel("capture", "Capture")}</Tabs.Tab>
          <Tabs.Tab value="composer">{tabLabel("composer", "Composer")}</Tabs.Tab>
          <Tabs.Tab value="delivery">{tabLabel("delivery", "Delivery")}</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="general" pt="md">
          <GeneralTab job={draft} onChange={change} errors={errors} disabled={disabled} />
        </Tabs.Panel>
        <Tabs.Panel value="capture" pt="md">
          <CaptureTab
            capture={draft.capture ?? { steps: [] }}
            onChange={(capture) => change({ ...draft, capture })}
            errors={errors}
            disabled={disabled}
            providers={(providers.data ?? []).map((p) => ({ value: p.id, label: `${p.name} (${p.model})` }))}
          />
        </Tabs.Panel>
        <Tabs.Panel value="composer" pt="md">
          <ComposerTab
            report={draft.report}
            onChange={(report) => {
              const next = { ...draft, report };
              if (!report) delete next.report;
              change(next);
            }}
            errors={errors}
            disabled={disabled}
            names={names}
            space={space.id}
            runId={previewRunId}
            job={{ name: draft.name ?? "", description: draft.description ?? "" }}
          />
        </Tabs.Panel>
        <Tabs.Panel value="delivery" pt="md">
          <DeliveryTab
            deliveries={draft.deliveries ?? []}
            onChange={(deliveries) => change({ ...draft, deliveries })}
            errors={errors}
            disabled={disabled}
            interfaces={interfaces.data ?? []}
            canCreate={space.isAdmin}
          />
        </Tabs.Panel>
      </Tabs>

      <Modal opened={testing !== null} onClose={() => setTesting(null)} title="Test the job" size="lg">
        <Stack>
          <Text size="sm" c="dimmed">
            Runs this form as it is now, without saving it: capture and report
            {deliverInTest ? ", and delivery" : "; nothing is delivered"}. It is kept as a test run.
          </Text>
          <Checkbox
            label="Deliver too (the next test)"
            checked={deliverInTest}
            onChange={(e) => setDeliverInTest(e.currentTarget.checked)}
          />
          {testing && (
            <RunProgress
              key={testing.key}
              path={`${spacePath(space.id)}/jobs/test`}
              body={{ ...testing.body, deliver: deliverInTest }}
              space={space.id}
              onEnd={onTestEnd}
            />
          )}
          <Button variant="light" w="fit-content" onClick={() => setTesting({ key: Date.now(), body: draft })}>
            Test again
          </Button>
        </Stack>
      </Modal>
      {templating && <TemplateForm opened onClose={() => setTemplating(false)} job={draft} />}
      <ConfirmModal
        opened={blocker.state === "blocked"}
        title="Leave without saving?"
        confirmLabel="Leave"
        onClose={() => blocker.reset?.()}
        onConfirm={() => {
          dirty.current = false;
          blocker.proceed?.();
        }}
      >
        The changes to this job are not saved and will be lost.
      </ConfirmModal>
      <ConfirmModal
        opened={deleting}
        title="Delete the job?"
        confirmLabel="Delete"
        onClose={() => setDeleting(false)}
        onConfirm={() => remove.mutate()}
        pending={remove.isPending}
        error={remove.error}
      >
        “{draft.name}” and all its runs and report files will be deleted. This cannot be undone.
      </ConfirmModal>
    </Stack>
  );
}
