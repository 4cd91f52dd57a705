import { Cron } from "croner";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { JobsRepository, StoredJob } from "../storage/repositories/jobs-repository.js";
import type { RunsRepository, StoredRun } from "../storage/repositories/runs-repository.js";
import type { Database } from "../storage/schema.js";
import { nowIso } from "../storage/time.js";

/**
 * The embedded scheduler: one croner timer per enabled job with a cron, in the job's time zone.
 * A firing records a run (trigger schedule) and wakes the worker; a firing while a run of the
 * same job is still queued or running is skipped and logged. Firings missed while the process
 * was down are logged at start, not run late.
 */
export type Scheduler = {
  start(): Promise<void>;
  /** A job was created, replaced, enabled or disabled: its timer follows at once. */
  jobChanged(job: StoredJob): void;
  jobDeleted(jobId: string): void;
  /** The next firing of a job, if it has a timer. */
  nextRun(jobId: string): Date | null;
  stop(): Promise<void>;
};

export type FiringDeps = {
  jobs: JobsRepository;
  runs: RunsRepository;
  log: Logger;
  /** Called after a firing recorded its run. */
  onRunQueued(): void;
};

/**
 * Records the run of a job's firing at `at`, once: the job must still be enabled with a
 * schedule; a firing while the previous run still runs is skipped and logged; when another
 * process already recorded this firing, nothing happens (the unique firing index decides).
 */
export async function recordFiring(deps: FiringDeps, job: StoredJob, at: Date): Promise<StoredRun | undefined> {
  const current = await deps.jobs.get(job.space, job.id);
  if (!current?.enabled || !current.cron) return undefined;
  if (await deps.runs.hasActive(job.id)) {
    deps.log.warn({ jobId: job.id, job: job.name }, "firing skipped: the previous run of this job has not finished");
    return undefined;
  }
  const run = await deps.runs.createForFiring({ space: job.space, jobId: job.id, jobName: current.name, at });
  if (!run) return undefined;
  deps.log.info({ jobId: job.id, runId: run.id, firing: at.toISOString() }, "scheduled run queued");
  deps.onRunQueued();
  return run;
}

const ALIVE_KEY = "scheduler.lastAliveAt";
const ALIVE_EVERY_MS = 30_000;

export function createScheduler(deps: FiringDeps & { db: Kysely<Database> }): Scheduler {
  const timers = new Map<string, Cron>();
  let alive: NodeJS.Timeout | undefined;
  let stopped = false;

  const fire = async (job: StoredJob) => {
    if (stopped) return;
    // The instant it fired for: the second croner was due (it calls a few ms late).
    await recordFiring(deps, job, new Date(Math.floor(Date.now() / 1000) * 1000));
  };

  const schedule = (job: StoredJob) => {
    timers.get(job.id)?.stop();
    timers.delete(job.id);
    if (stopped || !job.enabled || !job.cron) return;
    const timer = new Cron(job.cron, { timezone: job.timezone, protect: true }, () => {
      fire(job).catch((error: Error) => deps.log.error({ err: error, jobId: job.id }, "scheduled firing failed"));
    });
    timers.set(job.id, timer);
  };

  const writeAlive = () =>
    deps.db
      .insertInto("settings")
      .values({ key: ALIVE_KEY, value: JSON.stringify(nowIso()) })
      .onConflict((oc) => oc.column("key").doUpdateSet({ value: JSON.stringify(nowIso()) }))
      .execute();

  /** Logs the firings that fell between the last sign of life and now. */
  const logMissed = async (jobs: StoredJob[]) => {
    const row = await deps.db.selectFrom("settings").select("value").where("key", "=", ALIVE_KEY).executeTakeFirst();
    if (!row) return;
    const since = new Date(JSON.parse(row.value) as string);
    const now = new Date();
    for (const job of jobs) {
      if (!job.enabled || !job.cron) continue;
      const cron = new Cron(job.cron, { timezone: job.timezone, paused: true });
      let missed = 0;
      let first: Date | null = null;
      for (let at = cron.nextRun(since); at && at < now && missed < 10_000; at = cron.nextRun(at)) {
        first ??= at;
        missed++;
      }
      if (missed > 0) {
        deps.log.warn(
          { jobId: job.id, job: job.name, missed, first: first?.toISOString() },
          `${missed} firing(s) of "${job.name}" were missed while Pagewright was down; they are not run late`,
        );
      }
    }
  };

  return {
    async start() {
      const jobs = await deps.jobs.listScheduled();
      await logMissed(jobs);
      for (const job of jobs) schedule(job);
      await writeAlive();
      alive = setInterval(() => void writeAlive().catch(() => undefined), ALIVE_EVERY_MS);
      alive.unref();
      deps.log.info(`scheduler: ${timers.size} job(s) on a schedule`);
    },
    jobChanged: schedule,
    jobDeleted(jobId) {
      timers.get(jobId)?.stop();
      timers.delete(jobId);
    },
    nextRun(jobId) {
      return timers.get(jobId)?.nextRun() ?? null;
    },
    async stop() {
      stopped = true;
      clearInterval(alive);
      for (const timer of timers.values()) timer.stop();
      timers.clear();
      await writeAlive().catch(() => undefined);
    },
  };
}
