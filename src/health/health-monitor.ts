import crypto from "node:crypto";
import type { AppContext } from "../app-context.js";
import { sendPlainMessage } from "../delivery/send-message.js";
import { nowIso } from "../storage/time.js";
import { type AlertState, alertMessage, applyCheck, type JobChange } from "./health-alert-changes.js";
import { readHealthAlertsSettings } from "./health-alerts-settings.js";
import { createHealthReader } from "./health-queries.js";
import { readJobHealth } from "./health-report.js";

/**
 * The health alert monitor. Every tick it reads the settings again; when alerts are enabled and
 * a check is due (checkEveryMinutes since the last one) it colours every job, compares with the
 * colours of the last check and, when some changed, sends ONE plain-text message listing them
 * through the chosen interface, at most once per minIntervalMinutes. A failed send keeps the
 * changes pending for the next check; it is not counted as sent. A check that stalls (a
 * receiver that never answers) is abandoned after `timeoutMs` and the next tick runs anyway.
 *
 * Several worker processes may run a monitor on one PostgreSQL: a lease in `settings` lets one
 * check at a time, and the state it works on is shared, so an alert goes out once.
 */
export type CheckOutcome =
  | "disabled" // alerts are off (or have no interface)
  | "busy" // another process holds the lease
  | "not_due" // the last check is more recent than checkEveryMinutes
  | "baseline" // the first check: colours recorded, nothing to compare with
  | "unchanged"
  | "quiet" // changes wait: the last alert is more recent than minIntervalMinutes
  | "sent"
  | "failed" // the send failed: changes stay pending
  | "timeout"
  | "error";

export type CheckResult = {
  outcome: CheckOutcome;
  /** The changes pending after the check, or those just sent. */
  changes: JobChange[];
  error?: string;
};

export type HealthMonitor = {
  start(): void;
  /** Stops the ticks and abandons a running check; resolves when it has let go. */
  stop(): Promise<void>;
  /** Checks at once, due or not (minIntervalMinutes still holds for sending). */
  checkNow(): Promise<CheckResult>;
};

export type HealthMonitorOptions = {
  /** A check taking longer is abandoned and logged. Default 60 s. */
  timeoutMs?: number;
  /** How often the settings are read and a due check runs. Default 60 s. */
  tickMs?: number;
  /** The clock of intervals and colours; tests move it. Default: the system clock. */
  now?: () => Date;
};

export const HEALTH_ALERTS_STATE_KEY = "health.alerts.state";
export const HEALTH_ALERTS_LEASE_KEY = "health.alerts.lease";
const MINUTE_MS = 60_000;
/** A tick a little early still counts as due (timers drift by a few ms). */
const DUE_SLACK_MS = 1000;

type MonitorContext = Pick<AppContext, "storage" | "config" | "log" | "interfaces">;

