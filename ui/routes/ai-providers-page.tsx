import { Alert, Button, Group, Modal, Stack, Table, Text, Title } from "@mantine/core";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { ApiError, del, issuesByField, post, put } from "../api/client";
import { keys, useProviders } from "../api/queries";
import type { AiProvider } from "../api/types";
import { ConfirmModal } from "../components/confirm-modal";
import { ErrorAlert } from "../components/error-alert";
import { duration } from "../components/format";
import { PageLoader } from "../components/page-loader";
import { useSpace } from "../components/space-layout";
import { type FieldSpec, type FormValues, initialValues, SpecFields, valuesToBody } from "../components/spec-form";

const FIELDS: FieldSpec[] = [
  { name: "name", label: "Name", kind: "text", required: true },
  { name: "vendor", label: "Vendor", kind: "select", options: ["openai", "openai-compatible"], initial: "openai" },
  {
    name: "endpoint",
    label: "Endpoint",
    kind: "text",
    description: "Base URL of an OpenAI-compatible API (…/v1); needed for openai-compatible.",
  },
  { name: "model", label: "Model", kind: "text", required: true, placeholder: "gpt-4o-mini" },
  { name: "apiKey", label: "API key", kind: "secret", required: true },
];

export default function AiProvidersPage() {
  const space = useSpace();
  const providers = useProviders(space.id);
  const [editing, setEditing] = useState<AiProvider | "new" | null>(null);
  const [deleting, setDeleting] = useState<AiProvider | null>(null);
  const [testing, setTesting] = useState<AiProvider | null>(null);
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: (id: string) => del(`/ui-api/spaces/${encodeURIComponent(space.id)}/ai-providers/${id}`),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: keys.providers(space.id) });
      setDeleting(null);
    },
  });

  if (!space.isAdmin) return <Alert color="yellow">AI providers are set up by the admins of the space.</Alert>;
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">
          AI providers
        </Title>
        <Button onClick={() => setEditing("new")}>New provider</Button>
      </Group>
      <ErrorAlert error={providers.error} />
      {providers.isPending ? (
        <PageLoader />
      ) : providers.data?.length === 0 ? (
        <Text c="dimmed">No AI provider yet: ai steps of jobs need one.</Text>
      ) : (
        <Table.ScrollContainer minWidth={520}>
          <Table verticalSpacing="xs" aria-label="AI providers">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Vendor</Table.Th>
                <Table.Th>Model</Table.Th>
                <Table.Th>API key</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {providers.data?.map((p) => (
                <Table.Tr key={p.id}>
                  <Table.Td fw={500}>{p.name}</Table.Td>
                  <Table.Td>
                    {p.vendor}
                    {p.endpoint && (
                      <Text size="xs" c="dimmed">
                        {p.endpoint}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>{p.model}</Table.Td>
                  <Table.Td>{p.apiKeySet ? "set" : "missing"}</Table.Td>
                  <Table.Td>
                    <Group gap={4} justify="flex-end" wrap="nowrap">
                      <Button size="compact-sm" variant="light" onClick={() => setTesting(p)}>
                        Test
                      </Button>
                      <Button size="compact-sm" variant="default" onClick={() => setEditing(p)}>
                        Edit
                      </Button>
                      <Button size="compact-sm" variant="subtle" color="red" onClick={() => setDeleting(p)}>
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
        title={editing === "new" ? "New AI provider" : "Edit AI provider"}
      >
        {editing !== null && (
          <ProviderForm
            key={editing === "new" ? "new" : editing.id}
            existing={editing === "new" ? undefined : editing}
            onDone={() => setEditing(null)}
          />
        )}
      </Modal>
      <Modal opened={testing !== null} onClose={() => setTesting(null)} title={`Test “${testing?.name ?? ""}”`}>
        {testing && <TestProvider key={testing.id} provider={testing} />}
      </Modal>
      <ConfirmModal
        opened={deleting !== null}
        title="Delete the AI provider?"
        confirmLabel="Delete"
        onClose={() => {
          remove.reset();
          setDeleting(null);
        }}
        onConfirm={() => deleting && remove.mutate(deleting.id)}
        pending={remove.isPending}
        error={remove.error}
      >
        “{deleting?.name}” and its API key will be deleted. Jobs whose ai steps use it must be changed first.
      </ConfirmModal>
    </Stack>
  );
}

function ProviderForm({ existing, onDone }: { existing?: AiProvider; onDone: () => void }) {
  const space = useSpace();
  const queryClient = useQueryClient();
  const [values, setValues] = useState<FormValues>(() =>
    initialValues(FIELDS, existing ? { ...existing, endpoint: existing.endpoint ?? "" } : {}),
  );
  const save = useMutation({
    mutationFn: () => {
      const body = valuesToBody(FIELDS, values);
      const path = `/ui-api/spaces/${encodeURIComponent(space.id)}/ai-providers`;
      return existing ? put(`${path}/${existing.id}`, body) : post(path, body);
    },
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: keys.providers(space.id) });
      onDone();
    },
  });
  const errors = issuesByField(save.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <SpecFields
          fields={FIELDS}
          values={values}
          onChange={(field, value) => setValues((v) => ({ ...v, [field]: value }))}
          errors={errors}
          secretsSet={existing ? { apiKey: existing.apiKeySet } : undefined}
        />
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

type TestAnswer = { ok: true; answer: string; ms: number } | { ok: false; error: string; ms: number };

/** Asks the model a one-word question with the stored key, and shows what came back. */
function TestProvider({ provider }: { provider: AiProvider }) {
  const space = useSpace();
  const test = useMutation({
    mutationFn: () =>
      post<TestAnswer>(`/ui-api/spaces/${encodeURIComponent(space.id)}/ai-providers/${provider.id}/test`),
  });
  return (
    <Stack>
      <Text size="sm">
        Asks {provider.model} a one-word question with the stored API key. The call may cost a few tokens.
      </Text>
      <Button onClick={() => test.mutate()} loading={test.isPending} w="fit-content">
        Ask the model
      </Button>
      <ErrorAlert error={test.error} />
      {test.data && (
        <Alert
          color={test.data.ok ? "green" : "red"}
          role="status"
          title={test.data.ok ? `Answered in ${duration(test.data.ms)}` : "No answer"}
        >
          {test.data.ok ? `“${test.data.answer}”` : test.data.error}
        </Alert>
      )}
    </Stack>
  );
}
