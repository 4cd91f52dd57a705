import { NumberInput, Select, SimpleGrid, Stack, Switch, Textarea, TextInput } from "@mantine/core";
import { useMemo } from "react";
import type { Loose } from "./object-fields";
import { ScheduleFields } from "./schedule-fields";

const zones = (): string[] => {
  try {
    return Intl.supportedValuesOf("timeZone");
  } catch {
    return ["UTC"];
  }
};

/** Name, schedule, retries, throttling and retention. */
export function GeneralTab(props: {
  job: Loose;
  onChange: (job: Loose) => void;
  errors: Record<string, string>;
  disabled: boolean;
}) {
  const { job, onChange, errors, disabled } = props;
  const timeZones = useMemo(() => {
    const list = zones();
    return list.includes("UTC") ? list : ["UTC", ...list];
  }, []);
  const set = (name: string, value: unknown) => onChange({ ...job, [name]: value });
  return (
    <Stack maw={720}>
      <TextInput
        label="Name"
        required
        value={job.name ?? ""}
        error={errors.name}
        disabled={disabled}
        onChange={(e) => set("name", e.currentTarget.value)}
      />
      <Textarea
        label="Description"
        autosize
        minRows={2}
        value={job.description ?? ""}
        error={errors.description}
        disabled={disabled}
        onChange={(e) => set("description", e.currentTarget.value)}
      />
      <Switch
        label="Enabled: the schedule fires"
        checked={job.enabled !== false}
        disabled={disabled}
        onChange={(e) => set("enabled", e.currentTarget.checked)}
      />
      <Select
        label="Time zone"
        description="The schedule fires in this time zone."
        searchable
        data={timeZones}
        value={job.timezone ?? "UTC"}
        allowDeselect={false}
        error={errors.timezone}
        disabled={disabled}
        onChange={(v) => set("timezone", v ?? "UTC")}
        maw={340}
      />
      <ScheduleFields
        cron={job.cron ?? null}
        timezone={job.timezone ?? "UTC"}
        error={errors.cron}
        disabled={disabled}
        onChange={(cron) => set("cron", cron)}
      />
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <NumberInput
          label="Retries after a failure"
          min={0}
          max={10}
          value={job.retry?.attempts ?? 0}
          error={errors["retry.attempts"]}
          disabled={disabled}
          onChange={(v) => set("retry", { ...job.retry, attempts: Number(v) || 0 })}
        />
        <NumberInput
          label="Minutes between retries"
          min={0}
          max={1440}
          value={job.retry?.delayMinutes ?? 5}
          error={errors["retry.delayMinutes"]}
          disabled={disabled}
          onChange={(v) => set("retry", { ...job.retry, delayMinutes: Number(v) || 0 })}
        />
        <NumberInput
          label="Deliver at most every (minutes)"
          description="0: every run delivers."
          min={0}
          value={job.notify?.minIntervalMinutes ?? 0}
          error={errors["notify.minIntervalMinutes"]}
          disabled={disabled}
          onChange={(v) => set("notify", { minIntervalMinutes: Number(v) || 0 })}
        />
        <NumberInput
          label="Keep runs for (days)"
          min={1}
          max={3650}
          value={job.retentionDays ?? 90}
          error={errors.retentionDays}
          disabled={disabled}
          onChange={(v) => set("retentionDays", Number(v) || 90)}
        />
      </SimpleGrid>
    </Stack>
  );
}
