import { Alert, Group, Loader, Stack, Text } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { describeError, post } from "../../api/client";
import type { Loose } from "./object-fields";

type Preview = {
  title: string;
  html: string;
  errors: { page: number; row: number; cell: number; block: number; message: string }[];
};

/** The value, once it has stopped changing for `ms`. */
function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = window.setTimeout(() => setSettled(value), ms);
    return () => window.clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/**
 * The report as the run would build it, from the form as it is and the data of a run (the last
 * test, or the job's last run): rebuilt on the server half a second after the last change. Shown
 * in a sandboxed frame (no scripts, its own origin).
 */
export function ReportPreview(props: {
  space: string;
  report: Loose | undefined;
  runId: string | null;
  job: { name: string; description: string };
}) {
  const settled = useSettled(
    JSON.stringify({ report: props.report ?? null, runId: props.runId ?? undefined, job: props.job }),
    500,
  );
  const preview = useQuery({
    queryKey: ["report-preview", props.space, settled],
    queryFn: () =>
      post<Preview>(`/ui-api/spaces/${encodeURIComponent(props.space)}/report-preview`, JSON.parse(settled)),
    placeholderData: (previous) => previous,
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
  });
  return (
    <Stack gap="xs">
      <Group gap="xs" justify="space-between">
        <Text fw={500}>Preview</Text>
        {preview.isFetching && <Loader size="xs" aria-label="Building the preview" />}
      </Group>
      <Text size="xs" c="dimmed">
        {props.runId
          ? "Built from the data of the last test (or the job's last run)."
          : "No data yet: run Test to fill the variables and snapshots."}
      </Text>
      {preview.error && (
        <Alert color="red" role="alert">
          {describeError(preview.error)}
        </Alert>
      )}
      {preview.data && preview.data.errors.length > 0 && (
        <Alert color="orange" title="Blocks that fail">
          {preview.data.errors.map((e) => (
            <Text key={`${e.page}-${e.row}-${e.cell}-${e.block}-${e.message}`} size="sm">
              {e.page < 0
                ? e.message
                : `Page ${e.page + 1}, row ${e.row + 1}, cell ${e.cell + 1}, block ${e.block + 1}: ${e.message}`}
            </Text>
          ))}
        </Alert>
      )}
      {preview.data && (
        <iframe
          title="Report preview"
          srcDoc={preview.data.html}
          sandbox=""
          style={{
            width: "100%",
            height: 560,
            border: "1px solid var(--mantine-color-default-border)",
            borderRadius: 4,
            background: "white",
          }}
        />
      )}
    </Stack>
  );
}
