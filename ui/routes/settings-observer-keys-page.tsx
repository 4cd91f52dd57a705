import { Alert, Button, Code, CopyButton, Group, Modal, Stack, Table, Text, TextInput, Title } from "@mantine/core";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import type { ObserverKey, ObserverKeyCreated } from "../../src/schemas/observer-key.js";
import { ApiError, del, get, issuesByField, post } from "../api/client";
import type { Items } from "../api/types";
import { ConfirmModal } from "../components/confirm-modal";
import { ErrorAlert } from "../components/error-alert";
import { dateTime, relativeTime } from "../components/format";
import { PageLoader } from "../components/page-loader";

const OBSERVER_KEYS = ["admin-observer-keys"];

/**
 * Observer keys: read-only credentials for monitors and Prometheus (the full health listing and
 * /metrics, sent as `Authorization: Bearer …`). A key is shown once, when it is made.
 */
export default function SettingsObserverKeysPage() {
  const keys = useQuery({
    queryKey: OBSERVER_KEYS,
    queryFn: () => get<Items<ObserverKey>>("/ui-api/admin/observer-keys").then((a) => a.items),
  });
  const [creating, setCreating] = useState(false);
  // The new key stays in memory only while its dialog is shown (cleared when it has closed).
  const [created, setCreated] = useState<ObserverKeyCreated | null>(null);
  const [showingKey, setShowingKey] = useState(false);
  const [revoking, setRevoking] = useState<ObserverKey | null>(null);
  const queryClient = useQueryClient();
  const revoke = useMutation({
    mutationFn: (id: string) => del(`/ui-api/admin/observer-keys/${id}`),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: OBSERVER_KEYS });
      setRevoking(null);
    },
  });
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">
          Observer keys
        </Title>
        <Button onClick={() => setCreating(true)}>New key</Button>
      </Group>
      <Text size="sm" c="dimmed">
        A key lets a monitor read the full health listing (<Code>/guest/api/health</Code>) and the Prometheus metrics (
        <Code>/metrics</Code>), sent as <Code>Authorization: Bearer …</Code>. It opens nothing else.
      </Text>
      <ErrorAlert error={keys.error} />
      {keys.isPending ? (
        <PageLoader />
      ) : keys.data?.length === 0 ? (
        <Text size="sm">No observer keys yet.</Text>
      ) : (
        <Table.ScrollContainer minWidth={480}>
          <Table verticalSpacing="xs" aria-label="Observer keys">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Created</Table.Th>
                <Table.Th>Last used</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {keys.data?.map((key) => (
                <Table.Tr key={key.id}>
                  <Table.Td fw={500}>{key.name}</Table.Td>
                  <Table.Td>{dateTime(key.createdAt)}</Table.Td>
                  <Table.Td title={key.lastUsedAt ? dateTime(key.lastUsedAt) : undefined}>
                    {key.lastUsedAt ? relativeTime(key.lastUsedAt) : "never"}
                  </Table.Td>
                  <Table.Td>
                    <Group justify="flex-end" wrap="nowrap">
                      <Button
                        size="compact-sm"
                        variant="subtle"
                        color="red"
                        onClick={() => setRevoking(key)}
                        aria-label={`Revoke ${key.name}`}
                      >
                        Revoke
                      </Button>
                    </Group>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <Modal opened={creating} onClose={() => setCreating(false)} title="New observer key">
        {creating && (
          <KeyForm
            onCancel={() => setCreating(false)}
            onCreated={(answer) => {
              setCreating(false);
              setCreated(answer);
              setShowingKey(true);
            }}
          />
        )}
      </Modal>
      <Modal
        opened={showingKey}
        onClose={() => setShowingKey(false)}
        onExitTransitionEnd={() => setCreated(null)}
        title={`Key “${created?.name ?? ""}” created`}
        closeOnClickOutside={false}
      >
        {created && <ShownOnce created={created} onDone={() => setShowingKey(false)} />}
      </Modal>
      <ConfirmModal
        opened={revoking !== null}
        title="Revoke the key?"
        confirmLabel="Revoke"
        onClose={() => {
          revoke.reset();
          setRevoking(null);
        }}
        onConfirm={() => revoking && revoke.mutate(revoking.id)}
        pending={revoke.isPending}
        error={revoke.error}
      >
        Monitors that use “{revoking?.name}” are refused (401) from now on. This cannot be undone.
      </ConfirmModal>
    </Stack>
  );
}

function KeyForm({ onCancel, onCreated }: { onCancel: () => void; onCreated: (created: ObserverKeyCreated) => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const create = useMutation({
    mutationFn: () => post<ObserverKeyCreated>("/ui-api/admin/observer-keys", { name: name.trim() }),
    onSuccess: async (answer) => {
      await queryClient.invalidateQueries({ queryKey: OBSERVER_KEYS });
      onCreated(answer);
    },
  });
  const errors = issuesByField(create.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput
          label="Name"
          description="Who uses it, such as “Prometheus” or “Uptime monitor”."
          required
          maxLength={100}
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={errors.name}
          data-autofocus
        />
        {create.error && !(create.error instanceof ApiError && create.error.status === 400) ? (
          <ErrorAlert error={create.error} />
        ) : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>
            Cancel
          </Button>
          <Button type="submit" loading={create.isPending}>
            Create
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function ShownOnce({ created, onDone }: { created: ObserverKeyCreated; onDone: () => void }) {
  return (
    <Stack>
      <Alert color="yellow" title="Copy the key now">
        It is shown this once: Pagewright keeps only a hash of it. If it is lost, revoke it and make a new one.
      </Alert>
      <TextInput
        label="Key"
        value={created.key}
        readOnly
        onFocus={(e) => e.currentTarget.select()}
        styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
      />
      <Text size="sm">
        Send it as <Code>Authorization: Bearer {"<key>"}</Code>, never in a URL.
      </Text>
      <Group justify="flex-end">
        <CopyButton value={created.key}>
          {({ copied, copy }) => (
            <Button variant={copied ? "light" : "filled"} color={copied ? "teal" : undefined} onClick={copy}>
              {copied ? "Copied" : "Copy key"}
            </Button>
          )}
        </CopyButton>
        <Button variant="default" onClick={onDone}>
          Done
        </Button>
      </Group>
    </Stack>
  );
}
