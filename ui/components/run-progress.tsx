import { Alert, Anchor, Code, Group, Image, Loader, Stack, Table, Text } from "@mantine/core";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { Link } from "react-router";
import { describeError } from "../api/client";
import { postEventStream, type StreamEvent } from "../api/event-stream";
import { keys } from "../api/queries";
import type { RunStep, StreamEnd } from "../api/types";
import { duration } from "./format";
import { StateBadge } from "./state-badge";

type Progress = {
  runId: string | null;
  steps: RunStep[];
  logs: { level: string; message: string }[];
  snapshots: { name: string; url: string }[];
  deliveries: { type: string; target: string | null; state: string; error: string | null; at: string }[];
  end: StreamEnd | null;
  error: unknown;
};

const EMPTY: Progress = { runId: null, steps: [], logs: [], snapshots: [], deliveries: [], end: null, error: null };

function apply(progress: Progress, { event, data }: StreamEvent): Progress {
  // biome-ignore lint/suspicious/noExplicitAny: event data is read field by field, as DESIGN.md fixes it
  const d = data as any;
  switch (event) {
    case "start":
      return { ...progress, runId: d?.runId ?? null };
    case "step": {
      // One line per step: "started" is replaced by its outcome.
      const steps = progress.steps.filter((s) => !(s.index === d.index && s.stepId === d.stepId));
      return { ...progress, steps: [...steps, d as RunStep] };
    }
    case "log":
      return { ...progress, logs: [...progress.logs, d] };
    case "snapshot":
      return { ...progress, snapshots: [...progress.snapshots, d] };
    case "delivery":
      return { ...progress, deliveries: [...progress.deliveries, d] };
    case "end":
      return { ...progress, end: d as StreamEnd };
    default:
      return progress;
  }
}

/**
 * Streams a run, preview or test and shows it as it goes: steps with their times, log lines,
 * snapshots, deliveries, and the outcome with a link to the run.
 */
export function RunProgress({
  path,
  body,
  space,
  onEnd,
}: {
  path: string;
  body?: unknown;
  space: string;
  /** Called once with the end of the stream (the editor keeps the run for its report preview). */
  onEnd?: (end: StreamEnd) => void;
}) {
  const [progress, setProgress] = useState<Progress>(EMPTY);
  const queryClient = useQueryClient();
  // The body as it was when this view opened: later edits of the form do not restart the stream.
  const [startBody] = useState(body);

  useEffect(() => {
    // Started on the next tick and hung up on unmount: StrictMode's trial unmount cancels the
    // timer before anything is sent, so one mount is one POST (a second would be a second run).
    // Hanging up stops a test or preview; a run goes on on the server.
    const controller = new AbortController();
    const timer = window.setTimeout(() => {
      void postEventStream(path, startBody, (event) => setProgress((p) => apply(p, event)), controller.signal)
        .catch((error: unknown) => {
          if (!controller.signal.aborted) setProgress((p) => ({ ...p, error }));
        })
        .finally(() => {
          void queryClient.invalidateQueries({ queryKey: ["runs", space] });
          void queryClient.invalidateQueries({ queryKey: keys.health });
        });
    }, 0);
    return () => {
      window.clearTimeout(timer);
      controller.abort();
    };
  }, [path, startBody, space, queryClient]);

  const { end } = progress;
  const reported = useRef(false);
  useEffect(() => {
    if (end && !reported.current) {
      reported.current = true;
      onEnd?.(end);
    }
  }, [end, onEnd]);
  const failedStep = end?.error?.stepId ? progress.steps.find((s) => s.stepId === end.error?.stepId) : undefined;
  const reportHtml = end?.files.find((f) => f.kind === "html");
  return (
    <Stack gap="sm" aria-live="polite">
      <Group gap="xs">
        {end ? <StateBadge state={end.state} /> : !progress.error && <Loader size="xs" aria-label="Running" />}
        <Text size="sm">{end ? (end.ok ? "Finished" : "Failed") : progress.error ? "Not started" : "Running …"}</Text>
        {end?.runId && (
          <Anchor component={Link} to={`/s/${encodeURIComponent(space)}/runs/${end.runId}`} size="sm">
            Open the run
          </Anchor>
        )}
      </Group>
      {progress.error ? (
        <Alert color="red" role="alert">
          {describeError(progress.error)}
        </Alert>
      ) : null}
      {end?.error && (
        <Alert
          color="red"
          role="alert"
          title={failedStep ? `Step ${failedStep.index + 1} (${failedStep.type}) failed` : "Error"}
        >
          {end.error.message}
        </Alert>
      )}
      {progress.steps.length > 0 && (
        <Table.ScrollContainer minWidth={320}>
          <Table striped fz="sm" aria-label="Steps">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>#</Table.Th>
                <Table.Th>Step</Table.Th>
                <Table.Th>State</Table.Th>
                <Table.Th>Time</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {progress.steps.map((step) => (
                <Table.Tr key={`${step.index}-${step.stepId}`}>
                  <Table.Td>{step.index + 1}</Table.Td>
                  <Table.Td>
                    {step.type}
                    {step.error && (
                      <Text size="xs" c="red">
                        {step.error}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <StateBadge state={step.state} />
                  </Table.Td>
                  <Table.Td>{duration(step.ms)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {progress.deliveries.map((d) => (
        <Text component="div" size="sm" key={`${d.type}-${d.target}-${d.at}`}>
          Delivery {d.type} {d.target ?? ""}: <StateBadge state={d.state} /> {d.error}
        </Text>
      ))}
      {end && Object.keys(end.variables).length > 0 && (
        <Code block aria-label="Variables">
          {JSON.stringify(end.variables, null, 2)}
        </Code>
      )}
      {progress.snapshots.length > 0 && (
        <Group align="flex-start">
          {progress.snapshots.map((s) => (
            <Stack key={s.name} gap={2} maw={280}>
              <Image src={s.url} alt={`Snapshot ${s.name}`} radius="sm" fit="contain" mah={200} />
              <Text size="xs">{s.name}</Text>
            </Stack>
          ))}
        </Group>
      )}
      {reportHtml && (
        <iframe
          title="Report preview"
          src={reportHtml.url}
          sandbox=""
          style={{
            width: "100%",
            height: 360,
            border: "1px solid var(--mantine-color-default-border)",
            borderRadius: 4,
          }}
        />
      )}
      {progress.logs.length > 0 && (
        <details>
          <summary>
            <Text span size="sm">
              Log ({progress.logs.length} lines)
            </Text>
          </summary>
          <Code block>{progress.logs.map((l) => `${l.level}: ${l.message}`).join("\n")}</Code>
        </details>
      )}
      {!end && !progress.error && progress.steps.length === 0 && (
        <Text size="sm" c="dimmed">
          Waiting for a worker …
        </Text>
      )}
      {end && (
        <Text size="xs" c="dimmed">
          {duration(progress.steps.reduce((sum, s) => sum + (s.ms ?? 0), 0))} of capture steps
        </Text>
      )}
    </Stack>
  );
}
