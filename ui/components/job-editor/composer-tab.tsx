import {
  Alert,
  Grid,
  Group,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  Textarea,
  TextInput,
} from "@mantine/core";
import { useState } from "react";
import type { CapturedNames } from "./captured-names";
import type { Loose } from "./object-fields";
import { ReportPages } from "./report-pages";
import { ReportPreview } from "./report-preview";

const DEFAULT_REPORT = {
  title: "{{ job.name }}",
  paper: { size: "A4", orientation: "portrait" },
  pages: [{ rows: [{ cells: [{ blocks: [{ type: "snapshots" }] }] }] }],
};

/**
 * The report: title, paper, theme, and its pages (rows of 1 to 3 cells of blocks, as
 * /llms/template.md describes), as a form or as JSON.
 */
export function ComposerTab(props: {
  report: Loose | undefined;
  onChange: (report: Loose | undefined) => void;
  errors: Record<string, string>;
  disabled: boolean;
  names: CapturedNames;
  space: string;
  /** The run whose data fills the preview: the last test, or the job's last run. */
  runId: string | null;
  job: { name: string; description: string };
}) {
  return (
    <Grid gutter="xl">
      <Grid.Col span={{ base: 12, lg: 7 }}>
        <ComposerForm {...props} />
      </Grid.Col>
      <Grid.Col span={{ base: 12, lg: 5 }}>
        {!props.disabled && (
          <ReportPreview space={props.space} report={props.report} runId={props.runId} job={props.job} />
        )}
      </Grid.Col>
    </Grid>
  );
}

function ComposerForm(props: Parameters<typeof ComposerTab>[0]) {
  const { report, onChange, errors, disabled } = props;
  const [view, setView] = useState<"form" | "json">("form");
  const pageIssues = Object.entries(errors)
    .filter(([k]) => k.startsWith("report.pages"))
    .map(([k, m]) => `${k.replace(/^report\./, "")}: ${m}`);

  if (!report) {
    return (
      <Stack maw={720}>
        <Switch
          label="Own report layout"
          description="Off: the report has the job's name as title and every snapshot."
          checked={false}
          disabled={disabled}
          onChange={() => onChange({ ...DEFAULT_REPORT })}
        />
      </Stack>
    );
  }
  const set = (name: string, value: unknown) => onChange({ ...report, [name]: value });
  const theme = report.theme ?? {};
  const setTheme = (name: string, value: string) => set("theme", { ...theme, [name]: value || undefined });
  return (
    <Stack maw={820}>
      <Switch label="Own report layout" checked disabled={disabled} onChange={() => onChange(undefined)} />
      <TextInput
        label="Title"
        description="Liquid: {{ job.name }}, {{ now | date: '%Y-%m-%d' }}, any captured variable."
        value={report.title ?? ""}
        error={errors["report.title"]}
        disabled={disabled}
        onChange={(e) => set("title", e.currentTarget.value)}
      />
      <SimpleGrid cols={{ base: 1, xs: 2 }}>
        <Select
          label="Paper"
          data={["A4", "A3", "A5", "Letter", "Legal", "Tabloid"]}
          value={report.paper?.size ?? "A4"}
          allowDeselect={false}
          disabled={disabled}
          onChange={(v) => set("paper", { ...report.paper, size: v })}
        />
        <Select
          label="Orientation"
          data={["portrait", "landscape"]}
          value={report.paper?.orientation ?? "portrait"}
          allowDeselect={false}
          disabled={disabled}
          onChange={(v) => set("paper", { ...report.paper, orientation: v })}
        />
      </SimpleGrid>
      <SimpleGrid cols={{ base: 2, sm: 4 }}>
        {(
          [
            ["font", "Font", "sans-serif"],
            ["textColor", "Text colour", "#1f2937"],
            ["background", "Background", "#ffffff"],
            ["accent", "Accent", "#2563eb"],
          ] as const
        ).map(([name, label, placeholder]) => (
          <TextInput
            key={name}
            label={label}
            placeholder={placeholder}
            value={theme[name] ?? ""}
            error={errors[`report.theme.${name}`]}
            disabled={disabled}
            onChange={(e) => setTheme(name, e.currentTarget.value)}
          />
        ))}
      </SimpleGrid>
      <Group justify="space-between">
        <Text fw={500}>Pages</Text>
        <SegmentedControl
          size="xs"
          aria-label="Edit the pages as"
          value={view}
          onChange={(v) => setView(v as "form" | "json")}
          data={[
            { value: "form", label: "Form" },
            { value: "json", label: "JSON" },
          ]}
        />
      </Group>
      {view === "form" ? (
        <ReportPages
          pages={report.pages ?? []}
          onChange={(pages) => set("pages", pages)}
          errors={errors}
          disabled={disabled}
          names={props.names}
          space={props.space}
        />
      ) : (
        <PagesJson pages={report.pages ?? []} onChange={(pages) => set("pages", pages)} disabled={disabled} />
      )}
      {pageIssues.length > 0 && (
        <Alert color="red" role="alert">
          {pageIssues.map((issue) => (
            <Text key={issue} size="sm">
              {issue}
            </Text>
          ))}
        </Alert>
      )}
    </Stack>
  );
}

/** The pages as JSON text, for pasting and bulk edits; parsed as it is typed. */
function PagesJson({
  pages,
  onChange,
  disabled,
}: {
  pages: Loose[];
  onChange: (pages: Loose[]) => void;
  disabled: boolean;
}) {
  const [text, setText] = useState(() => JSON.stringify(pages, null, 2));
  const [error, setError] = useState<string | null>(null);
  return (
    <Textarea
      label="Pages (JSON)"
      description="Blocks: text {content}, snapshot {ref}, snapshots {}, variable {name, label}, image {url} or {upload}, divider {}, spacer {heightMm}."
      autosize
      minRows={8}
      maxRows={30}
      value={text}
      disabled={disabled}
      error={error}
      styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)", fontSize: 13 } }}
      onChange={(e) => {
        const value = e.currentTarget.value;
        setText(value);
        try {
          const parsed = JSON.parse(value);
          if (!Array.isArray(parsed)) throw new Error("a list of pages, [ … ]");
          onChange(parsed);
          setError(null);
        } catch (problem) {
          setError(`not valid: ${(problem as Error).message}`);
        }
      }}
    />
  );
}
