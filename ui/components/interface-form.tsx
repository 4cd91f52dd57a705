import { Alert, Button, Group, Select, Stack, TextInput } from "@mantine/core";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { ApiError, issuesByField, post, put } from "../api/client";
import { keys } from "../api/queries";
import type { DeliveryInterface, DeliveryType } from "../api/types";
import { ErrorAlert } from "./error-alert";
import { useSpace } from "./space-layout";
import { type FieldSpec, type FormValues, initialValues, SpecFields, valuesToBody } from "./spec-form";

/** The settings of each type (DESIGN.md, UI API); secret fields are write-only. */
export const INTERFACE_TYPES: Record<DeliveryType, { label: string; fields: FieldSpec[] }> = {
  webhook: {
    label: "Webhook",
    fields: [
      { name: "url", label: "URL", kind: "secret", required: true, placeholder: "https://example.com/hook" },
      { name: "method", label: "Method", kind: "select", options: ["POST", "PUT"], initial: "POST" },
      { name: "bodyType", label: "Body type", kind: "select", options: ["json", "form"], initial: "json" },
      {
        name: "bodyTemplate",
        label: "Body template",
        kind: "textarea",
        initial: '{"text": "$MESSAGE"}',
        description: "$MESSAGE is replaced by the job's rendered message.",
      },
      { name: "allowJobBody", label: "Jobs may send their own JSON body", kind: "switch" },
      { name: "headers", label: "Headers", kind: "headers" },
    ],
  },
  slack: {
    label: "Slack",
    fields: [{ name: "webhookUrl", label: "Incoming webhook URL", kind: "secret", required: true }],
  },
  smtp: {
    label: "E-mail (SMTP)",
    fields: [
      { name: "host", label: "Host", kind: "text", required: true },
      { name: "port", label: "Port", kind: "number", initial: 587 },
      {
        name: "security",
        label: "Security",
        kind: "select",
        options: ["starttls", "tls", "none"],
        initial: "starttls",
      },
      { name: "username", label: "User name", kind: "text" },
      { name: "password", label: "Password", kind: "secret" },
      { name: "from", label: "From", kind: "text", required: true, placeholder: "Reports <reports@example.com>" },
    ],
  },
  mailgun: {
    label: "Mailgun",
    fields: [
      { name: "domain", label: "Domain", kind: "text", required: true },
      { name: "region", label: "Region", kind: "select", options: ["us", "eu"], initial: "us" },
      { name: "apiKey", label: "API key", kind: "secret", required: true },
      { name: "from", label: "From", kind: "text", required: true },
      { name: "endpoint", label: "API base URL (optional)", kind: "text" },
    ],
  },
  s3: {
    label: "S3",
    fields: [
      { name: "bucket", label: "Bucket", kind: "text", required: true },
      { name: "region", label: "Region", kind: "text", initial: "us-east-1" },
      { name: "endpoint", label: "Endpoint (S3-compatible stores)", kind: "text" },
      { name: "prefix", label: "Key prefix", kind: "text" },
      { name: "accessKeyId", label: "Access key id", kind: "secret", required: true },
      { name: "secretAccessKey", label: "Secret access key", kind: "secret", required: true },
    ],
  },
};

/** The non-secret place an interface sends to, for lists. */
export const describeConfig = (item: DeliveryInterface) => {
  const c = item.config as Record<string, unknown>;
  return String(c.host ?? c.bucket ?? c.domain ?? c.from ?? "");
};

/**
 * Creates or edits a delivery interface; `onDone` gets the saved interface (undefined on Cancel).
 * Used by the interfaces page and by the job editor's shortcut.
 */
export function InterfaceForm({
  existing,
  onDone,
}: {
  existing?: DeliveryInterface;
  onDone: (saved?: DeliveryInterface) => void;
}) {
  const space = useSpace();
  const queryClient = useQueryClient();
  const [type, setType] = useState<DeliveryType>(existing?.type ?? "webhook");
  const [name, setName] = useState(existing?.name ?? "");
  const [values, setValues] = useState<FormValues>(() =>
    initialValues(INTERFACE_TYPES[type].fields, existing?.config as Record<string, unknown>),
  );
  const fields = INTERFACE_TYPES[type].fields;
  const save = useMutation({
    mutationFn: () => {
      const body = { name: name.trim(), type, config: valuesToBody(fields, values) };
      const path = `/ui-api/spaces/${encodeURIComponent(space.id)}/delivery-interfaces`;
      return existing ? put<DeliveryInterface>(`${path}/${existing.id}`, body) : post<DeliveryInterface>(path, body);
    },
    onSuccess: async (saved) => {
      await queryClient.invalidateQueries({ queryKey: keys.interfaces(space.id) });
      onDone(saved);
    },
  });
  const errors = issuesByField(save.error);
  const fieldNames = new Set(["name", "type", ...fields.map((f) => `config.${f.name}`)]);
  const unplaced =
    save.error instanceof ApiError && save.error.status === 400
      ? save.error.issues.filter(
          (i) => !fieldNames.has(i.path.join(".")) && !i.path.join(".").startsWith("config.headers"),
        )
      : [];

  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };

  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput
          label="Name"
          required
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={errors.name}
          data-autofocus
        />
        <Select
          label="Type"
          data={Object.entries(INTERFACE_TYPES).map(([value, t]) => ({ value, label: t.label }))}
          value={type}
          allowDeselect={false}
          onChange={(v) => {
            if (!v) return;
            setType(v as DeliveryType);
            setValues(initialValues(INTERFACE_TYPES[v as DeliveryType].fields));
          }}
          description={existing && type !== existing.type ? "Changing the type drops the stored secrets." : undefined}
        />
        <SpecFields
          fields={fields}
          values={values}
          onChange={(field, value) => setValues((v) => ({ ...v, [field]: value }))}
          errors={errors}
          prefix="config."
          secretsSet={existing && existing.type === type ? existing.secretsSet : undefined}
          storedHeaderNames={
            existing && existing.type === type
              ? ((existing.config.headerNames as string[] | undefined) ?? [])
              : undefined
          }
        />
        {unplaced.length > 0 && (
          <Alert color="red" role="alert">
            {unplaced.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; ")}
          </Alert>
        )}
        {save.error && !(save.error instanceof ApiError && save.error.status === 400) ? (
          <ErrorAlert error={save.error} />
        ) : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={() => onDone()}>
            Cancel
          </Button>
          <Button type="submit" loading={save.isPending}>
            Save
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
