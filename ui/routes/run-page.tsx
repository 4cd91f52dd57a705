import {
  Alert,
  Anchor,
  Badge,
  Box,
  Button,
  Card,
  Code,
  Group,
  Image,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
} from "@mantine/core";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type ReactNode, useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { del, get } from "../api/client";
import { keys, spacePath, useRun } from "../api/queries";
import type { Run, RunPage as RunPageAnswer } from "../api/types";
import { ConfirmModal } from "../components/confirm-modal";
import { ErrorAlert } from "../components/error-alert";
import { dateTime, duration } from "../components/format";
import { PageLoader } from "../components/page-loader";
import { useSpace } from "../components/space-layout";
import { StateBadge } from "../components/state-badge";

export default function RunPage() {
  const space = useSpace();
  const { runId = "" } = useParams();
  const run = useRun(space.id, runId);
  if (run.isPending) return <PageLoader />;
  if (!run.data) return <ErrorAlert error={run.error} title="The run cannot be shown" />;
  return <RunDetails run={run.data} />;
}

function RunDetails({ run }: { run: Run }) {
  const space = useSpace();
  const base = `/s/${encodeURIComponent(space.id)}`;
  const html = run.files.find((f) => f.kind === "html");
  const pdf = run.files.find((f) => f.kind === "pdf");
  const variables = Object.entries(run.variables);
  const failedStep = run.error?.stepId ? run.steps.find((s) => s.stepId === run.error?.stepId) : undefined;
  const [deleting, setDeleting] = useState(false);
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () => del(`/ui-api/spaces/${encodeURIComponent(space.id)}/runs/${run.id}`),
    onSuccess: async () => {
      // Not the deleted run's own query: this page still shows it, and asking again would be a 404.
      const own = keys.run(space.id, run.id);
      await queryClient.invalidateQueries({
        queryKey: keys.runs(space.id),
        predicate: (query) => query.queryKey[2] !== own[2] || query.queryKey[3] !== own[3],
      });
      navigate(`${base}/runs`, { replace: true });
    },
  });

  return (
    <Stack gap="lg">
      <Stack gap={4}>
        <Group gap="sm">
          <Title order={1} size="h2">
            {run.jobName}
          </Title>
          <StateBadge state={run.state} />
          {space.canWrite && run.state !== "queued" && run.state !== "running" && (
            <Button size="compact-sm" variant="subtle" color="red" onClick={() => setDeleting(true)}>
              Delete the run
            </Button>
          )}
        </Group>
        <ConfirmModal
          opened={deleting}
          title="Delete the run?"
          confirmLabel="Delete"
          onClose={() => setDeleting(false)}
          onConfirm={() => remove.mutate()}
          pending={remove.isPending}
          error={remove.error}
        >
          The run with its snapshots, reports and delivery records will be deleted. This cannot be undone.
        </ConfirmModal>
        <Group gap="md">
          <Text size="sm" c="dimmed">
            {run.trigger}
            {run.attempt > 1 ? `, attempt ${run.attempt}` : ""}
          </Text>
          <Text size="sm" c="dimmed">
            queued {dateTime(run.queuedAt)}
          </Text>
          {run.startedAt && (
            <Text size="sm" c="dimmed">
              took {duration(run.durationMs)}
            </Text>
          )}
          {run.trigger !== "test" && (
            <Anchor component={Link} to={`${base}/jobs/${run.jobId}`} size="sm">
              The job
            </Anchor>
          )}
          <Anchor component={Link} to={`${base}/runs?jobId=${run.jobId}`} size="sm">
            Its runs
          </Anchor>
        </Group>
      </Stack>

      {run.error && (
        <Alert color="red" title="Error" role="alert">
          {run.error.message}
          {failedStep && (
            <Text size="xs" mt={4}>
              at step {failedStep.index + 1} ({failedStep.type})
            </Text>
          )}
        </Alert>
      )}

      <Attempts run={run} />

      <Section title="Steps">
        {run.steps.length === 0 ? (
          <Text c="dimmed" size="sm">
            {run.state === "queued" ? "Waiting for a worker." : "No step ran."}
          </Text>
        ) : (
          <Table.ScrollContainer minWidth={420}>
            <Table striped fz="sm" aria-label="Steps">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>#</Table.Th>
                  <Table.Th>Type</Table.Th>
                  <Table.Th>State</Table.Th>
                  <Table.Th>Time</Table.Th>
                  <Table.Th>Error</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {run.steps.map((step) => (
                  <Table.Tr key={`${step.index}-${step.stepId}`}>
                    <Table.Td>{step.index + 1}</Table.Td>
                    <Table.Td>{step.type}</Table.Td>
                    <Table.Td>
                      <StateBadge state={step.state} />
                    </Table.Td>
                    <Table.Td>{duration(step.ms)}</Table.Td>
                    <Table.Td c="red">{step.error ?? ""}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Section>

      {variables.length > 0 && (
        <Section title="Variables">
          <Table fz="sm" aria-label="Variables" maw={720}>
            <Table.Tbody>
              {variables.map(([name, value]) => (
                <Table.Tr key={name}>
                  <Table.Th w="30%">{name}</Table.Th>
                  <Table.Td style={{ wordBreak: "break-word" }}>
                    {typeof value === "string" || typeof value === "number" ? (
                      String(value)
                    ) : (
                      <Code>{JSON.stringify(value)}</Code>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Section>
      )}

      {run.snapshots.length > 0 && (
        <Section title="Snapshots">
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
            {run.snapshots.map((snapshot) => (
              <Card key={snapshot.name} withBorder padding="xs">
                <Anchor href={snapshot.url} target="_blank" rel="noopener">
                  <Image src={snapshot.url} alt={`Snapshot ${snapshot.name}`} fit="contain" mah={320} />
                </Anchor>
                <Text size="sm" mt={4}>
                  {snapshot.name}
                </Text>
              </Card>
            ))}
          </SimpleGrid>
        </Section>
      )}

      {(html || pdf) && <Report htmlUrl={html?.url} pdfUrl={pdf?.url} />}

      <Section title="Deliveries">
        {run.deliveries.length === 0 ? (
          <Text c="dimmed" size="sm">
            Nothing was delivered{run.state === "skipped" ? ": the run stopped on purpose" : ""}.
          </Text>
        ) : (
          <Table.ScrollContainer minWidth={520}>
            <Table fz="sm" aria-label="Deliveries">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Type</Table.Th>
                  <Table.Th>To</Table.Th>
                  <Table.Th>State</Table.Th>
                  <Table.Th>At</Table.Th>
                  <Table.Th>Error</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {run.deliveries.map((d) => (
                  <Table.Tr key={`${d.interfaceId}-${d.target}-${d.at}`}>
                    <Table.Td>{d.type}</Table.Td>
                    <Table.Td>{d.target ?? "—"}</Table.Td>
                    <Table.Td>
                      <StateBadge state={d.state} />
                      {d.status !== null && (
                        <Text span size="xs" c="dimmed" ml={4}>
                          {d.status}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>{dateTime(d.at)}</Table.Td>
                    <Table.Td c="red">{d.error ?? ""}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Section>
    </Stack>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Stack gap="xs" component="section" aria-label={title}>
      <Title order={2} size="h4">
        {title}
      </Title>
      {children}
    </Stack>
  );
}

/** The report inline: HTML in a sandboxed frame, or the PDF in the browser's viewer. */
function Report({ htmlUrl, pdfUrl }: { htmlUrl?: string; pdfUrl?: string }) {
  const [view, setView] = useState<"html" | "pdf">(htmlUrl ? "html" : "pdf");
  return (
    <Section title="Report">
      <Group gap="sm">
        {htmlUrl && pdfUrl && (
          <SegmentedControl
            size="xs"
            aria-label="Report format"
            value={view}
            onChange={(v) => setView(v as "html" | "pdf")}
            data={[
              { value: "html", label: "HTML" },
              { value: "pdf", label: "PDF" },
            ]}
          />
        )}
        {htmlUrl && (
          <Button component="a" href={htmlUrl} target="_blank" rel="noopener" size="compact-sm" variant="default">
            Open HTML
          </Button>
        )}
        {pdfUrl && (
          <Button component="a" href={pdfUrl} target="_blank" rel="noopener" size="compact-sm" variant="default">
            Open PDF
          </Button>
        )}
      </Group>
      <Box h={{ base: 420, sm: 640 }} style={{ border: "1px solid var(--mantine-color-default-border)" }}>
        {view === "html" && htmlUrl ? (
          <iframe src={htmlUrl} title="Report (HTML)" sandbox="" style={{ width: "100%", height: "100%", border: 0 }} />
        ) : pdfUrl ? (
          <object
            data={pdfUrl}
            type="application/pdf"
            aria-label="Report (PDF)"
            style={{ width: "100%", height: "100%" }}
          >
            <Text p="md" size="sm">
              This browser cannot show the PDF here: <Anchor href={pdfUrl}>open it</Anchor>.
            </Text>
          </object>
        ) : null}
      </Box>
    </Section>
  );
}

/** A run that was retried, or is a retry: every attempt of it, first to last. */
function Attempts({ run }: { run: Run }) {
  const space = useSpace();
  const firstId = run.retryOf ?? run.id;
  const attempts = useQuery({
    queryKey: [...keys.runs(space.id), "attempts", firstId],
    queryFn: () => get<RunPageAnswer>(`${spacePath(space.id)}/runs?jobId=${run.jobId}&limit=200`),
    select: (page) =>
      page.items.filter((r) => r.id === firstId || r.retryOf === firstId).sort((a, b) => a.attempt - b.attempt),
    enabled: run.trigger !== "test",
  });
  const list = attempts.data ?? [];
  if (list.length < 2) return null;
  return (
    <Group gap="xs" aria-label="Attempts">
      <Text size="sm">Attempts:</Text>
      {list.map((attempt) => (
        <Badge
          key={attempt.id}
          component={Link}
          to={`/s/${encodeURIComponent(space.id)}/runs/${attempt.id}`}
          variant={attempt.id === run.id ? "filled" : "light"}
          color={attempt.state === "failed" ? "red" : attempt.state === "success" ? "green" : "gray"}
          style={{ cursor: "pointer" }}
        >
          {attempt.attempt}: {attempt.state}
        </Badge>
      ))}
    </Group>
  );
}
