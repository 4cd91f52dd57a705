import {
  ActionIcon,
  Anchor,
  Button,
  Card,
  Group,
  Menu,
  Modal,
  Pagination,
  SegmentedControl,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Title,
  Tooltip,
  VisuallyHidden,
} from "@mantine/core";
import { useMediaQuery } from "@mantine/hooks";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";
import { Link, useNavigate } from "react-router";
import { del, post, put } from "../api/client";
import { keys, spacePath, useHealth, useJobs, useLastRun } from "../api/queries";
import type { HealthStatus, Job } from "../api/types";
import { ConfirmModal } from "../components/confirm-modal";
import { ErrorAlert } from "../components/error-alert";
import { nextFiring, relativeTime, scheduleWords } from "../components/format";
import { PageLoader } from "../components/page-loader";
import { RunProgress } from "../components/run-progress";
import { useSpace } from "../components/space-layout";
import { HealthDot, StateBadge } from "../components/state-badge";
import { TemplatePicker } from "../components/template-picker";

const PAGE_SIZE = 20;
type Filter = "all" | "enabled" | "disabled" | "scheduled" | "manual";

const matchesFilter = (job: Job, filter: Filter) =>
  filter === "all" ||
  (filter === "enabled" && job.enabled) ||
  (filter === "disabled" && !job.enabled) ||
  (filter === "scheduled" && !!job.cron) ||
  (filter === "manual" && !job.cron);

/** A stored job as a create body: without what the server owns. */
function cloneBody(job: Job, name: string) {
  const { id: _id, space: _space, createdAt: _c, updatedAt: _u, ...body } = job;
  return { ...body, name, enabled: false };
}

