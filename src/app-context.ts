import { EventEmitter } from "node:events";
import path from "node:path";
import type { Logger } from "pino";
import { createAuditLog } from "./audit/audit-log.js";
import { createSecretBox, type SecretBox } from "./auth/secret-box.js";
import { createBrowserPool } from "./capture/browser-pool.js";
import type { Config } from "./config/config.js";
import { createLocalFileStore } from "./files/local-file-store.js";
import { createS3FileStore } from "./files/s3-file-store.js";
import { createMetrics } from "./metrics/metrics.js";
import { countQueuedRuns } from "./metrics/queue-depth.js";
import { createPgRunEventBus } from "./runs/pg-run-events.js";
import { createRunEventBus } from "./runs/run-events.js";
import { createRunWorker } from "./runs/run-worker.js";
import { createBoss, RUN_QUEUE } from "./scale/boss.js";
import { createClusterScheduler } from "./scheduler/cluster-scheduler.js";
import { createScheduler } from "./scheduler/scheduler.js";
import type { Storage } from "./storage/db.js";
import { createBlueprintsRepository } from "./storage/repositories/blueprints-repository.js";
import { createDeliveriesRepository } from "./storage/repositories/deliveries-repository.js";
import { createJobsRepository, type StoredJob } from "./storage/repositories/jobs-repository.js";
import { createObserverKeysRepository } from "./storage/repositories/observer-keys-repository.js";
import { createRunsRepository } from "./storage/repositories/runs-repository.js";
import { createSecretHoldersRepository } from "./storage/repositories/secret-holders-repository.js";
import { createSessionsRepository } from "./storage/repositories/sessions-repository.js";
import { createSpacesRepository } from "./storage/repositories/spaces-repository.js";
import { createUsersRepository } from "./storage/repositories/users-repository.js";

/** Job changes, for whoever follows them (the scheduler). */
export type JobEvents = EventEmitter<{ changed: [StoredJob]; deleted: [string] }>;

/**
 * What every module of the server works with: configuration, storage, the repositories, the file
 * store and the run machinery (browser pool, worker, scheduler). Nothing here starts work: the
 * server calls `worker.start()` and `scheduler.start()`.
 */
export type AppContext = ReturnType<typeof createAppContext>;

export function createAppContext(input: {
  config: Config;
  storage: Storage;
  secretKey: string;
  log: Logger;
  maxCaptureMs?: number;
}) {
  const { config, storage, log } = input;
  const box: SecretBox = createSecretBox(input.secretKey);
  const { db, dialect } = storage;
  const jobs = createJobsRepository(db, dialect, box);
  // PostgreSQL is the scale-out mode: other processes share the queue, the clock and the events.
  const shared = dialect === "postgres" && config.databaseUrl !== undefined;
  // Tests give every server a schema of its own; pg-boss gets one beside it.
  const bossSchema = storage.pgSchema ? `${storage.pgSchema}_boss` : "pgboss";
  const boss = shared ? createBoss({ connectionString: config.databaseUrl ?? "", schema: bossSchema, log }) : undefined;
  const runs = createRunsRepository(db, box, (run) => {
    // Until pg-boss runs (commands without a server), the workers' slow look finds the run.
    if (!boss?.started) return;
    boss.instance
      .send(RUN_QUEUE, { runId: run.id }, { startAfter: new Date(run.notBefore), singletonKey: run.id })
      .catch((error: Error) => log.warn({ err: error, runId: run.id }, "could not send the run to the queue"));
  });
  const providers = createSecretHoldersRepository(db, dialect, "ai_providers", box);
  const files = config.filesUrl
    ? createS3FileStore(config.filesUrl, config.s3)
    : createLocalFileStore(path.join(config.dataDir, "files"));
  const interfaces = createSecretHoldersRepository(db, dialect, "delivery_interfaces", box);
  const deliveries = createDeliveriesRepository(db);
  // Per context, not prom-client's global registry: tests run many servers in one process.
  const metrics = createMetrics({
    queueDepth: () => countQueuedRuns(db),
    onCollectError: (error) => log.warn({ err: error }, "metrics: could not read the queue depth"),
  });
  const runEvents = shared
    ? createPgRunEventBus({ storage, connectionString: config.databaseUrl ?? "", runs, log })
    : createRunEventBus();
  const jobEvents: JobEvents = new EventEmitter();
  const pool = createBrowserPool({ chromiumPath: config.chromiumPath, log, metrics });
  const worker = createRunWorker({
    jobs,
    interfaces,
    deliveries,
    reportAllowedHosts: config.reportAllowedHosts,
    runs,
    providers,
    files,
    pool,
    events: runEvents,
    publicUrl: config.publicUrl,
    log,
    workerCount: config.workerCount,
    maxCaptureMs: input.maxCaptureMs,
    shared,
    staleAfterMs: config.runStaleSeconds * 1000,
    metrics,
    boss,
  });
  const firing = { jobs, runs, log, onRunQueued: () => worker.notify() };
  const scheduler = boss ? createClusterScheduler({ ...firing, boss, bossSchema }) : createScheduler({ ...firing, db });
  jobEvents.on("changed", (job) => scheduler.jobChanged(job));
  jobEvents.on("deleted", (id) => scheduler.jobDeleted(id));
  return {
    config,
    storage,
    log,
    box,
    users: createUsersRepository(db),
    sessions: createSessionsRepository(db),
    observerKeys: createObserverKeysRepository(db),
    spaces: createSpacesRepository(db),
    jobs,
    runs,
    blueprints: createBlueprintsRepository(db),
    audit: createAuditLog(db, (error) => log.error({ err: error }, "could not write an audit log entry")),
    interfaces,
    deliveries,
    providers,
    files,
    runEvents,
    jobEvents,
    pool,
    worker,
    scheduler,
    metrics,
    /** Scale-out (PostgreSQL): the process's pg-boss; started by the server. */
    boss,
  };
}