export function createHealthMonitor(ctx: MonitorContext, options: HealthMonitorOptions = {}): HealthMonitor {
  const { db } = ctx.storage;
  const log = ctx.log.child({ module: "health-monitor" });
  const timeoutMs = options.timeoutMs ?? 60_000;
  const tickMs = options.tickMs ?? MINUTE_MS;
  const clock = options.now ?? (() => new Date());
  const owner = crypto.randomUUID();
  const reader = createHealthReader(ctx.storage);
  let leaseCounter = 0;
  let timer: NodeJS.Timeout | undefined;
  let stopped = true;
  let running: Promise<CheckResult> | undefined;
  const controllers = new Set<AbortController>();

  const readState = async (): Promise<AlertState | null> => {
    const row = await db
      .selectFrom("settings")
      .select("value")
      .where("key", "=", HEALTH_ALERTS_STATE_KEY)
      .executeTakeFirst();
    return row ? (JSON.parse(row.value) as AlertState) : null;
  };
  const writeState = async (state: AlertState) => {
    const value = JSON.stringify(state);
    await db
      .insertInto("settings")
      .values({ key: HEALTH_ALERTS_STATE_KEY, value })
      .onConflict((oc) => oc.column("key").doUpdateSet({ value }))
      .execute();
  };

  /**
   * Takes the lease when it is free, expired or this process's own: compare-and-set on the
   * value read, so two processes cannot both take it. Returns the value written, to release.
   */
  const takeLease = async (): Promise<string | undefined> => {
    const value = JSON.stringify({ owner, check: ++leaseCounter, until: Date.now() + 2 * timeoutMs });
    const inserted = await db
      .insertInto("settings")
      .values({ key: HEALTH_ALERTS_LEASE_KEY, value })
      .onConflict((oc) => oc.column("key").doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0) return value;
    const row = await db
      .selectFrom("settings")
      .select("value")
      .where("key", "=", HEALTH_ALERTS_LEASE_KEY)
      .executeTakeFirst();
    if (!row) return undefined;
    const lease = JSON.parse(row.value) as { owner: string; until: number };
    if (lease.owner !== owner && lease.until > Date.now()) return undefined;
    const updated = await db
      .updateTable("settings")
      .set({ value })
      .where("key", "=", HEALTH_ALERTS_LEASE_KEY)
      .where("value", "=", row.value)
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) === 1 ? value : undefined;
  };
  const releaseLease = async (value: string) => {
    // Only the lease this check wrote: a check abandoned after a time-out must not free the next one's.
    await db.deleteFrom("settings").where("key", "=", HEALTH_ALERTS_LEASE_KEY).where("value", "=", value).execute();
  };

  async function check(force: boolean, signal: AbortSignal): Promise<CheckResult> {
    const settings = await readHealthAlertsSettings(db);
    if (!settings.enabled || settings.deliveryInterfaceId === null) return { outcome: "disabled", changes: [] };
    const lease = await takeLease();
    if (!lease) return { outcome: "busy", changes: [] };
    try {
      const now = clock();
      const previous = await readState();
      const since = (at: string | null) => (at ? now.getTime() - Date.parse(at) : Number.POSITIVE_INFINITY);
      if (!force && since(previous?.lastCheckAt ?? null) < settings.checkEveryMinutes * MINUTE_MS - DUE_SLACK_MS) {
        return { outcome: "not_due", changes: [] };
      }
      const jobs = await readJobHealth(reader, now);
      signal.throwIfAborted();
      const { state, changes, baseline } = applyCheck(previous, jobs);
      state.lastCheckAt = nowIso(now);
      let outcome: CheckOutcome;
      let error: string | undefined;
      if (baseline) outcome = "baseline";
      else if (changes.length === 0) outcome = "unchanged";
      else if (
        settings.minIntervalMinutes !== null &&
        since(state.lastSentAt) < settings.minIntervalMinutes * MINUTE_MS - DUE_SLACK_MS
      ) {
        outcome = "quiet";
      } else {
        // The new colours are saved before sending: a crash mid-send repeats the alert at the
        // next check rather than losing it.
        await writeState(state);
        signal.throwIfAborted();
        const message = alertMessage(changes, ctx.config.publicUrl);
        const outcomes = await sendPlainMessage(
          ctx.interfaces,
          settings.space,
          settings.deliveryInterfaceId,
          { ...message, recipients: settings.recipient ? [settings.recipient] : [] },
          signal,
        );
        const failed = outcomes.filter((o) => o.state !== "sent");
        if (outcomes.length > 0 && failed.length === 0) {
          state.pending = {};
          state.lastSentAt = nowIso(clock());
          outcome = "sent";
          log.info({ changes: changes.length, targets: outcomes.map((o) => o.target) }, "health alert sent");
        } else {
          outcome = "failed";
          error = failed.map((o) => o.error ?? "failed").join("; ") || "nothing was sent";
          log.warn({ changes: changes.length, error }, "health alert not sent; it is tried again at the next check");
        }
      }
      // An abandoned check records nothing, unless its alert went out (that must not go out twice).
      if (signal.aborted && outcome !== "sent") signal.throwIfAborted();
      await writeState(state);
      return { outcome, changes, ...(error ? { error } : {}) };
    } finally {
      await releaseLease(lease).catch(() => undefined);
    }
  }

  /** One check with its time limit: the caller gets an answer after `timeoutMs` at the latest. */
  function runCheck(force: boolean): Promise<CheckResult> {
    const controller = new AbortController();
    controllers.add(controller);
    let timeout: NodeJS.Timeout | undefined;
    const checked = check(force, controller.signal).catch((error: unknown): CheckResult => {
      if (controller.signal.aborted) return { outcome: "timeout", changes: [] };
      log.error({ err: error }, "health check failed");
      return { outcome: "error", changes: [], error: error instanceof Error ? error.message : String(error) };
    });
    const timedOut = new Promise<CheckResult>((resolve) => {
      timeout = setTimeout(() => {
        log.warn(`health check abandoned: it took longer than ${timeoutMs} ms; the next one runs as planned`);
        controller.abort(new Error("the health check timed out"));
        resolve({ outcome: "timeout", changes: [] });
      }, timeoutMs);
      timeout.unref();
    });
    return Promise.race([checked, timedOut]).finally(() => {
      clearTimeout(timeout);
      // The abandoned check lets go of its controller when it ends, whenever that is.
      void checked.finally(() => controllers.delete(controller));
    });
  }

  const tick = async () => {
    if (stopped) return;
    running ??= runCheck(false).finally(() => {
      running = undefined;
    });
    await running;
    if (stopped) return;
    timer = setTimeout(() => void tick(), tickMs);
    timer.unref();
  };

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      timer = setTimeout(() => void tick(), tickMs);
      timer.unref();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      for (const controller of controllers) controller.abort(new Error("the server is stopping"));
      await running;
    },
    checkNow() {
      return runCheck(true);
    },
  };
}
