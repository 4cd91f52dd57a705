/**
 * A simple interval, as people say it, and the cron expression it stands for. `fromCron` reads
 * back the expressions `toCron` writes; anything else is edited as cron.
 */
export type Interval =
  | { unit: "minutes"; every: number }
  | { unit: "hours"; every: number; minute: number }
  | { unit: "days" | "weekdays"; time: string }
  | { unit: "weeks"; day: number; time: string };

export const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
export const MINUTE_STEPS = [1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30];
export const HOUR_STEPS = [1, 2, 3, 4, 6, 8, 12];

const hm = (time: string) => {
  const [h, m] = time.split(":").map(Number);
  return { h: Number.isFinite(h) ? h : 9, m: Number.isFinite(m) ? m : 0 };
};
const pad = (n: number) => String(n).padStart(2, "0");

export function toCron(interval: Interval): string {
  switch (interval.unit) {
    case "minutes":
      return interval.every === 1 ? "* * * * *" : `*/${interval.every} * * * *`;
    case "hours":
      return `${interval.minute} ${interval.every === 1 ? "*" : `*/${interval.every}`} * * *`;
    case "days":
    case "weekdays": {
      const { h, m } = hm(interval.time);
      return `${m} ${h} * * ${interval.unit === "weekdays" ? "1-5" : "*"}`;
    }
    case "weeks": {
      const { h, m } = hm(interval.time);
      return `${m} ${h} * * ${interval.day}`;
    }
  }
}

export function fromCron(cron: string): Interval | null {
  const f = cron.trim().split(/\s+/);
  if (f.length !== 5) return null;
  const [min, hour, dom, month, dow] = f;
  if (dom !== "*" || month !== "*") return null;
  const num = (s: string) => (/^\d{1,2}$/.test(s) ? Number(s) : null);
  const step = (s: string) => (s === "*" ? 1 : /^\*\/\d{1,2}$/.test(s) ? Number(s.slice(2)) : null);
  if (hour === "*" && dow === "*" && step(min) !== null && MINUTE_STEPS.includes(step(min) as number)) {
    return { unit: "minutes", every: step(min) as number };
  }
  if (num(min) !== null && dow === "*" && step(hour) !== null && HOUR_STEPS.includes(step(hour) as number)) {
    return { unit: "hours", every: step(hour) as number, minute: num(min) as number };
  }
  const m = num(min);
  const h = num(hour);
  if (m === null || h === null || m > 59 || h > 23) return null;
  const time = `${pad(h)}:${pad(m)}`;
  if (dow === "*") return { unit: "days", time };
  if (dow === "1-5") return { unit: "weekdays", time };
  if (/^[0-6]$/.test(dow)) return { unit: "weeks", day: Number(dow), time };
  return null;
}

export const DEFAULT_INTERVALS: Record<Interval["unit"], Interval> = {
  minutes: { unit: "minutes", every: 15 },
  hours: { unit: "hours", every: 1, minute: 0 },
  days: { unit: "days", time: "09:00" },
  weekdays: { unit: "weekdays", time: "09:00" },
  weeks: { unit: "weeks", day: 1, time: "09:00" },
};
