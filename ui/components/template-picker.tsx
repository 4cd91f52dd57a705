import { Anchor, Badge, Group, Modal, Stack, Text } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { Link } from "react-router";
import { get } from "../api/client";
import { spacePath } from "../api/queries";
import type { Blueprint, Items } from "../api/types";
import { ErrorAlert } from "./error-alert";
import { PageLoader } from "./page-loader";
import { useSpace } from "./space-layout";

/** Lists the space's templates (blueprints); choosing one opens the editor with its job. */
export function TemplatePicker({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const space = useSpace();
  const blueprints = useQuery({
    queryKey: ["blueprints", space.id],
    queryFn: () => get<Items<Blueprint>>(`${spacePath(space.id)}/blueprints`).then((a) => a.items),
    enabled: opened,
  });
  return (
    <Modal opened={opened} onClose={onClose} title="New job from a template" size="lg">
      <ErrorAlert error={blueprints.error} />
      {blueprints.isPending && opened ? (
        <PageLoader />
      ) : (
        <Stack gap="sm">
          {(blueprints.data ?? []).map((b) => (
            <Stack key={b.id} gap={2}>
              <Group gap="xs">
                <Anchor
                  component={Link}
                  to={`/s/${encodeURIComponent(space.id)}/jobs/new?blueprint=${b.id}`}
                  onClick={onClose}
                  fw={500}
                >
                  {b.name}
                </Anchor>
                {b.builtIn && (
                  <Badge size="xs" variant="light">
                    built-in
                  </Badge>
                )}
              </Group>
              {b.description && (
                <Text size="sm" c="dimmed">
                  {b.description}
                </Text>
              )}
            </Stack>
          ))}
          {blueprints.data?.length === 0 && <Text c="dimmed">No template in this space.</Text>}
        </Stack>
      )}
    </Modal>
  );
}
