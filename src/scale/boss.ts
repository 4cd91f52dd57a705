import type PgBoss from "pg-boss";
import type { Logger } from "pino";

/** The pg-boss queue that carries queued runs to the workers (scale-out mode). */
export const RUN_QUEUE = "pagewright-run";

/**
 * The process's one pg-boss instance, in the PostgreSQL database of the service (its own schema).
 * Workers start it with pg-boss's maintenance and cron processing; web processes only send.
 */
export type Boss = {
  start(role: "web" | "worker"): Promise<void>;
  /** The started instance; throws before start. */
  readonly instance: PgBoss;
  readonly started: boolean;
  stop(): Promise<void>;
};

export function createBoss(options: { connectionString: string; schema: string; log: Logger }): Boss {
  let boss: PgBoss | undefined;
  return {
    async start(role) {
      if (boss) return;
      const { default: PgBossClass } = await import("pg-boss");
      const instance = new PgBossClass({
        connectionString: options.connectionString,
        schema: options.schema,
        application_name: `pagewright-${role}`,
        max: 4,
        // Only workers keep pg-boss's house (expiry, archive) and turn its cron into jobs.
        supervise: role === "worker",
        schedule: role === "worker",
        cronWorkerIntervalSeconds: 2,
        cronMonitorIntervalSeconds: 15,
      });
      instance.on("error", (error) => options.log.error({ err: error }, "pg-boss"));
      await instance.start();
      // A run waits in the queue until a worker takes it; the run record holds its state, so
      // pg-boss neither retries nor keeps a finished job for long.
      await instance.createQueue(RUN_QUEUE, {
        name: RUN_QUEUE,
        retryLimit: 0,
        expireInSeconds: 2 * 60 * 60,
        retentionMinutes: 24 * 60,
      });
      boss = instance;
    },
    get instance() {
      if (!boss) throw new Error("pg-boss is not started");
      return boss;
    },
    get started() {
      return boss !== undefined;
    },
    async stop() {
      const instance = boss;
      boss = undefined;
      await instance?.stop({ graceful: true, wait: true, timeout: 10_000 });
    },
  };
}
