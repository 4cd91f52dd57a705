import {
  ActionIcon,
  Button,
  Group,
  NumberInput,
  PasswordInput,
  Select,
  Stack,
  Switch,
  Text,
  Textarea,
  TextInput,
} from "@mantine/core";

/**
 * Forms described as data: the delivery interface types and the AI provider form list their
 * fields once, and this renders them, writes values back and shows the server's issue for each
 * field (by its path, e.g. "config.url").
 *
 * Secret fields are write-only: the form starts them empty; on an edit, empty means "keep the
 * stored value", which the placeholder says.
 */
export type FieldSpec = {
  name: string;
  label: string;
  kind: "text" | "secret" | "number" | "select" | "textarea" | "switch" | "headers";
  options?: string[];
  required?: boolean;
  description?: string;
  placeholder?: string;
  initial?: unknown;
};

export type HeaderRow = { name: string; value: string };
export type FormValues = Record<string, unknown>;

/** Starting values: the stored (non-secret) ones, else each field's initial value. */
export function initialValues(fields: FieldSpec[], stored: Record<string, unknown> = {}): FormValues {
  const values: FormValues = {};
  for (const field of fields) {
    if (field.kind === "secret") values[field.name] = "";
    else if (field.kind === "headers") values[field.name] = [] as HeaderRow[];
    else values[field.name] = stored[field.name] ?? field.initial ?? (field.kind === "switch" ? false : "");
  }
  return values;
}

/**
 * The body part of the values: empty optional fields and empty secrets are left out (on an edit
 * the server keeps a secret that is left out), numbers are numbers, header rows an object.
 */
export function valuesToBody(fields: FieldSpec[], values: FormValues): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const field of fields) {
    const value = values[field.name];
    if (field.kind === "headers") {
      const rows = (value as HeaderRow[]).filter((row) => row.name.trim());
      if (rows.length) body[field.name] = Object.fromEntries(rows.map((row) => [row.name.trim(), row.value]));
    } else if (field.kind === "switch") {
      body[field.name] = value === true;
    } else if (field.kind === "number") {
      if (value !== "" && value !== undefined) body[field.name] = Number(value);
    } else if (typeof value === "string" && value !== "") {
      body[field.name] = value;
    }
  }
  return body;
}

export function SpecFields(props: {
  fields: FieldSpec[];
  values: FormValues;
  onChange: (name: string, value: unknown) => void;
  /** Issues keyed by dotted path; `prefix` is prepended to the field names ("config."). */
  errors: Record<string, string>;
  prefix?: string;
  /** Which secrets are stored (edit): their empty fields keep the stored value. */
  secretsSet?: Record<string, boolean>;
  /** Header names stored on a webhook (their values are secret). */
  storedHeaderNames?: string[];
}) {
  const { fields, values, onChange, errors, prefix = "" } = props;
  return (
    <>
      {fields.map((field) => {
        const error = errors[prefix + field.name];
        const common = {
          label: field.label,
          description: field.description,
          error,
          required: field.required && !(field.kind === "secret" && props.secretsSet?.[field.name]),
        };
        const value = values[field.name];
        switch (field.kind) {
          case "secret":
            return (
              <PasswordInput
                key={field.name}
                {...common}
                autoComplete="off"
                placeholder={props.secretsSet?.[field.name] ? "Stored; leave empty to keep it" : field.placeholder}
                value={value as string}
                onChange={(e) => onChange(field.name, e.currentTarget.value)}
              />
            );
          case "number":
            return (
              <NumberInput
                key={field.name}
                {...common}
                value={value as number | string}
                onChange={(v) => onChange(field.name, v)}
                allowDecimal={false}
              />
            );
          case "select":
            return (
              <Select
                key={field.name}
                {...common}
                data={field.options ?? []}
                value={(value as string) || null}
                allowDeselect={false}
                onChange={(v) => onChange(field.name, v ?? "")}
              />
            );
          case "textarea":
            return (
              <Textarea
                key={field.name}
                {...common}
                autosize
                minRows={2}
                maxRows={8}
                value={value as string}
                onChange={(e) => onChange(field.name, e.currentTarget.value)}
                styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
              />
            );
          case "switch":
            return (
              <Switch
                key={field.name}
                label={field.label}
                description={field.description}
                error={error}
                checked={value === true}
                onChange={(e) => onChange(field.name, e.currentTarget.checked)}
              />
            );
          case "headers":
            return (
              <HeadersField
                key={field.name}
                label={field.label}
                rows={value as HeaderRow[]}
                onChange={(rows) => onChange(field.name, rows)}
                error={error ?? Object.entries(errors).find(([k]) => k.startsWith(`${prefix}${field.name}.`))?.[1]}
                storedNames={props.storedHeaderNames}
              />
            );
          default:
            return (
              <TextInput
                key={field.name}
                {...common}
                placeholder={field.placeholder}
                value={value as string}
                onChange={(e) => onChange(field.name, e.currentTarget.value)}
              />
            );
        }
      })}
    </>
  );
}

function HeadersField(props: {
  label: string;
  rows: HeaderRow[];
  onChange: (rows: HeaderRow[]) => void;
  error?: string;
  storedNames?: string[];
}) {
  const { rows, onChange } = props;
  const set = (index: number, row: HeaderRow) => onChange(rows.map((r, i) => (i === index ? row : r)));
  return (
    <Stack gap={6} role="group" aria-label={props.label}>
      <Text size="sm" fw={500}>
        {props.label}
      </Text>
      {props.storedNames && props.storedNames.length > 0 && (
        <Text size="xs" c="dimmed">
          Stored: {props.storedNames.join(", ")}. Their values are write-only: leave the list empty to keep them, or
          enter every header again to replace them.
        </Text>
      )}
      {rows.map((row, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity but their place
        <Group key={index} gap="xs" wrap="nowrap" align="flex-start">
          <TextInput
            aria-label={`Header ${index + 1} name`}
            placeholder="Authorization"
            value={row.name}
            onChange={(e) => set(index, { ...row, name: e.currentTarget.value })}
            style={{ flex: 1 }}
          />
          <PasswordInput
            aria-label={`Header ${index + 1} value`}
            placeholder="value"
            autoComplete="off"
            value={row.value}
            onChange={(e) => set(index, { ...row, value: e.currentTarget.value })}
            style={{ flex: 2 }}
          />
          <ActionIcon
            variant="subtle"
            color="red"
            aria-label={`Remove header ${index + 1}`}
            onClick={() => onChange(rows.filter((_, i) => i !== index))}
            mt={4}
          >
            ✕
          </ActionIcon>
        </Group>
      ))}
      {props.error && (
        <Text size="xs" c="red">
          {props.error}
        </Text>
      )}
      <Button
        variant="subtle"
        size="compact-sm"
        w="fit-content"
        onClick={() => onChange([...rows, { name: "", value: "" }])}
      >
        Add a header
      </Button>
    </Stack>
  );
}
