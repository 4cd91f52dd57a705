import {
  ActionIcon,
  Badge,
  Button,
  Card,
  Group,
  NumberInput,
  PasswordInput,
  Select,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { useState } from "react";
import { type Loose, ObjectFields } from "./object-fields";
import { newStep, STEP_TYPES } from "./step-types";

const TYPE_OPTIONS = Object.entries(STEP_TYPES).map(([value, t]) => ({ value, label: `${t.label} (${value})` }));

type Props = {
  capture: Loose;
  onChange: (capture: Loose) => void;
  errors: Record<string, string>;
  disabled: boolean;
  providers: { value: string; label: string }[];
};

/** The browser settings and the ordered steps of the capture. */
export function CaptureTab({ capture, onChange, errors, disabled, providers }: Props) {
  const viewport = capture.viewport ?? {};
  const auth = capture.auth ?? { type: "none" };
  return (
    <Stack>
      <SimpleGrid cols={{ base: 1, xs: 2 }} maw={520}>
        <NumberInput
          label="Viewport width (px)"
          value={viewport.width ?? 1440}
          min={320}
          max={3840}
          disabled={disabled}
          error={errors["capture.viewport.width"]}
          onChange={(v) => onChange({ ...capture, viewport: { ...viewport, width: Number(v) || 1440 } })}
        />
        <NumberInput
          label="Viewport height (px)"
          value={viewport.height ?? 900}
          min={200}
          max={4320}
          disabled={disabled}
          error={errors["capture.viewport.height"]}
          onChange={(v) => onChange({ ...capture, viewport: { ...viewport, height: Number(v) || 900 } })}
        />
      </SimpleGrid>
      <Group align="flex-end" maw={720}>
        <Select
          label="HTTP authentication"
          data={[
            { value: "none", label: "None" },
            { value: "basic", label: "Basic (user name and password)" },
          ]}
          value={auth.type}
          allowDeselect={false}
          disabled={disabled}
          onChange={(v) =>
            onChange({ ...capture, auth: v === "basic" ? { type: "basic", username: "" } : { type: "none" } })
          }
        />
        {auth.type === "basic" && (
          <>
            <TextInput
              label="User name"
              value={auth.username ?? ""}
              disabled={disabled}
              error={errors["capture.auth.username"]}
              onChange={(e) => onChange({ ...capture, auth: { ...auth, username: e.currentTarget.value } })}
            />
            <PasswordInput
              label="Password"
              autoComplete="off"
              value={auth.password ?? ""}
              disabled={disabled}
              error={errors["capture.auth.password"]}
              onChange={(e) => onChange({ ...capture, auth: { ...auth, password: e.currentTarget.value } })}
            />
          </>
        )}
      </Group>
      <Title order={3} size="h5">
        Steps
      </Title>
      {errors["capture.steps"] && (
        <Text c="red" size="sm" role="alert">
          {errors["capture.steps"]}
        </Text>
      )}
      <StepList
        steps={capture.steps ?? []}
        onChange={(steps) => onChange({ ...capture, steps })}
        path="capture.steps"
        errors={errors}
        disabled={disabled}
        providers={providers}
      />
    </Stack>
  );
}

function StepList(props: {
  steps: Loose[];
  onChange: (steps: Loose[]) => void;
  path: string;
  errors: Record<string, string>;
  disabled: boolean;
  providers: { value: string; label: string }[];
  depth?: number;
}) {
  const { steps, onChange, path, disabled } = props;
  const [adding, setAdding] = useState<string | null>("navigate");
  const move = (from: number, to: number) => {
    const next = [...steps];
    const [step] = next.splice(from, 1);
    next.splice(to, 0, step);
    onChange(next);
  };
  return (
    <Stack gap="sm">
      {steps.map((step, index) => (
        <StepCard
          // Server step ids are stable; new steps have none yet and are keyed by place.
          key={step.id ?? `new-${index}`}
          step={step}
          index={index}
          count={steps.length}
          path={`${path}.${index}`}
          errors={props.errors}
          disabled={disabled}
          providers={props.providers}
          depth={props.depth ?? 0}
          onChange={(s) => onChange(steps.map((old, i) => (i === index ? s : old)))}
          onRemove={() => onChange(steps.filter((_, i) => i !== index))}
          onMove={(to) => move(index, to)}
        />
      ))}
      {!disabled && (
        <Group gap="xs" align="flex-end">
          <Select
            label={props.depth ? "Add a step here" : "Add a step"}
            data={TYPE_OPTIONS}
            value={adding}
            onChange={setAdding}
            searchable
            w={260}
          />
          <Button variant="light" disabled={!adding} onClick={() => adding && onChange([...steps, newStep(adding)])}>
            Add
          </Button>
        </Group>
      )}
    </Stack>
  );
}

function StepCard(props: {
  step: Loose;
  index: number;
  count: number;
  path: string;
  errors: Record<string, string>;
  disabled: boolean;
  providers: { value: string; label: string }[];
  depth: number;
  onChange: (step: Loose) => void;
  onRemove: () => void;
  onMove: (to: number) => void;
}) {
  const { step, index, path, disabled } = props;
  const spec = STEP_TYPES[step.type];
  const fields = (spec?.fields ?? []).map((f) =>
    f.name === "providerId" && step.type === "ai" ? { ...f, options: props.providers } : f,
  );
  const hasError = Object.keys(props.errors).some((k) => k === path || k.startsWith(`${path}.`));
  const name = `Step ${index + 1}`;
  return (
    <Card
      component="section"
      withBorder
      padding="sm"
      aria-label={`${name}: ${spec?.label ?? step.type}`}
      data-step={index}
    >
      <Stack gap="xs">
        <Group justify="space-between" wrap="nowrap">
          <Group gap="xs">
            <Badge variant="light" color={hasError ? "red" : "blue"}>
              {index + 1}
            </Badge>
            <Text fw={500} size="sm">
              {spec?.label ?? step.type}
            </Text>
            <Text size="xs" c="dimmed">
              {step.type}
            </Text>
          </Group>
          {!disabled && (
            <Group gap={2} wrap="nowrap">
              <ActionIcon
                variant="subtle"
                aria-label={`Move ${name} up`}
                disabled={index === 0}
                onClick={() => props.onMove(index - 1)}
              >
                ↑
              </ActionIcon>
              <ActionIcon
                variant="subtle"
                aria-label={`Move ${name} down`}
                disabled={index === props.count - 1}
                onClick={() => props.onMove(index + 1)}
              >
                ↓
              </ActionIcon>
              <ActionIcon variant="subtle" color="red" aria-label={`Remove ${name}`} onClick={props.onRemove}>
                ✕
              </ActionIcon>
            </Group>
          )}
        </Group>
        {props.errors[path] && (
          <Text c="red" size="sm">
            {props.errors[path]}
          </Text>
        )}
        <SimpleGrid cols={{ base: 1, md: 2 }}>
          <ObjectFields
            fields={fields}
            value={step}
            onChange={props.onChange}
            errors={props.errors}
            path={path}
            disabled={disabled}
          />
          <TextInput
            label="Label (optional)"
            value={step.label ?? ""}
            disabled={disabled}
            error={props.errors[`${path}.label`]}
            onChange={(e) => {
              const next: Loose = { ...step, label: e.currentTarget.value };
              if (!next.label) delete next.label;
              props.onChange(next);
            }}
          />
        </SimpleGrid>
        {step.type === "if" && (
          <Stack gap="xs" pl={{ base: "xs", sm: "md" }} style={{ borderLeft: "2px solid var(--mantine-color-blue-3)" }}>
            <Text size="sm" fw={500}>
              Then
            </Text>
            <StepList
              steps={step.then ?? []}
              onChange={(then) => props.onChange({ ...step, then })}
              path={`${path}.then`}
              errors={props.errors}
              disabled={disabled}
              providers={props.providers}
              depth={props.depth + 1}
            />
            <Text size="sm" fw={500}>
              Else
            </Text>
            <StepList
              steps={step.else ?? []}
              onChange={(otherwise) => {
                const next: Loose = { ...step, else: otherwise };
                if (otherwise.length === 0) delete next.else;
                props.onChange(next);
              }}
              path={`${path}.else`}
              errors={props.errors}
              disabled={disabled}
              providers={props.providers}
              depth={props.depth + 1}
            />
          </Stack>
        )}
      </Stack>
    </Card>
  );
}
