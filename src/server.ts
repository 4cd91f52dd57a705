import Fastify, { type FastifyInstance } from "fastify";
import type { Logger } from "pino";
import { buildApp } from "./app.js";
import { type AppContext, createAppContext } from "./app-context.js";
import { resolveSecretKey } from "./auth/secret-box.js";
import { CHROMIUM_INSTALL_HINT, findChromium } from "./capture/chromium.js";
import { type Config, ConfigError } from "./config/config.js";
import { createHealthMonitor } from "./health/health-monitor.js";
import { metricsRoutes } from "./metrics/metrics.routes.js";
import { deleteExpiredRuns } from "./runs/retention-cleanup.task.js";
import { migrate, openStorage } from "./storage/db.js";
import { ensureFirstStart } from "./storage/first-start.js";
import { takeStartupLock } from "./storage/startup-lock.js";
import { VERSION } from "./version.js";

export type RunningServer = { app: FastifyInstance; ctx: AppContext; url: string; stop(): Promise<void> };

/** A worker's only HTTP: whether it is alive, and how busy; and its metrics (runs happen here). */
async function buildWorkerApp(ctx: AppContext): Promise<FastifyInstance> {
  const app = Fastify({ logger: false, trustProxy: ctx.config.trustedProxies ?? false });
  app.get("/healthz", async () => ({ ok: true, role: "worker", version: VERSION, active: ctx.worker.active }));
  metricsRoutes(app, ctx);
  return app;
}

/**
 * Starts the service: storage and migrations, the first-start admin, then HTTP. Logs what an
 * operator needs to see: URL, database, data folder, admin account, Chromium, and warnings.
 */
export type ServerOptions = {
  pgSchema?: string;
  /**
   * `all` (default): HTTP, scheduler and capture workers in one process. `web`: HTTP only.
   * `worker`: scheduler and capture only, with a bare `GET /healthz` on PORT for orchestrators.
   */
  role?: "all" | "web" | "worker";
  /** false: HTTP only, no scheduler or capture worker (the same as role `web`). */
  worker?: boolean;
  /** How long running runs may take to finish on stop; then they are stopped and recorded failed. */
  graceMs?: number;
  /** The limit of one capture (30 minutes); tests lower it. */
  maxCaptureMs?: number;
};

export async function startServer(config: Config, log: Logger, options: ServerOptions = {}): Promise<RunningServer> {
  const secret = resolveSecretKey(config.secretKey, config.dataDir);
  const storage = await openStorage({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    pgSchema: options.pgSchema,
  });
  const releaseStartup = await takeStartupLock(config.databaseUrl, options.pgSchema);
  try {
    return await startLocked(config, log, options, secret, storage, releaseStartup);
  } finally {
    await releaseStartup();
  }
}

async function startLocked(
  config: Config,
  log: Logger,
  options: ServerOptions,
  secret: ReturnType<typeof resolveSecretKey>,
  storage: Awaited<ReturnType<typeof openStorage>>,
  releaseStartup: () => Promise<void>,
): Promise<RunningServer> {
  const applied = await migrate(storage);
  const role = options.role ?? (options.worker === false ? "web" : "all");
  // The commands web and worker share the work through PostgreSQL; tests and benchmarks may run
  // an HTTP-only server (worker: false) on SQLite.
  if (options.role && options.role !== "all" && storage.dialect !== "postgres") {
    await storage.destroy();
    throw new ConfigError(
      `pagewright ${role} needs a shared PostgreSQL database (DATABASE_URL=postgres://…); with SQLite, run pagewright serve`,
    );
  }
  const ctx = createAppContext({ config, storage, secretKey: secret.key, log, maxCaptureMs: options.maxCaptureMs });
  const first = await ensureFirstStart(ctx);
  const app = role === "worker" ? await buildWorkerApp(ctx) : await buildApp(ctx);
  const healthMonitor = createHealthMonitor(ctx);
  // Hourly: expired sessions, and runs past their job's retention with their files.
  const hourly = () => {
    void ctx.sessions.deleteExpired().catch((error) => log.warn({ err: error }, "session cleanup failed"));
    void deleteExpiredRuns(ctx).catch((error) => log.warn({ err: error }, "retention cleanup failed"));
    void ctx.audit
      .deleteBefore(new Date(Date.now() - config.auditRetentionDays * 86_400_000))
      .catch((error) => log.warn({ err: error }, "audit log cleanup failed"));
  };
  const cleanup = setInterval(hourly, 60 * 60 * 1000);
  cleanup.unref();
  await ctx.runEvents.start();
  const runsWork = role !== "web";
  // Scale-out: web processes send runs to pg-boss's queue; workers also take them and keep its clock.
  await ctx.boss?.start(runsWork ? "worker" : "web");
  if (runsWork) {
    await ctx.worker.start();
    await ctx.scheduler.start();
    healthMonitor.start();
    hourly();
  }
  // The shared set-up is done: the next process may start.
  await releaseStartup();
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  // PORT=0 (tests) picks a free port: the URL names the one picked.
  const url = config.port === 0 ? `http://localhost:${port}` : config.publicUrl;

  log.info(
    role === "worker"
      ? `Pagewright ${VERSION} worker (${config.workerCount} slots); health check on http://${config.host}:${port}/healthz`
      : `Pagewright ${VERSION}${role === "web" ? " web (HTTP only)" : ""} listening on ${url} (bound to ${config.host}:${port})`,
  );
  log.info(`database: ${storage.description}${applied.length ? ` (applied migrations: ${applied.join(", ")})` : ""}`);
  log.info(`data folder: ${config.dataDir}`);
  log.info(
    `report files: ${config.filesUrl ? `${config.filesUrl} (${config.s3.endpoint ?? "AWS S3"}, region ${config.s3.region})` : `${config.dataDir}/files`}`,
  );
  log.info(`admin account: ${config.adminUsername}${first.createdAdmin ? " (created now, with space 'default')" : ""}`);
  if (first.createdAdmin && config.adminPassword === "admin") {
    log.warn(
      "the admin password is the default 'admin': set ADMIN_PASSWORD before the first start, or change it in Settings",
    );
  }
  if (secret.generated) {
    log.warn(
      `SECRET_KEY is not set: generated one into ${secret.file}; back it up, stored secrets cannot be read without it`,
    );
  }
  const chromium = findChromium(config.chromiumPath);
  if (chromium) log.info(`Chromium: ${chromium}`);
  else if (role === "web") log.info("Chromium not found: this web process sends runs to the workers; previews need it");
  else
    log.warn(
      `Chromium not found${config.chromiumPath ? ` at CHROMIUM_PATH=${config.chromiumPath}` : ""}: captures cannot run; ${CHROMIUM_INSTALL_HINT}`,
    );

  return {
    app,
    ctx,
    url,
    /** No new runs; running ones get the grace period, then fail cleanly; then HTTP and storage close. */
    async stop() {
      clearInterval(cleanup);
      await ctx.scheduler.stop();
      await healthMonitor.stop();
      await ctx.worker.stop(options.graceMs ?? 30_000);
      await ctx.pool.close();
      await ctx.boss?.stop();
      await ctx.runEvents.stop();
      await app.close();
      await storage.destroy();
    },
  };
}
