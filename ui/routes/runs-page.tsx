import { Anchor, Button, Checkbox, Group, Select, Stack, Table, Text, TextInput, Title } from "@mantine/core";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Fragment, useMemo, useState } from "react";
import { Link, useSearchParams } from "react-router";
import { del } from "../api/client";
import { keys, type RunFilters, useJobs, useRunPage } from "../api/queries";
import type { Run } from "../api/types";
import { ConfirmModal } from "../components/confirm-modal";
import { ErrorAlert } from "../components/error-alert";
import { dateTime, duration, relativeTime } from "../components/format";
import { PageLoader } from "../components/page-loader";
import { useSpace } from "../components/space-layout";
import { StateBadge } from "../components/state-badge";

const STATES = ["queued", "running", "success", "partial", "failed", "skipped"];
const TRIGGERS = ["schedule", "manual", "retry", "test"];
const PAGE_SIZE = 25;

/** `datetime-local` input value (local time) ↔ the ISO instant the API takes. */
const toIso = (local: string) => (local ? new Date(local).toISOString() : undefined);
const toLocal = (iso: string | null) => {
  if (!iso) return "";
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

/** Retries are shown under their first attempt when both are on the page. */
function groupRetries(items: Run[]): { run: Run; retries: Run[] }[] {
  const onPage = new Set(items.map((r) => r.id));
  const retries = new Map<string, Run[]>();
  for (const run of items) {
    if (run.retryOf && onPage.has(run.retryOf)) {
      retries.set(run.retryOf, [...(retries.get(run.retryOf) ?? []), run]);
    }
  }
  return items
    .filter((run) => !(run.retryOf && onPage.has(run.retryOf)))
    .map((run) => ({ run, retries: (retries.get(run.id) ?? []).sort((a, b) => a.attempt - b.attempt) }));
}

export default function RunsPage() {
  const space = useSpace();
  const jobs = useJobs(space.id);
  const [params, setParams] = useSearchParams();
  const filters: RunFilters = {
    jobId: params.get("jobId") ?? undefined,
    state: params.get("state") ?? undefined,
    trigger: params.get("trigger") ?? undefined,
    since: params.get("since") ?? undefined,
    until: params.get("until") ?? undefined,
  };
  // Keyset paging: the cursors of the pages before this one, to go back.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const page = useRunPage(space.id, filters, cursor, PAGE_SIZE);
  const groups = useMemo(() => groupRetries(page.data?.items ?? []), [page.data]);
  const base = `/s/${encodeURIComponent(space.id)}`;
  // Finished runs can be selected and deleted (rw); queued and running ones cannot.
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [confirming, setConfirming] = useState(false);
  const finishedOnPage = (page.data?.items ?? [])
    .filter((r) => r.state !== "queued" && r.state !== "running")
    .map((r) => r.id);
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: async (ids: string[]) => {
      for (const id of ids) await del(`/ui-api/spaces/${encodeURIComponent(space.id)}/runs/${id}`);
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: keys.runs(space.id) }),
    onSuccess: () => {
      setSelected(new Set());
      setConfirming(false);
    },
  });
  const selection = space.canWrite
    ? {
        has: (id: string) => selected.has(id),
        toggle: (id: string) =>
          setSelected((now) => {
            const next = new Set(now);
            if (!next.delete(id)) next.add(id);
            return next;
          }),
      }
    : undefined;

  const setFilter = (name: keyof RunFilters, value: string | undefined) => {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    setParams(next, { replace: true });
    setCursors([undefined]);
    setSelected(new Set());
  };

  return (
    <Stack>
      <Title order={1} size="h2">
        Runs
      </Title>
      <Group gap="sm" align="flex-end">
        <Select
          label="Job"
          placeholder="All jobs"
          clearable
          searchable
          data={(jobs.data ?? []).map((j) => ({ value: j.id, label: j.name }))}
          value={filters.jobId ?? null}
          onChange={(v) => setFilter("jobId", v ?? undefined)}
          w={{ base: "100%", xs: 220 }}
        />
        <Select
          label="State"
          placeholder="Any state"
          clearable
          data={STATES}
          value={filters.state ?? null}
          onChange={(v) => setFilter("state", v ?? undefined)}
          w={{ base: "100%", xs: 150 }}
        />
        <Select
          label="Trigger"
          placeholder="Any trigger"
          clearable
          data={TRIGGERS}
          value={filters.trigger ?? null}
          onChange={(v) => setFilter("trigger", v ?? undefined)}
          w={{ base: "100%", xs: 150 }}
        />
        <TextInput
          label="Since"
          type="datetime-local"
          value={toLocal(filters.since ?? null)}
          onChange={(e) => setFilter("since", toIso(e.currentTarget.value))}
        />
        <TextInput
          label="Until"
          type="datetime-local"
          value={toLocal(filters.until ?? null)}
          onChange={(e) => setFilter("until", toIso(e.currentTarget.value))}
        />
      </Group>
      <ErrorAlert error={page.error} />
      {page.isPending ? (
        <PageLoader />
      ) : groups.length === 0 ? (
        <Text c="dimmed">No run{cursors.length > 1 ? " on this page" : ""}.</Text>
      ) : (
        <Table.ScrollContainer minWidth={680}>
          <Table verticalSpacing="xs" highlightOnHover aria-label="Runs">
            <Table.Thead>
              <Table.Tr>
                {space.canWrite && (
                  <Table.Th w={36}>
                    <Checkbox
                      aria-label="Select every finished run of the page"
                      checked={finishedOnPage.length > 0 && finishedOnPage.every((id) => selected.has(id))}
                      onChange={(e) => setSelected(new Set(e.currentTarget.checked ? finishedOnPage : []))}
                    />
                  </Table.Th>
                )}
                <Table.Th>State</Table.Th>
                <Table.Th>Job</Table.Th>
                <Table.Th>Trigger</Table.Th>
                <Table.Th>Queued</Table.Th>
                <Table.Th>Duration</Table.Th>
                <Table.Th>Error</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {groups.map(({ run, retries }) => (
                <Fragment key={run.id}>
                  <RunRow run={run} base={base} selection={selection} />
                  {retries.map((retry) => (
                    <RunRow key={retry.id} run={retry} base={base} nested selection={selection} />
                  ))}
                </Fragment>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {space.canWrite && selected.size > 0 && (
        <Group gap="xs">
          <Button color="red" variant="light" onClick={() => setConfirming(true)}>
            Delete {selected.size} run{selected.size === 1 ? "" : "s"}
          </Button>
          <Button variant="subtle" onClick={() => setSelected(new Set())}>
            Clear the selection
          </Button>
        </Group>
      )}
      <ConfirmModal
        opened={confirming}
        title="Delete the runs?"
        confirmLabel="Delete"
        onClose={() => {
          remove.reset();
          setConfirming(false);
        }}
        onConfirm={() => remove.mutate([...selected])}
        pending={remove.isPending}
        error={remove.error}
      >
        {selected.size} run{selected.size === 1 ? "" : "s"} with {selected.size === 1 ? "its" : "their"} snapshots,
        reports and delivery records will be deleted. This cannot be undone.
      </ConfirmModal>
      <Group gap="xs">
        <Button variant="default" disabled={cursors.length < 2} onClick={() => setCursors((list) => list.slice(0, -1))}>
          Newer
        </Button>
        <Button
          variant="default"
          disabled={!page.data?.nextCursor}
          onClick={() => page.data?.nextCursor && setCursors((list) => [...list, page.data.nextCursor ?? undefined])}
        >
          Older
        </Button>
        <Text size="xs" c="dimmed">
          Page {cursors.length}
        </Text>
      </Group>
    </Stack>
  );
}

type Selection = { has: (id: string) => boolean; toggle: (id: string) => void };

function RunRow({ run, base, nested, selection }: { run: Run; base: string; nested?: boolean; selection?: Selection }) {
  const active = run.state === "queued" || run.state === "running";
  return (
    <Table.Tr data-run={run.id}>
      {selection && (
        <Table.Td>
          <Checkbox
            aria-label={`Select the run of ${run.jobName}, ${dateTime(run.queuedAt)}`}
            checked={selection.has(run.id)}
            disabled={active}
            onChange={() => selection.toggle(run.id)}
          />
        </Table.Td>
      )}
      <Table.Td>
        <Group gap={6} wrap="nowrap" pl={nested ? "lg" : 0}>
          {nested && (
            <Text span c="dimmed" aria-hidden>
              ↳
            </Text>
          )}
          <StateBadge state={run.state} />
        </Group>
      </Table.Td>
      <Table.Td>
        <Anchor component={Link} to={`${base}/runs/${run.id}`}>
          {run.jobName}
        </Anchor>
      </Table.Td>
      <Table.Td>
        <Text size="sm">
          {run.trigger}
          {run.attempt > 1 ? ` · attempt ${run.attempt}` : ""}
        </Text>
      </Table.Td>
      <Table.Td>
        <Text size="sm" title={dateTime(run.queuedAt)}>
          {relativeTime(run.queuedAt)}
        </Text>
      </Table.Td>
      <Table.Td>
        <Text size="sm">{duration(run.durationMs)}</Text>
      </Table.Td>
      <Table.Td maw={280}>
        <Text size="sm" c="red" lineClamp={2}>
          {run.error?.message ?? ""}
        </Text>
      </Table.Td>
    </Table.Tr>
  );
}
