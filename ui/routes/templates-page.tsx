import { Anchor, Badge, Button, Group, Stack, Table, Text, Title } from "@mantine/core";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "react-router";
import { del, get } from "../api/client";
import { spacePath } from "../api/queries";
import type { Blueprint, Items } from "../api/types";
import { ConfirmModal } from "../components/confirm-modal";
import { ErrorAlert } from "../components/error-alert";
import { PageLoader } from "../components/page-loader";
import { useSpace } from "../components/space-layout";
import { TemplateForm } from "../components/template-form";

/** Job templates (blueprints): the built-in ones and the space's own. */
export default function TemplatesPage() {
  const space = useSpace();
  const key = ["blueprints", space.id];
  const blueprints = useQuery({
    queryKey: key,
    queryFn: () => get<Items<Blueprint>>(`${spacePath(space.id)}/blueprints`).then((a) => a.items),
  });
  const [deleting, setDeleting] = useState<Blueprint | null>(null);
  const [editing, setEditing] = useState<Blueprint | null>(null);
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: (id: string) => del(`${spacePath(space.id)}/blueprints/${id}`),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: key });
      setDeleting(null);
    },
  });
  const base = `/s/${encodeURIComponent(space.id)}`;
  return (
    <Stack>
      <Title order={1} size="h2">
        Templates
      </Title>
      <Text size="sm" c="dimmed">
        A template is a job to start from, with the places to fill in. Space admins save a job as a template from its
        editor (“Save as template”); agents create them through the API (see llms.txt).
      </Text>
      <ErrorAlert error={blueprints.error} />
      {blueprints.isPending ? (
        <PageLoader />
      ) : (
        <Table.ScrollContainer minWidth={520}>
          <Table aria-label="Templates" verticalSpacing="xs">
            <Table.Tbody>
              {blueprints.data?.map((b) => (
                <Table.Tr key={b.id}>
                  <Table.Td>
                    <Group gap="xs">
                      <Text fw={500} size="sm">
                        {b.name}
                      </Text>
                      {b.builtIn && (
                        <Badge size="xs" variant="light">
                          built-in
                        </Badge>
                      )}
                    </Group>
                    <Text size="xs" c="dimmed">
                      {b.description}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Group gap={4} justify="flex-end" wrap="nowrap">
                      {space.canWrite && (
                        <Anchor component={Link} to={`${base}/jobs/new?blueprint=${b.id}`} size="sm">
                          Use
                        </Anchor>
                      )}
                      {space.isAdmin && !b.builtIn && (
                        <Button size="compact-sm" variant="subtle" onClick={() => setEditing(b)}>
                          Edit
                        </Button>
                      )}
                      {space.isAdmin && !b.builtIn && (
                        <Button size="compact-sm" variant="subtle" color="red" onClick={() => setDeleting(b)}>
                          Delete
                        </Button>
                      )}
                    </Group>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {editing && <TemplateForm key={editing.id} opened onClose={() => setEditing(null)} template={editing} />}
      <ConfirmModal
        opened={deleting !== null}
        title="Delete the template?"
        confirmLabel="Delete"
        onClose={() => {
          remove.reset();
          setDeleting(null);
        }}
        onConfirm={() => deleting && remove.mutate(deleting.id)}
        pending={remove.isPending}
        error={remove.error}
      >
        “{deleting?.name}” will be deleted. Jobs made from it stay as they are.
      </ConfirmModal>
    </Stack>
  );
}
