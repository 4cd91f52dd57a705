import { Button, Group, Modal, Paper, Select, Stack, Table, Text, TextInput, Title } from "@mantine/core";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { del, get, issuesByField, post, put } from "../api/client";
import type { Access, Context, Items } from "../api/types";
import { ErrorAlert } from "../components/error-alert";
import { PageLoader } from "../components/page-loader";

type Space = { id: string; name: string; createdAt: string };
type Member = { userId: string; username: string; access: Access };
const ACCESS = [
  { value: "ro", label: "read only" },
  { value: "rw", label: "read and write" },
  { value: "admin", label: "admin" },
];

export default function SettingsSpacesPage() {
  const spaces = useQuery({
    queryKey: ["admin-spaces"],
    queryFn: () => get<Items<Space>>("/ui-api/admin/spaces").then((a) => a.items),
  });
  const [selected, setSelected] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const current = selected ?? spaces.data?.[0]?.id ?? null;
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">
          Spaces and members
        </Title>
        <Button onClick={() => setCreating(true)}>New space</Button>
      </Group>
      <ErrorAlert error={spaces.error} />
      {spaces.isPending ? (
        <PageLoader />
      ) : (
        <Select
          label="Space"
          data={(spaces.data ?? []).map((s) => ({ value: s.id, label: `${s.name} (${s.id})` }))}
          value={current}
          allowDeselect={false}
          onChange={setSelected}
          maw={360}
        />
      )}
      {current && <Members space={current} />}
      <Modal opened={creating} onClose={() => setCreating(false)} title="New space">
        {creating && (
          <SpaceForm
            onDone={(id) => {
              setCreating(false);
              if (id) setSelected(id);
            }}
          />
        )}
      </Modal>
    </Stack>
  );
}

function SpaceForm({ onDone }: { onDone: (id?: string) => void }) {
  const queryClient = useQueryClient();
  const [id, setId] = useState("");
  const [name, setName] = useState("");
  const create = useMutation({
    mutationFn: () => post<Space>("/ui-api/admin/spaces", { id: id.trim(), name: name.trim() }),
    onSuccess: async (space) => {
      await queryClient.invalidateQueries({ queryKey: ["admin-spaces"] });
      await queryClient.invalidateQueries({ queryKey: ["context"] });
      onDone(space.id);
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
          required
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={errors.name}
          data-autofocus
        />
        <TextInput
          label="Id"
          required
          description="In addresses and the API: lower-case letters, digits and -."
          value={id}
          onChange={(e) => setId(e.currentTarget.value)}
          error={errors.id}
        />
        {create.error && !errors.id && !errors.name ? <ErrorAlert error={create.error} /> : null}
        <Group justify="flex-end">
          <Button type="submit" loading={create.isPending}>
            Create
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function Members({ space }: { space: string }) {
  const queryClient = useQueryClient();
  const key = ["admin-members", space];
  const members = useQuery({
    queryKey: key,
    queryFn: () => get<Items<Member>>(`/ui-api/admin/spaces/${encodeURIComponent(space)}/members`).then((a) => a.items),
  });
  const users = useQuery({
    queryKey: ["admin-users"],
    queryFn: () => get<Items<Context["user"]>>("/ui-api/admin/users").then((a) => a.items),
  });
  const [adding, setAdding] = useState<string | null>(null);
  const [access, setAccess] = useState<string>("ro");
  const refresh = () => queryClient.invalidateQueries({ queryKey: key });
  const setMember = useMutation({
    mutationFn: (m: { userId: string; access: string }) =>
      put(`/ui-api/admin/spaces/${encodeURIComponent(space)}/members/${m.userId}`, { access: m.access }),
    onSuccess: async () => {
      await refresh();
      setAdding(null);
    },
  });
  const removeMember = useMutation({
    mutationFn: (userId: string) => del(`/ui-api/admin/spaces/${encodeURIComponent(space)}/members/${userId}`),
    onSuccess: refresh,
  });
  const memberIds = new Set((members.data ?? []).map((m) => m.userId));
  const candidates = (users.data ?? []).filter((u) => !memberIds.has(u.id) && u.systemRole !== "system");
  return (
    <Paper withBorder p="md">
      <Stack>
        <Title order={2} size="h4">
          Members
        </Title>
        <Text size="sm" c="dimmed">
          System users have admin access to every space without being members.
        </Text>
        <ErrorAlert error={members.error ?? setMember.error ?? removeMember.error} />
        {members.isPending ? (
          <PageLoader />
        ) : members.data?.length === 0 ? (
          <Text size="sm">No member yet.</Text>
        ) : (
          <Table aria-label="Members" verticalSpacing="xs">
            <Table.Tbody>
              {members.data?.map((m) => (
                <Table.Tr key={m.userId}>
                  <Table.Td fw={500}>{m.username}</Table.Td>
                  <Table.Td>
                    <Select
                      aria-label={`Access of ${m.username}`}
                      data={ACCESS}
                      value={m.access}
                      allowDeselect={false}
                      onChange={(v) => v && setMember.mutate({ userId: m.userId, access: v })}
                      w={180}
                    />
                  </Table.Td>
                  <Table.Td>
                    <Button
                      size="compact-sm"
                      variant="subtle"
                      color="red"
                      onClick={() => removeMember.mutate(m.userId)}
                    >
                      Remove
                    </Button>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
        <Group align="flex-end" gap="xs">
          <Select
            label="Add a user"
            placeholder={candidates.length ? "Choose a user" : "Every user is a member"}
            data={candidates.map((u) => ({ value: u.id, label: u.username }))}
            value={adding}
            onChange={setAdding}
            searchable
            w={220}
          />
          <Select
            label="Access"
            data={ACCESS}
            value={access}
            allowDeselect={false}
            onChange={(v) => setAccess(v ?? "ro")}
            w={180}
          />
          <Button
            disabled={!adding}
            loading={setMember.isPending}
            onClick={() => adding && setMember.mutate({ userId: adding, access })}
          >
            Add
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}
