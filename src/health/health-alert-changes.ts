import { type HealthColour, SEVERITY } from "./health-colours.js";

/**
 * What the alert monitor remembers between checks (table `settings`, key below), so that a
 * restart neither forgets unsent changes nor alerts again about old ones.
 */
export type AlertState = {
  /** Each job's colour at the last check. */
  colours: Record<string, HealthColour>;
  /** Jobs whose colour changed since the last alert that went out: the colour they had then. */
  pending: Record<string, HealthColour>;
  lastCheckAt: string | null;
  lastSentAt: string | null;
};

export type JobChange = { id: string; name: string; from: HealthColour; to: HealthColour };

/**
 * Folds one check's colours into the state. The first check ever only records the colours (a
 * baseline, no alert about every job at once). A job seen for the first time counts as having
 * been gray, so a new job that is still gray is no change; deleted jobs are forgotten. A change
 * that waits for its alert keeps its original colour: green → red → yellow is "green → yellow",
 * and green → red → green is no change at all.
 */
export function applyCheck(
  previous: AlertState | null,
  jobs: { id: string; name: string; healthStatus: HealthColour }[],
): { state: AlertState; changes: JobChange[]; baseline: boolean } {
  const colours: Record<string, HealthColour> = {};
  for (const job of jobs) colours[job.id] = job.healthStatus;
  if (!previous) {
    return {
      state: { colours, pending: {}, lastCheckAt: null, lastSentAt: null },
      changes: [],
      baseline: true,
    };
  }
  const pending: Record<string, HealthColour> = {};
  const changes: JobChange[] = [];
  for (const job of jobs) {
    const from = previous.pending[job.id] ?? previous.colours[job.id] ?? "gray";
    if (from === job.healthStatus) continue;
    pending[job.id] = from;
    changes.push({ id: job.id, name: job.name, from, to: job.healthStatus });
  }
  changes.sort((a, b) => SEVERITY[b.to] - SEVERITY[a.to] || a.name.localeCompare(b.name) || (a.id < b.id ? -1 : 1));
  return {
    state: { colours, pending, lastCheckAt: previous.lastCheckAt, lastSentAt: previous.lastSentAt },
    changes,
    baseline: false,
  };
}

/** One plain-text message listing every change, with a link to each job. */
export function alertMessage(changes: JobChange[], publicUrl: string): { subject: string; text: string } {
  const count = `${changes.length} job${changes.length === 1 ? "" : "s"}`;
  const lines = changes.map((c) => `- ${c.name}: ${c.from} → ${c.to}\n  ${publicUrl}/jobs/${c.id}`);
  return {
    subject: `Pagewright health: ${count} changed`,
    text: `The health of ${count} changed:\n\n${lines.join("\n")}\n\nHealth overview: ${publicUrl}/guest/api/health\n`,
  };
}
