import { MultiSelect, NumberInput, PasswordInput, Select, Switch, TagsInput, Textarea, TextInput } from "@mantine/core";

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

export function ObjectFields(props: {
  fields: ObjectField[];
  value: Loose;
  onChange: (value: Loose) => void;
  errors: Record<string, string>;
  path: string;
  disabled?: boolean;
}) {
  const { value, onChange, errors, path, disabled } = props;
  return (
    <>
      {props.fields.map((field) => {
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
      })}
    </>
  );
}
