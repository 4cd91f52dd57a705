import { Anchor, Button, Group, Select, Stack, Table, Text, TextInput, Title } from "@mantine/core";
import { Fragment, useMemo, useState } from "react";
import { Link, useSearchParams } from "react-router";
import { type RunFilters, useJobs, useRunPage } from "../api/queries";
import type { Run } from "../api/types";
import { ErrorAlert } from "../components/error-alert";
import { dateTime, duration, relativeTime } from "../components/format";
import { PageLoader } from "../components/page-loader";
import { useSpace } from "../components/space-layout";
import { StateBadge } from "../components/state-badge";

const STATES = ["queued", "running", "success", "partial", "failed", "skipped"];
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
    since: params.get("since") ?? undefined,
    until: params.get("until") ?? undefined,
  };
  // Keyset paging: the cursors of the pages before this one, to go back.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const page = useRunPage(space.id, filters, cursor, PAGE_SIZE);
  const groups = useMemo(() => groupRetries(page.data?.items ?? []), [page.data]);
  const base = `/s/${encodeURIComponent(space.id)}`;

  const setFilter = (name: keyof RunFilters, value: string | undefined) => {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    setParams(next, { replace: true });
    setCursors([undefined]);
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
                  <RunRow run={run} base={base} />
                  {retries.map((retry) => (
                    <RunRow key={retry.id} run={retry} base={base} nested />
                  ))}
                </Fragment>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
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

function RunRow({ run, base, nested }: { run: Run; base: string; nested?: boolean }) {
  return (
    <Table.Tr data-run={run.id}>
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
