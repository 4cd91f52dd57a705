import { Cron } from "croner";
import cronstrue from "cronstrue";

/** "3 min ago", "in 2 h", or the date when it is far. */
export function relativeTime(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return "—";
  const ms = new Date(iso).getTime() - now;
  const abs = Math.abs(ms);
  const words = (n: number, unit: string) => (ms < 0 ? `${n} ${unit} ago` : `in ${n} ${unit}`);
  if (abs < 60_000) return ms < 0 ? "just now" : "in a moment";
  if (abs < 3_600_000) return words(Math.round(abs / 60_000), "min");
  if (abs < 86_400_000) return words(Math.round(abs / 3_600_000), "h");
  if (abs < 7 * 86_400_000) return words(Math.round(abs / 86_400_000), "d");
  return dateTime(iso);
}

export function dateTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  return new Date(iso).toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
}

export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "—";
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** The schedule in words ("At 09:00, Monday through Friday"), or why there is none. */
export function scheduleWords(cron: string | null | undefined): string {
  if (!cron) return "On demand only";
  try {
    return cronstrue.toString(cron, { use24HourTimeFormat: true, verbose: false });
  } catch {
    return cron;
  }
}

/** When the schedule fires next, in the job's time zone. */
export function nextFiring(cron: string | null | undefined, timezone: string | undefined): Date | null {
  return nextFirings(cron, timezone, 1)[0] ?? null;
}

/** The next `count` firings of the schedule in the job's time zone; none when it is not valid. */
export function nextFirings(cron: string | null | undefined, timezone: string | undefined, count: number): Date[] {
  if (!cron) return [];
  try {
    return new Cron(cron, { paused: true, timezone: timezone || "UTC" }).nextRuns(count);
  } catch {
    return [];
  }
}

/** A firing in the job's time zone: "Mon 24 Nov, 09:00". */
export function zonedTime(date: Date, timezone: string | undefined): string {
  try {
    return date.toLocaleString([], {
      weekday: "short",
      day: "numeric",
      month: "short",
      hour: "2-digit",
      minute: "2-digit",
      timeZone: timezone || "UTC",
    });
  } catch {
    return date.toISOString();
  }
}
