import {
  Button,
  Group,
  MultiSelect,
  NumberInput,
  PasswordInput,
  Select,
  Stack,
  Switch,
  TagsInput,
  Text,
  Textarea,
  TextInput,
} from "@mantine/core";
import type { ReactElement } from "react";

/**
 * Fields of one object of a job body (a step, a delivery binding), described as data. Each field
 * writes straight into the object; an optional field left empty is removed, so the server's
 * default applies. `path` is the object's place in the body, to find the server's issue of each
 * field ("capture.steps.2.selector").
 */
export type ObjectField = {
  name: string;
  label: string;
  kind: "text" | "textarea" | "number" | "select" | "switch" | "tags" | "multiselect" | "secret";
  options?: { value: string; label: string }[] | string[];
  required?: boolean;
  description?: string;
  placeholder?: string;
  /** Monospace: selectors, templates, expressions. */
  code?: boolean;
  /** Takes `{{ variable }}` (a TemplateString of the schema): the offered names insert as `{{ name }}`. */
  template?: boolean;
  /** An expression (variables by bare name): the offered names insert as they are. */
  expression?: boolean;
};

// biome-ignore lint/suspicious/noExplicitAny: the objects are parts of a job body the server validates
export type Loose = Record<string, any>;

export function setField(object: Loose, name: string, value: unknown): Loose {
  const next = { ...object };
  if (value === "" || value === undefined || value === null || (Array.isArray(value) && value.length === 0)) {
    delete next[name];
  } else next[name] = value;
  return next;
}

type Props = {
  fields: ObjectField[];
  value: Loose;
  onChange: (value: Loose) => void;
  errors: Record<string, string>;
  path: string;
  disabled?: boolean;
  /** Variable names usable at this place, offered under the template and expression fields. */
  names?: string[];
};

export function ObjectFields(props: Props) {
  const { value, onChange, disabled } = props;
  const names = props.names ?? [];
  return (
    <>
      {props.fields.map((field) => {
        const input = fieldInput(field, props);
        if (disabled || names.length === 0 || !(field.template || field.expression)) return input;
        const current = typeof value[field.name] === "string" ? value[field.name] : "";
        return (
          <Stack key={field.name} gap={4}>
            {input}
            <NameChips
              names={names}
              expression={!field.template}
              onInsert={(text) => onChange(setField(value, field.name, appendName(current, text, !field.template)))}
            />
          </Stack>
        );
      })}
    </>
  );
}

function fieldInput(field: ObjectField, props: Props): ReactElement {
  const { value, onChange, errors, path, disabled } = props;
  const current = value[field.name];
  const common = {
    label: field.label,
    description: field.description,
    placeholder: field.placeholder,
    required: field.required,
    error: errors[`${path}.${field.name}`],
    disabled,
  };
  const set = (v: unknown) => onChange(setField(value, field.name, v));
  const mono = field.code ? { styles: { input: { fontFamily: "var(--mantine-font-family-monospace)" } } } : {};
  switch (field.kind) {
    case "textarea":
      return (
        <Textarea
          key={field.name}
          {...common}
          {...mono}
          autosize
          minRows={2}
          maxRows={10}
          value={current ?? ""}
          onChange={(e) => set(e.currentTarget.value)}
        />
      );
    case "number":
      return (
        <NumberInput
          key={field.name}
          {...common}
          value={current ?? ""}
          onChange={(v) => set(v === "" ? undefined : Number(v))}
          allowDecimal={false}
          min={0}
        />
      );
    case "select":
      return (
        <Select
          key={field.name}
          {...common}
          data={field.options ?? []}
          value={current ?? null}
          clearable={!field.required}
          onChange={(v) => set(v ?? undefined)}
        />
      );
    case "switch":
      return (
        <Switch
          key={field.name}
          label={field.label}
          description={field.description}
          error={common.error}
          disabled={disabled}
          checked={current === true}
          onChange={(e) => set(e.currentTarget.checked ? true : undefined)}
        />
      );
    case "tags":
      return (
        <TagsInput
          key={field.name}
          {...common}
          value={Array.isArray(current) ? current : []}
          onChange={(v) => set(v)}
        />
      );
    case "multiselect":
      return (
        <MultiSelect
          key={field.name}
          {...common}
          data={field.options ?? []}
          value={Array.isArray(current) ? current : []}
          onChange={(v) => set(v)}
        />
      );
    case "secret":
      return (
        <PasswordInput
          key={field.name}
          {...common}
          autoComplete="off"
          value={current ?? ""}
          onChange={(e) => set(e.currentTarget.value)}
        />
      );
    default:
      return (
        <TextInput
          key={field.name}
          {...common}
          {...mono}
          value={current ?? ""}
          onChange={(e) => set(e.currentTarget.value)}
        />
      );
  }
}

/** Appends a name: `{{ name }}` to a template as it is, a bare name to an expression after a space. */
function appendName(current: string, text: string, expression: boolean): string {
  if (!expression || current === "" || /[\s(!]$/.test(current)) return current + text;
  return `${current} ${text}`;
}

/** The names stored before a step, as buttons that insert them into the field above. */
function NameChips(props: { names: string[]; expression: boolean; onInsert: (text: string) => void }) {
  return (
    <Group gap={4} wrap="wrap">
      <Text size="xs" c="dimmed">
        Insert:
      </Text>
      {props.names.map((name) => {
        const text = props.expression ? name : `{{ ${name} }}`;
        return (
          <Button
            key={name}
            size="compact-xs"
            variant="light"
            radius="xl"
            aria-label={`Insert ${text}`}
            ff="monospace"
            onClick={() => props.onInsert(text)}
          >
            {text}
          </Button>
        );
      })}
    </Group>
  );
}
