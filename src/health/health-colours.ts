import type { RunState } from "../storage/repositories/runs-repository.js";

/**
 * Health colours (DESIGN.md "Health"). A job is coloured by its last finished runs, a delivery
 * interface by its deliveries of the last 24 hours, both by one rule: `green` when nothing
 * failed, `red` when everything failed, `yellow` in between, `gray` when there is nothing to
 * judge.
 */
export type HealthColour = "green" | "yellow" | "red" | "gray";

/** How many finished runs colour a job, and how far back they may lie. */
export const JOB_RUNS_COUNTED = 5;
export const JOB_WINDOW_MS = 30 * 24 * 60 * 60 * 1000;
/** The window of an interface's deliveries. */
export const INTERFACE_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Worst first: the order of `status` and of the listings. */
export const SEVERITY: Record<HealthColour, number> = { red: 3, yellow: 2, gray: 1, green: 0 };

/** `success` and `skipped` are good; `failed` is bad; `partial` reached only some destinations. */
export function jobColour(states: RunState[]): HealthColour {
  if (states.length === 0) return "gray";
  const failed = states.filter((s) => s === "failed").length;
  if (failed === states.length) return "red";
  return states.every((s) => s === "success" || s === "skipped") ? "green" : "yellow";
}

/** Throttled deliveries are not counted by the caller: they reached nobody on purpose. */
export function interfaceColour(total: number, errors: number): HealthColour {
  if (total === 0) return "gray";
  if (errors === 0) return "green";
  return errors >= total ? "red" : "yellow";
}

/** The worst colour present; `gray` when there is nothing at all. */
export function worstColour(colours: Iterable<HealthColour>): HealthColour {
  let worst: HealthColour | undefined;
  for (const colour of colours) if (worst === undefined || SEVERITY[colour] > SEVERITY[worst]) worst = colour;
  return worst ?? "gray";
}

export function countColours(colours: Iterable<HealthColour>): Record<HealthColour, number> {
  const counts = { green: 0, yellow: 0, red: 0, gray: 0 };
  for (const colour of colours) counts[colour]++;
  return counts;
}

/** Worst first, then by name (then id, so that equal names keep one order). */
export function byWorstThenName(
  a: { healthStatus: HealthColour; name: string; id: string },
  b: { healthStatus: HealthColour; name: string; id: string },
): number {
  return SEVERITY[b.healthStatus] - SEVERITY[a.healthStatus] || compareText(a.name, b.name) || compareText(a.id, b.id);
}

const collator = new Intl.Collator("en", { sensitivity: "base", numeric: true });
const compareText = (a: string, b: string) => collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
