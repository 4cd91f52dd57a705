import { Badge, Group, SimpleGrid, Stack, Table, Text, Title, Tooltip } from "@mantine/core";
import { useHealth } from "../api/queries";
import type { HealthStatus } from "../api/types";
import { ErrorAlert } from "../components/error-alert";
import { dateTime, relativeTime, scheduleWords } from "../components/format";
import { PageLoader } from "../components/page-loader";
import { HealthDot } from "../components/state-badge";

const WORDS: Record<HealthStatus, string> = {
  green: "healthy",
  yellow: "some failures",
  red: "failing",
  gray: "no runs",
};
const COLOURS: Record<HealthStatus, string> = { green: "green", yellow: "yellow", red: "red", gray: "gray" };

/** The health of every job and delivery interface (GET /guest/api/health, full listing). */
export default function HealthPage() {
  const health = useHealth(true, true);
  if (health.isPending) return <PageLoader />;
  if (!health.data) return <ErrorAlert error={health.error} title="Health cannot be read" />;
  const { status, counts, jobs, deliveryInterfaces } = health.data;
  return (
    <Stack>
      <Group gap="sm">
        <Title order={1} size="h2">
          Health
        </Title>
        <Badge color={COLOURS[status]} size="lg" data-health={status}>
          {WORDS[status]}
        </Badge>
      </Group>
      <SimpleGrid cols={{ base: 2, sm: 4 }} maw={640}>
        {(["red", "yellow", "gray", "green"] as const).map((c) => (
          <Group key={c} gap="xs">
            <HealthDot status={c} />
            <Text size="sm">
              {counts[c]} {WORDS[c]}
            </Text>
          </Group>
        ))}
      </SimpleGrid>
      <Title order={2} size="h4">
        Jobs
      </Title>
      <Table.ScrollContainer minWidth={560}>
        <Table aria-label="Job health" verticalSpacing="xs">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Job</Table.Th>
              <Table.Th>Schedule</Table.Th>
              <Table.Th>Last runs (newest first)</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {jobs.map((job) => (
              <Table.Tr key={job.id}>
                <Table.Td>
                  <Group gap="xs" wrap="nowrap">
                    <HealthDot status={job.healthStatus} />
                    <Text size="sm" fw={500}>
                      {job.name}
                    </Text>
                  </Group>
                </Table.Td>
                <Table.Td>
                  <Text size="sm">{scheduleWords(job.cron)}</Text>
                </Table.Td>
                <Table.Td>
                  <Group gap={4}>
                    {(job.recentRuns ?? []).map((run) => (
                      <Tooltip key={run.runAt} label={`${run.state}, ${dateTime(run.runAt)}`}>
                        <Badge
                          size="xs"
                          variant="light"
                          color={run.state === "failed" ? "red" : run.state === "partial" ? "yellow" : "green"}
                        >
                          {run.state}
                        </Badge>
                      </Tooltip>
                    ))}
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <Title order={2} size="h4">
        Delivery interfaces (last 24 hours)
      </Title>
      <Table.ScrollContainer minWidth={560}>
        <Table aria-label="Delivery interface health" verticalSpacing="xs">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Interface</Table.Th>
              <Table.Th>Deliveries</Table.Th>
              <Table.Th>Last errors</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {deliveryInterfaces.map((item) => (
              <Table.Tr key={item.id}>
                <Table.Td>
                  <Group gap="xs" wrap="nowrap">
                    <HealthDot status={item.healthStatus} />
                    <Text size="sm" fw={500}>
                      {item.name}
                    </Text>
                    <Text size="xs" c="dimmed">
                      {item.type}
                    </Text>
                  </Group>
                </Table.Td>
                <Table.Td>
                  <Text size="sm">
                    {item.summary24Hours?.totalCount ?? 0} sent, {item.summary24Hours?.errorCount ?? 0} failed
                  </Text>
                </Table.Td>
                <Table.Td>
                  {(item.summary24Hours?.errors ?? []).slice(0, 3).map((e) => (
                    <Text key={`${e.runId}-${e.at}`} size="xs" c="red">
                      {relativeTime(e.at)}: {e.message}
                    </Text>
                  ))}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Stack>
  );
}
