import { Alert, Badge, Button, Group, Modal, Stack, Table, TagsInput, Text, Title } from "@mantine/core";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { del, describeError, issuesByField, post } from "../api/client";
import { keys, useInterfaces } from "../api/queries";
import type { DeliveryInterface } from "../api/types";
import { ConfirmModal } from "../components/confirm-modal";
import { ErrorAlert } from "../components/error-alert";
import { describeConfig, InterfaceForm, INTERFACE_TYPES as TYPES } from "../components/interface-form";
import { PageLoader } from "../components/page-loader";
import { useSpace } from "../components/space-layout";
import { StateBadge } from "../components/state-badge";

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
