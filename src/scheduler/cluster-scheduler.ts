import { Cron } from "croner";
import type PgBoss from "pg-boss";
import type { Boss } from "../scale/boss.js";
import type { StoredJob } from "../storage/repositories/jobs-repository.js";
import { type FiringDeps, recordFiring, type Scheduler } from "./scheduler.js";

/** The pg-boss queue whose cron job is the cluster's clock: one job per minute, for all processes. */
export const TICK_QUEUE = "pagewright-tick";

/**
 * The scheduler of the scale-out mode (PostgreSQL): pg-boss keeps one cron schedule, every
 * minute, in the database; its cron worker (in any worker process) sends exactly one tick job
 * per minute, and one worker takes it. The tick records a run for every enabled job whose cron
 * matches that minute in its time zone. The tick reads the jobs from the database, so a job
 * created, replaced, disabled or deleted on any web process counts from the next minute; the
 * unique firing index makes a firing one run even if a tick were handled twice.
 */
export function createClusterScheduler(deps: FiringDeps & { boss: Boss; bossSchema: string }): Scheduler {
  let boss: PgBoss | undefined;
  return {
    async start() {
      await deps.boss.start("worker");
      boss = deps.boss.instance;
      await boss.createQueue(TICK_QUEUE, { name: TICK_QUEUE, retryLimit: 3, retryDelay: 5, expireInSeconds: 300 });
      await boss.schedule(TICK_QUEUE, "* * * * *", {}, { tz: "UTC" });
      await boss.work<{ at?: string }>(
        TICK_QUEUE,
        { includeMetadata: true, pollingIntervalSeconds: 1, batchSize: 1 },
        async (jobs) => {
          for (const job of jobs) {
            // A tick is for the minute pg-boss created it in; `at` (tests, catch-up) names another.
            const at = job.data?.at ? new Date(job.data.at) : startOfMinute(job.createdOn);
            const recorded = await fireDue(deps, at);
            deps.log.debug({ at: at.toISOString(), recorded }, "scheduler tick");
          }
        },
      );
      const count = (await deps.jobs.listScheduled()).length;
      deps.log.info(`scheduler: pg-boss (schema ${deps.bossSchema}), ${count} job(s) on a schedule`);
    },
    // The tick reads the jobs each minute: changes need no message.
    jobChanged() {},
    jobDeleted() {},
    nextRun() {
      return null;
    },
    async stop() {
      // The process's pg-boss is stopped with the process (server.ts), after the worker.
      boss = undefined;
    },
  };
}

/** Records the runs of every enabled job whose cron fires at `at` (a whole minute); answers how many. */
export async function fireDue(deps: FiringDeps, at: Date): Promise<number> {
  let recorded = 0;
  for (const job of await deps.jobs.listScheduled()) {
    if (!firesAt(job, at)) continue;
    if (await recordFiring(deps, job, at)) recorded++;
  }
  return recorded;
}

/** Does the job's cron, in its time zone, fire at exactly `at`? */
export function firesAt(job: Pick<StoredJob, "cron" | "timezone">, at: Date): boolean {
  if (!job.cron) return false;
  try {
    const cron = new Cron(job.cron, { timezone: job.timezone, paused: true });
    return cron.nextRun(new Date(at.getTime() - 1000))?.getTime() === at.getTime();
  } catch {
    return false;
  }
}

const startOfMinute = (date: Date) => new Date(Math.floor(new Date(date).getTime() / 60_000) * 60_000);
