import {
  Badge,
  Button,
  Group,
  Modal,
  PasswordInput,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { ApiError, del, get, issuesByField, post, put } from "../api/client";
import type { Context, Items } from "../api/types";
import { ConfirmModal } from "../components/confirm-modal";
import { ErrorAlert } from "../components/error-alert";
import { dateTime } from "../components/format";
import { PageLoader } from "../components/page-loader";

type User = Context["user"];
const USERS = ["admin-users"];

export default function SettingsUsersPage() {
  const users = useQuery({
    queryKey: USERS,
    queryFn: () => get<Items<User>>("/ui-api/admin/users").then((a) => a.items),
  });
  const [editing, setEditing] = useState<User | "new" | null>(null);
  const [deleting, setDeleting] = useState<User | null>(null);
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: (id: string) => del(`/ui-api/admin/users/${id}`),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: USERS });
      setDeleting(null);
    },
  });
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">
          Users
        </Title>
        <Button onClick={() => setEditing("new")}>New user</Button>
      </Group>
      <ErrorAlert error={users.error} />
      {users.isPending ? (
        <PageLoader />
      ) : (
        <Table.ScrollContainer minWidth={520}>
          <Table verticalSpacing="xs" aria-label="Users">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>User name</Table.Th>
                <Table.Th>Role</Table.Th>
                <Table.Th>E-mail</Table.Th>
                <Table.Th>Created</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {users.data?.map((user) => (
                <Table.Tr key={user.id}>
                  <Table.Td fw={500}>{user.username}</Table.Td>
                  <Table.Td>
                    {user.systemRole === "system" ? <Badge variant="light">system</Badge> : <Text size="sm">user</Text>}
                  </Table.Td>
                  <Table.Td>{user.email ?? "—"}</Table.Td>
                  <Table.Td>{dateTime(user.createdAt)}</Table.Td>
                  <Table.Td>
                    <Group gap={4} justify="flex-end" wrap="nowrap">
                      <Button size="compact-sm" variant="default" onClick={() => setEditing(user)}>
                        Edit
                      </Button>
                      <Button size="compact-sm" variant="subtle" color="red" onClick={() => setDeleting(user)}>
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
        title={editing === "new" ? "New user" : "Edit user"}
      >
        {editing !== null && (
          <UserForm
            key={editing === "new" ? "new" : editing.id}
            existing={editing === "new" ? undefined : editing}
            onDone={() => setEditing(null)}
          />
        )}
      </Modal>
      <ConfirmModal
        opened={deleting !== null}
        title="Delete the user?"
        confirmLabel="Delete"
        onClose={() => {
          remove.reset();
          setDeleting(null);
        }}
        onConfirm={() => deleting && remove.mutate(deleting.id)}
        pending={remove.isPending}
        error={remove.error}
      >
        “{deleting?.username}” loses every access and is signed out.
      </ConfirmModal>
    </Stack>
  );
}

function UserForm({ existing, onDone }: { existing?: User; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [username, setUsername] = useState(existing?.username ?? "");
  const [password, setPassword] = useState("");
  const [systemRole, setSystemRole] = useState<string>(existing?.systemRole ?? "user");
  const [email, setEmail] = useState(existing?.email ?? "");
  const save = useMutation({
    mutationFn: () => {
      const body: Record<string, unknown> = { username: username.trim(), systemRole, email: email.trim() || null };
      if (password || !existing) body.password = password;
      return existing ? put(`/ui-api/admin/users/${existing.id}`, body) : post("/ui-api/admin/users", body);
    },
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: USERS });
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
        <TextInput
          label="User name"
          required
          value={username}
          onChange={(e) => setUsername(e.currentTarget.value)}
          error={errors.username}
          data-autofocus
        />
        <PasswordInput
          label="Password"
          required={!existing}
          autoComplete="new-password"
          description={
            existing ? "Empty: keeps the password. A new one signs the user out everywhere." : "At least 8 characters."
          }
          value={password}
          onChange={(e) => setPassword(e.currentTarget.value)}
          error={errors.password}
        />
        <Select
          label="Role"
          data={[
            { value: "user", label: "User: works in the spaces given to them" },
            { value: "system", label: "System: manages users, spaces and settings" },
          ]}
          value={systemRole}
          allowDeselect={false}
          onChange={(v) => setSystemRole(v ?? "user")}
          error={errors.systemRole}
        />
        <TextInput
          label="E-mail"
          type="email"
          value={email}
          onChange={(e) => setEmail(e.currentTarget.value)}
          error={errors.email}
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