export default function JobsPage() {
  const space = useSpace();
  const jobs = useJobs(space.id);
  const health = useHealth(space.isSystem);
  const [search, setSearch] = useState("");
  const [filter, setFilter] = useState<Filter>("all");
  const [page, setPage] = useState(1);
  const [running, setRunning] = useState<Job | null>(null);
  const [deleting, setDeleting] = useState<Job | null>(null);
  const [cloning, setCloning] = useState<Job | null>(null);
  const [picking, setPicking] = useState(false);
  // Below the "sm" breakpoint a table of five columns does not fit: cards instead.
  const compact = useMediaQuery("(max-width: 48em)") ?? false;

  const healthById = useMemo(() => {
    const map = new Map<string, HealthStatus>();
    for (const entry of health.data?.jobs ?? []) if (entry.id) map.set(entry.id, entry.healthStatus);
    return map;
  }, [health.data]);

  const visible = useMemo(() => {
    const words = search.trim().toLowerCase();
    return (jobs.data ?? [])
      .filter((job) => matchesFilter(job, filter))
      .filter((job) => !words || `${job.name} ${job.description}`.toLowerCase().includes(words))
      .sort((a, b) => a.name.localeCompare(b.name));
  }, [jobs.data, search, filter]);
  const pages = Math.max(1, Math.ceil(visible.length / PAGE_SIZE));
  const shown = visible.slice((Math.min(page, pages) - 1) * PAGE_SIZE, Math.min(page, pages) * PAGE_SIZE);

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">
          Jobs
        </Title>
        {space.canWrite && (
          <Group gap="xs">
            <Button variant="default" onClick={() => setPicking(true)}>
              New from a template
            </Button>
            <Button component={Link} to={`/s/${encodeURIComponent(space.id)}/jobs/new`}>
              New job
            </Button>
          </Group>
        )}
      </Group>
      <Group gap="sm" align="flex-end">
        <TextInput
          label="Search"
          placeholder="Name or description"
          value={search}
          onChange={(e) => {
            setSearch(e.currentTarget.value);
            setPage(1);
          }}
          w={{ base: "100%", xs: 260 }}
          type="search"
        />
        <SegmentedControl
          aria-label="Show"
          value={filter}
          onChange={(value) => {
            setFilter(value as Filter);
            setPage(1);
          }}
          data={[
            { value: "all", label: "All" },
            { value: "enabled", label: "Enabled" },
            { value: "disabled", label: "Disabled" },
            { value: "scheduled", label: "Scheduled" },
            { value: "manual", label: "On demand" },
          ]}
          size="xs"
        />
      </Group>
      <ErrorAlert error={jobs.error} />
      {jobs.isPending ? (
        <PageLoader />
      ) : visible.length === 0 ? (
        <Text c="dimmed">
          {jobs.data?.length ? "No job matches." : "No job yet."}
          {!jobs.data?.length && space.canWrite && " Create one with New job, or ask an agent to (see llms.txt)."}
        </Text>
      ) : compact ? (
        <Stack gap="sm" aria-label="Jobs">
          {shown.map((job) => (
            <JobRow
              key={job.id}
              job={job}
              health={healthById.get(job.id)}
              onRun={() => setRunning(job)}
              onDelete={() => setDeleting(job)}
              onClone={() => setCloning(job)}
              compact
            />
          ))}
        </Stack>
      ) : (
        <Table.ScrollContainer minWidth={760}>
          <Table verticalSpacing="xs" highlightOnHover aria-label="Jobs">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Schedule</Table.Th>
                <Table.Th>Last run</Table.Th>
                <Table.Th>Enabled</Table.Th>
                <Table.Th>
                  <VisuallyHidden>Actions</VisuallyHidden>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {shown.map((job) => (
                <JobRow
                  key={job.id}
                  job={job}
                  health={healthById.get(job.id)}
                  onRun={() => setRunning(job)}
                  onDelete={() => setDeleting(job)}
                  onClone={() => setCloning(job)}
                  compact={false}
                />
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {pages > 1 && <Pagination total={pages} value={Math.min(page, pages)} onChange={setPage} aria-label="Pages" />}

      <Modal
        opened={running !== null}
        onClose={() => setRunning(null)}
        title={running ? `Run “${running.name}”` : ""}
        size="lg"
      >
        {running && <RunProgress path={`${spacePath(space.id)}/jobs/${running.id}/run`} space={space.id} />}
      </Modal>
      <DeleteJob job={deleting} onClose={() => setDeleting(null)} />
      <CloneJob job={cloning} onClose={() => setCloning(null)} />
      <TemplatePicker opened={picking} onClose={() => setPicking(false)} />
    </Stack>
  );
}

function JobRow(props: {
  job: Job;
  health: HealthStatus | undefined;
  onRun: () => void;
  onDelete: () => void;
  onClone: () => void;
  compact: boolean;
}) {
  const { job } = props;
  const space = useSpace();
  const lastRun = useLastRun(space.id, job.id);
  const queryClient = useQueryClient();
  const base = `/s/${encodeURIComponent(space.id)}`;
  const toggle = useMutation({
    mutationFn: (enabled: boolean) => put<Job>(`${spacePath(space.id)}/jobs/${job.id}`, { ...job, enabled }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.jobs(space.id) }),
  });
  const next = job.enabled ? nextFiring(job.cron, job.timezone) : null;
  const run = lastRun.data;

  const name = (
    <>
      <Group gap="xs" wrap="nowrap">
        {props.health && <HealthDot status={props.health} />}
        <Stack gap={0}>
          <Anchor component={Link} to={`${base}/jobs/${job.id}`} fw={500}>
            {job.name}
          </Anchor>
          {job.description && (
            <Text size="xs" c="dimmed" lineClamp={1}>
              {job.description}
            </Text>
          )}
        </Stack>
      </Group>
    </>
  );
  const schedule = (
    <>
      <Text size="sm">{scheduleWords(job.cron)}</Text>
      {job.cron && (
        <Text size="xs" c="dimmed">
          {job.timezone}
          {next ? ` · next ${relativeTime(next.toISOString())}` : job.enabled ? "" : " · disabled"}
        </Text>
      )}
    </>
  );
  const lastRunCell = (
    <>
      {run ? (
        <Group gap="xs" wrap="nowrap">
          <StateBadge state={run.state} />
          <Anchor component={Link} to={`${base}/runs/${run.id}`} size="sm">
            {relativeTime(run.finishedAt ?? run.startedAt ?? run.queuedAt)}
          </Anchor>
        </Group>
      ) : (
        <Text size="sm" c="dimmed">
          {lastRun.isPending ? "…" : "Never run"}
        </Text>
      )}
    </>
  );
  const enabled = (
    <>
      <Switch
        checked={toggle.isPending ? toggle.variables : job.enabled}
        disabled={!space.canWrite || toggle.isPending}
        onChange={(e) => toggle.mutate(e.currentTarget.checked)}
        aria-label={`Enabled: ${job.name}`}
        error={toggle.error ? "not saved" : undefined}
      />
    </>
  );
  const actions = (
    <>
      <Group gap={4} justify="flex-end" wrap="nowrap">
        <Button size="compact-sm" variant="light" component={Link} to={`${base}/runs?jobId=${job.id}`}>
          Runs
        </Button>
        {space.canWrite && (
          <>
            <Button size="compact-sm" onClick={props.onRun} aria-label={`Run now: ${job.name}`}>
              Run now
            </Button>
            <Menu position="bottom-end" withinPortal>
              <Menu.Target>
                <Tooltip label="More">
                  <ActionIcon variant="subtle" aria-label={`More actions: ${job.name}`}>
                    ⋯
                  </ActionIcon>
                </Tooltip>
              </Menu.Target>
              <Menu.Dropdown>
                <Menu.Item component={Link} to={`${base}/jobs/${job.id}`}>
                  Edit
                </Menu.Item>
                <Menu.Item onClick={props.onClone}>Clone</Menu.Item>
                <Menu.Item color="red" onClick={props.onDelete}>
                  Delete
                </Menu.Item>
              </Menu.Dropdown>
            </Menu>
          </>
        )}
      </Group>
    </>
  );

  if (props.compact) {
    // Phones: one card per job, everything stacked, actions at the bottom.
    return (
      <Card withBorder padding="sm" component="article" aria-label={job.name} data-job={job.name}>
        <Stack gap={6}>
          {name}
          <div>{schedule}</div>
          <Group justify="space-between" wrap="nowrap">
            <div>{lastRunCell}</div>
            {enabled}
          </Group>
          {actions}
        </Stack>
      </Card>
    );
  }
  return (
    <Table.Tr data-job={job.name}>
      <Table.Td>{name}</Table.Td>
      <Table.Td>{schedule}</Table.Td>
      <Table.Td>{lastRunCell}</Table.Td>
      <Table.Td>{enabled}</Table.Td>
      <Table.Td>{actions}</Table.Td>
    </Table.Tr>
  );
}

function DeleteJob({ job, onClose }: { job: Job | null; onClose: () => void }) {
  const space = useSpace();
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: (id: string) => del(`${spacePath(space.id)}/jobs/${id}`),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: keys.jobs(space.id) });
      void queryClient.invalidateQueries({ queryKey: keys.runs(space.id) });
      onClose();
    },
  });
  return (
    <ConfirmModal
      opened={job !== null}
      title="Delete the job?"
      confirmLabel="Delete"
      onClose={() => {
        remove.reset();
        onClose();
      }}
      onConfirm={() => job && remove.mutate(job.id)}
      pending={remove.isPending}
      error={remove.error}
    >
      “{job?.name}” and all its runs and report files will be deleted. This cannot be undone.
    </ConfirmModal>
  );
}

function CloneJob({ job, onClose }: { job: Job | null; onClose: () => void }) {
  const space = useSpace();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  useEffect(() => {
    if (job) setName(`Copy of ${job.name}`);
  }, [job]);
  const clone = useMutation({
    mutationFn: (source: Job) => post<Job>(`${spacePath(space.id)}/jobs`, cloneBody(source, name.trim())),
    onSuccess: async (created) => {
      await queryClient.invalidateQueries({ queryKey: keys.jobs(space.id) });
      onClose();
      navigate(`/s/${encodeURIComponent(space.id)}/jobs/${created.id}`);
    },
  });
  return (
    <Modal
      opened={job !== null}
      onClose={() => {
        clone.reset();
        onClose();
      }}
      title="Clone the job"
      centered
    >
      {job && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            clone.mutate(job);
          }}
        >
          <Stack>
            <TextInput
              label="Name of the copy"
              required
              value={name}
              onChange={(e) => setName(e.currentTarget.value)}
              data-autofocus
            />
            <Text size="xs" c="dimmed">
              The copy is created disabled, so it does not fire until you enable it.
            </Text>
            <ErrorAlert error={clone.error} />
            <Group justify="flex-end">
              <Button type="submit" loading={clone.isPending}>
                Clone
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}
