import { Group, List, NumberInput, SegmentedControl, Select, Stack, Text, TextInput } from "@mantine/core";
import { useState } from "react";
import { nextFirings, scheduleWords, zonedTime } from "../format";
import {
  DAYS,
  DEFAULT_INTERVALS as DEFAULTS,
  fromCron,
  HOUR_STEPS,
  type Interval,
  MINUTE_STEPS,
  toCron,
} from "./schedule-interval";

type Mode = "none" | "interval" | "cron";

/** On demand, a simple interval, or cron; the schedule in words and its next five firings. */
export function ScheduleFields(props: {
  cron: string | null;
  timezone: string;
  error?: string;
  disabled: boolean;
  onChange: (cron: string | null) => void;
}) {
  const { cron, timezone, disabled, onChange } = props;
  const [mode, setMode] = useState<Mode>(!cron ? "none" : fromCron(cron) ? "interval" : "cron");
  const interval = (cron && fromCron(cron)) || DEFAULTS.weekdays;
  const firings = nextFirings(cron, timezone, 5);

  const switchMode = (next: Mode) => {
    setMode(next);
    if (next === "none") onChange(null);
    else if (next === "interval") onChange(toCron(interval));
    else onChange(cron ?? toCron(interval));
  };

  return (
    <Stack gap="xs">
      <div>
        <Text size="sm" fw={500} id="schedule-mode">
          Schedule
        </Text>
        <SegmentedControl
          aria-labelledby="schedule-mode"
          value={mode}
          disabled={disabled}
          onChange={(v) => switchMode(v as Mode)}
          data={[
            { value: "none", label: "On demand" },
            { value: "interval", label: "Every …" },
            { value: "cron", label: "Cron" },
          ]}
        />
      </div>
      {mode === "interval" && (
        <Group gap="xs" align="flex-end">
          <Select
            label="Repeat"
            data={[
              { value: "minutes", label: "Every few minutes" },
              { value: "hours", label: "Every few hours" },
              { value: "days", label: "Every day" },
              { value: "weekdays", label: "Monday to Friday" },
              { value: "weeks", label: "Every week" },
            ]}
            value={interval.unit}
            allowDeselect={false}
            disabled={disabled}
            onChange={(v) => v && onChange(toCron(DEFAULTS[v as Interval["unit"]]))}
            w={190}
          />
          {interval.unit === "minutes" && (
            <Select
              label="Minutes"
              data={MINUTE_STEPS.map(String)}
              value={String(interval.every)}
              allowDeselect={false}
              disabled={disabled}
              onChange={(v) => onChange(toCron({ ...interval, every: Number(v) }))}
              w={100}
            />
          )}
          {interval.unit === "hours" && (
            <>
              <Select
                label="Hours"
                data={HOUR_STEPS.map(String)}
                value={String(interval.every)}
                allowDeselect={false}
                disabled={disabled}
                onChange={(v) => onChange(toCron({ ...interval, every: Number(v) }))}
                w={90}
              />
              <NumberInput
                label="At minute"
                min={0}
                max={59}
                value={interval.minute}
                disabled={disabled}
                onChange={(v) => onChange(toCron({ ...interval, minute: Math.min(59, Math.max(0, Number(v) || 0)) }))}
                w={110}
              />
            </>
          )}
          {interval.unit === "weeks" && (
            <Select
              label="On"
              data={DAYS.map((d, i) => ({ value: String(i), label: d }))}
              value={String(interval.day)}
              allowDeselect={false}
              disabled={disabled}
              onChange={(v) => onChange(toCron({ ...interval, day: Number(v) }))}
              w={150}
            />
          )}
          {(interval.unit === "days" || interval.unit === "weekdays" || interval.unit === "weeks") && (
            <TextInput
              label="At"
              type="time"
              value={interval.time}
              disabled={disabled}
              onChange={(e) => e.currentTarget.value && onChange(toCron({ ...interval, time: e.currentTarget.value }))}
              w={130}
            />
          )}
        </Group>
      )}
      {mode === "cron" && (
        <TextInput
          label="Schedule (cron)"
          description="Five fields: minute hour day month weekday, e.g. 0 9 * * 1-5."
          placeholder="0 9 * * 1-5"
          value={cron ?? ""}
          error={props.error}
          disabled={disabled}
          styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
          onChange={(e) => onChange(e.currentTarget.value.trim() ? e.currentTarget.value : null)}
        />
      )}
      {mode !== "cron" && props.error && (
        <Text size="sm" c="red" role="alert">
          {props.error}
        </Text>
      )}
      <Text size="sm" c="dimmed" aria-live="polite">
        {scheduleWords(cron)}
        {mode !== "none" && cron ? ` (${cron}, ${timezone})` : ""}
      </Text>
      {firings.length > 0 && (
        <div>
          <Text size="sm" fw={500}>
            Next firings
          </Text>
          <List size="sm" aria-label="Next firings">
            {firings.map((date) => (
              <List.Item key={date.toISOString()}>{zonedTime(date, timezone)}</List.Item>
            ))}
          </List>
        </div>
      )}
    </Stack>
  );
}
