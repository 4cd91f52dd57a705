import { Badge, Box, Tooltip } from "@mantine/core";
import type { HealthStatus, RunState } from "../api/types";

const STATE_COLOURS: Record<string, string> = {
  queued: "gray",
  running: "blue",
  success: "green",
  partial: "yellow",
  failed: "red",
  skipped: "gray",
  started: "blue",
  done: "green",
  sent: "green",
  throttled: "gray",
};

export function StateBadge({ state }: { state: RunState | string }) {
  return (
    <Badge color={STATE_COLOURS[state] ?? "gray"} variant="light" data-state={state}>
      {state}
    </Badge>
  );
}

const HEALTH_WORDS: Record<HealthStatus, string> = {
  green: "Healthy: the last runs succeeded",
  yellow: "Some of the last runs failed",
  red: "The last runs all failed",
  gray: "No finished runs in the last 30 days",
};

/** A coloured dot with its meaning as a tooltip and as the accessible name. */
export function HealthDot({ status }: { status: HealthStatus }) {
  const colour = status === "gray" ? "gray.5" : `${status === "yellow" ? "yellow" : status}.6`;
  return (
    <Tooltip label={HEALTH_WORDS[status]}>
      <Box
        component="span"
        role="img"
        aria-label={HEALTH_WORDS[status]}
        data-health={status}
        bg={colour}
        w={12}
        h={12}
        style={{ borderRadius: "50%", display: "inline-block", flexShrink: 0 }}
      />
    </Tooltip>
  );
}
