import { Badge, Button, Code, Group, Select, Stack, Table, Text, Title } from "@mantine/core";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useParams } from "react-router";
import { get } from "../api/client";
import { ErrorAlert } from "../components/error-alert";
import { dateTime, relativeTime } from "../components/format";
import { PageLoader } from "../components/page-loader";

type AuditEntry = {
  id: string;
  at: string;
  space: string | null;
  actor: { id: string | null; username: string };
  action: "create" | "update" | "delete" | "run" | "test";
  target: { type: string; id: string; name: string };
  changes: Record<string, unknown>;
};
type AuditPage = { items: AuditEntry[]; nextCursor: string | null };

const TYPES: { value: string; label: string }[] = [
  { value: "job", label: "Jobs" },
  { value: "run", label: "Runs" },
  { value: "blueprint", label: "Templates" },
  { value: "delivery_interface", label: "Delivery interfaces" },
  { value: "ai_provider", label: "AI providers" },
  { value: "member", label: "Members" },
  { value: "user", label: "Users" },
  { value: "space", label: "Spaces" },
  { value: "setting", label: "Settings" },
  { value: "observer_key", label: "Observer keys" },
];
const ACTION_COLOURS: Record<string, string> = { create: "green", update: "blue", delete: "red", run: "violet" };
const PAGE_SIZE = 50;

/** The change of an entry in a line: the fields an update touched, or nothing more to say. */
function summary(entry: AuditEntry): string {
  const fields = entry.changes.fields as Record<string, unknown> | undefined;
  if (fields) return Object.keys(fields).join(", ") || "no visible change";
  return "";
}

/**
 * Who created, changed, ran or deleted what, newest first. At /settings/audit a system user reads
 * every entry (one space's with the filter); at /s/:space/audit a space admin reads the space's.
 */
export default function AuditPage() {
  const { space } = useParams();
  const [type, setType] = useState<string | null>(null);
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [open, setOpen] = useState<string | null>(null);
  const cursor = cursors[cursors.length - 1];
  const path = space ? `/ui-api/spaces/${encodeURIComponent(space)}/audit` : "/ui-api/admin/audit";
  const page = useQuery({
    queryKey: ["audit", space ?? "*", type, cursor],
    queryFn: () => {
      const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
      if (type) query.set("type", type);
      if (cursor) query.set("cursor", cursor);
      return get<AuditPage>(`${path}?${query}`);
    },
    placeholderData: keepPreviousData,
  });

  return (
    <Stack>
      <Title order={1} size="h2">
        Audit log
      </Title>
      <Text size="sm" c="dimmed">
        Who created, changed, ran or deleted what{space ? " in this space" : ""}, and when. Secrets are never recorded.
      </Text>
      <Select
        label="Kind"
        placeholder="Everything"
        clearable
        data={TYPES}
        value={type}
        onChange={(value) => {
          setType(value);
          setCursors([undefined]);
        }}
        w={{ base: "100%", xs: 240 }}
      />
      <ErrorAlert error={page.error} />
      {page.isPending ? (
        <PageLoader />
      ) : page.data?.items.length === 0 ? (
        <Text c="dimmed">Nothing recorded{cursors.length > 1 ? " on this page" : ""}.</Text>
      ) : (
        <Table.ScrollContainer minWidth={640}>
          <Table aria-label="Audit log" verticalSpacing="xs">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>When</Table.Th>
                <Table.Th>Who</Table.Th>
                <Table.Th>What</Table.Th>
                <Table.Th>Change</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {page.data?.items.map((entry) => (
                <Table.Tr key={entry.id} data-audit={entry.target.type}>
                  <Table.Td>
                    <Text size="sm" title={dateTime(entry.at)}>
                      {relativeTime(entry.at)}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{entry.actor.username}</Text>
                  </Table.Td>
                  <Table.Td>
                    <Group gap={6} wrap="nowrap">
                      <Badge size="sm" variant="light" color={ACTION_COLOURS[entry.action] ?? "gray"}>
                        {entry.action}
                      </Badge>
                      <Text size="sm">
                        {TYPES.find((t) => t.value === entry.target.type)
                          ?.label.replace(/s$/, "")
                          .toLowerCase() ?? entry.target.type}{" "}
                        “{entry.target.name}”{!space && entry.space ? ` in ${entry.space}` : ""}
                      </Text>
                    </Group>
                  </Table.Td>
                  <Table.Td maw={360}>
                    <Group gap={6} wrap="nowrap">
                      <Text size="sm" c="dimmed" lineClamp={1}>
                        {summary(entry)}
                      </Text>
                      <Button
                        size="compact-xs"
                        variant="subtle"
                        aria-expanded={open === entry.id}
                        onClick={() => setOpen(open === entry.id ? null : entry.id)}
                      >
                        {open === entry.id ? "Hide" : "Details"}
                      </Button>
                    </Group>
                    {open === entry.id && (
                      <Code block mt={4} style={{ whiteSpace: "pre-wrap", maxHeight: 320, overflow: "auto" }}>
                        {JSON.stringify(entry.changes, null, 2)}
                      </Code>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <Group gap="xs">
        <Button variant="default" disabled={cursors.length < 2} onClick={() => setCursors((list) => list.slice(0, -1))}>
          Newer
        </Button>
        <Button
          variant="default"
          disabled={!page.data?.nextCursor}
          onClick={() => page.data?.nextCursor && setCursors((list) => [...list, page.data.nextCursor ?? undefined])}
        >
          Older
        </Button>
      </Group>
    </Stack>
  );
}
