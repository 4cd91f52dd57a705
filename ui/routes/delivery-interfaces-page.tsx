import {
  Alert,
  Badge,
  Button,
  Group,
  Modal,
  Select,
  Stack,
  Table,
  TagsInput,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { ApiError, del, describeError, issuesByField, post, put } from "../api/client";
import { keys, useInterfaces } from "../api/queries";
import type { DeliveryInterface, DeliveryType } from "../api/types";
import { ConfirmModal } from "../components/confirm-modal";
import { ErrorAlert } from "../components/error-alert";
import { PageLoader } from "../components/page-loader";
import { useSpace } from "../components/space-layout";
import { type FieldSpec, type FormValues, initialValues, SpecFields, valuesToBody } from "../components/spec-form";
import { StateBadge } from "../components/state-badge";

/** The settings of each type (DESIGN.md, UI API); secret fields are write-only. */
const TYPES: Record<DeliveryType, { label: string; fields: FieldSpec[] }> = {
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

const describeConfig = (item: DeliveryInterface) => {
  const c = item.config as Record<string, unknown>;
  return String(c.host ?? c.bucket ?? c.domain ?? c.from ?? "");
};

export default function DeliveryInterfacesPage() {
  const space = useSpace();
  const interfaces = useInterfaces(space.id);
  const [editing, setEditing] = useState<DeliveryInterface | "new" | null>(null);
  const [deleting, setDeleting] = useState<DeliveryInterface | null>(null);
  const [testing, setTesting] = useState<DeliveryInterface | null>(null);

  if (!space.isAdmin) {
    return <Alert color="yellow">Delivery interfaces are set up by the admins of the space.</Alert>;
  }
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">
          Delivery interfaces
        </Title>
        <Button onClick={() => setEditing("new")}>New interface</Button>
      </Group>
      <ErrorAlert error={interfaces.error} />
      {interfaces.isPending ? (
        <PageLoader />
      ) : interfaces.data?.length === 0 ? (
        <Text c="dimmed">No delivery interface yet: jobs need one to send their reports.</Text>
      ) : (
        <Table.ScrollContainer minWidth={560}>
          <Table verticalSpacing="xs" aria-label="Delivery interfaces">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Type</Table.Th>
                <Table.Th>Destination</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {interfaces.data?.map((item) => (
                <Table.Tr key={item.id} data-interface={item.name}>
                  <Table.Td fw={500}>{item.name}</Table.Td>
                  <Table.Td>
                    <Badge variant="light">{TYPES[item.type]?.label ?? item.type}</Badge>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{describeConfig(item)}</Text>
                  </Table.Td>
                  <Table.Td>
                    <Group gap={4} justify="flex-end" wrap="nowrap">
                      <Button size="compact-sm" variant="light" onClick={() => setTesting(item)}>
                        Test
                      </Button>
                      <Button size="compact-sm" variant="default" onClick={() => setEditing(item)}>
                        Edit
                      </Button>
                      <Button size="compact-sm" variant="subtle" color="red" onClick={() => setDeleting(item)}>
                        Delete
                      </Button>
                    </Group>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <Modal
        opened={editing !== null}
        onClose={() => setEditing(null)}
        title={editing === "new" ? "New delivery interface" : "Edit delivery interface"}
        size="lg"
      >
        {editing !== null && (
          <InterfaceForm
            key={editing === "new" ? "new" : editing.id}
            existing={editing === "new" ? undefined : editing}
            onDone={() => setEditing(null)}
          />
        )}
      </Modal>
      <DeleteInterface item={deleting} onClose={() => setDeleting(null)} />
      <Modal opened={testing !== null} onClose={() => setTesting(null)} title={`Test “${testing?.name ?? ""}”`}>
        {testing && <TestInterface key={testing.id} item={testing} />}
      </Modal>
    </Stack>
  );
}

function InterfaceForm({ existing, onDone }: { existing?: DeliveryInterface; onDone: () => void }) {
  const space = useSpace();
  const queryClient = useQueryClient();
  const [type, setType] = useState<DeliveryType>(existing?.type ?? "webhook");
  const [name, setName] = useState(existing?.name ?? "");
  const [values, setValues] = useState<FormValues>(() =>
    initialValues(TYPES[type].fields, existing?.config as Record<string, unknown>),
  );
  const fields = TYPES[type].fields;
  const save = useMutation({
    mutationFn: () => {
      const body = { name: name.trim(), type, config: valuesToBody(fields, values) };
      const path = `/ui-api/spaces/${encodeURIComponent(space.id)}/delivery-interfaces`;
      return existing ? put(`${path}/${existing.id}`, body) : post(path, body);
    },
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: keys.interfaces(space.id) });
      onDone();
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
          data={Object.entries(TYPES).map(([value, t]) => ({ value, label: t.label }))}
          value={type}
          allowDeselect={false}
          onChange={(v) => {
            if (!v) return;
            setType(v as DeliveryType);
            setValues(initialValues(TYPES[v as DeliveryType].fields));
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
          <Button variant="default" onClick={onDone}>
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

function DeleteInterface({ item, onClose }: { item: DeliveryInterface | null; onClose: () => void }) {
  const space = useSpace();
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: (id: string) => del(`/ui-api/spaces/${encodeURIComponent(space.id)}/delivery-interfaces/${id}`),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: keys.interfaces(space.id) });
      onClose();
    },
  });
  return (
    <ConfirmModal
      opened={item !== null}
      title="Delete the interface?"
      confirmLabel="Delete"
      onClose={() => {
        remove.reset();
        onClose();
      }}
      onConfirm={() => item && remove.mutate(item.id)}
      pending={remove.isPending}
      error={remove.error}
    >
      “{item?.name}” will be deleted with its secrets. Jobs that deliver through it must be changed first.
    </ConfirmModal>
  );
}

type TestAnswer = {
  ok: boolean;
  outcomes: { state: string; target: string | null; status: number | null; error: string | null }[];
};

function TestInterface({ item }: { item: DeliveryInterface }) {
  const space = useSpace();
  const email = item.type === "smtp" || item.type === "mailgun";
  const [recipients, setRecipients] = useState<string[]>([]);
  const test = useMutation({
    mutationFn: () =>
      post<TestAnswer>(
        `/ui-api/spaces/${encodeURIComponent(space.id)}/delivery-interfaces/${item.id}/test`,
        email && recipients.length ? { recipients } : {},
      ),
  });
  return (
    <Stack>
      <Text size="sm">Sends a short test message through this interface.</Text>
      {email && (
        <TagsInput
          label="Recipients"
          description="Empty: your account's e-mail address."
          value={recipients}
          onChange={setRecipients}
          error={issuesByField(test.error).recipients}
        />
      )}
      <Button onClick={() => test.mutate()} loading={test.isPending} w="fit-content">
        Send a test
      </Button>
      {test.error && !issuesByField(test.error).recipients ? (
        <Alert color="red" role="alert">
          {describeError(test.error)}
        </Alert>
      ) : null}
      {test.data && (
        <Alert color={test.data.ok ? "green" : "red"} role="status" title={test.data.ok ? "Sent" : "Not sent"}>
          {test.data.outcomes.map((o, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: outcomes are a fixed list in the answer's order
            <Group key={i} gap="xs">
              <StateBadge state={o.state} />
              <Text size="sm">
                {o.target ?? ""} {o.status ? `(${o.status})` : ""} {o.error ?? ""}
              </Text>
            </Group>
          ))}
        </Alert>
      )}
    </Stack>
  );
}
