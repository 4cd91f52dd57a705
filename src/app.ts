import cookie from "@fastify/cookie";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from "fastify";
import { sql } from "kysely";
import { contextRoutes } from "./api/agent/context.routes.js";
import { blueprintsRoutes } from "./api/blueprints/blueprints.routes.js";
import { secretHolderListRoutes } from "./api/delivery-interfaces/delivery-interfaces.routes.js";
import { jobStreamRoutes } from "./api/jobs/job-streams.routes.js";
import { jobsRoutes } from "./api/jobs/jobs.routes.js";
import { runsRoutes } from "./api/runs/runs.routes.js";
import type { AppContext } from "./app-context.js";
import { authRoutes } from "./auth/auth.routes.js";
import { createOriginGuard } from "./auth/origin-guard.js";
import { filesRoutes } from "./files/files.routes.js";
import { guideRoutes } from "./guide/guide.routes.js";
import { healthRoutes } from "./health/health.routes.js";
import { answerClientError, answerFrameworkError, registerErrorHandling } from "./http/error-handler.js";
import { refuseUnstorableText } from "./http/validate.js";
import { registerHttpMetrics } from "./metrics/http-metrics.js";
import { metricsRoutes } from "./metrics/metrics.routes.js";
import { aiProvidersUiRoutes } from "./ui-api/ai-providers/ai-providers.routes.js";
import { auditRoutes } from "./ui-api/audit/audit.routes.js";
import { backupRoutes } from "./ui-api/backup/backup.routes.js";
import { deliveryInterfacesUiRoutes } from "./ui-api/delivery-interfaces/delivery-interfaces.routes.js";
import { observerKeysRoutes } from "./ui-api/observer-keys/observer-keys.routes.js";
import { reportPreviewUiRoutes } from "./ui-api/report-preview/report-preview.routes.js";
import { runsUiRoutes } from "./ui-api/runs/runs.routes.js";
import { healthAlertsSettingsRoutes } from "./ui-api/settings/health-alerts.routes.js";
import { spacesRoutes } from "./ui-api/spaces/spaces.routes.js";
import { uploadsUiRoutes } from "./ui-api/uploads/uploads.routes.js";
import { usersRoutes } from "./ui-api/users/users.routes.js";
import { uiRoutes } from "./ui-serving/ui.routes.js";
import { VERSION } from "./version.js";

/** DESIGN.md: a request body is at most 5 MB; beyond, 413. */
export const BODY_LIMIT = 5 * 1024 * 1024;

/** The HTTP server with every module registered; listening is the caller's business. */
export async function buildApp(ctx: AppContext): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: ctx.log as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT,
    trustProxy: ctx.config.trustedProxies ?? false,
    // On stop, runs have had their grace period already: open keep-alive and stream connections
    // are closed rather than waited for (up to 72 s otherwise).
    forceCloseConnections: true,
    // Refusals before routing (bad URL, over-long parameter, unparsable request) in DESIGN.md's shape too.
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    // Request ids in logs, but never a request body (it may hold passwords).
    logController: new LogController({
      disableRequestLogging: ctx.config.logLevel !== "debug" && ctx.config.logLevel !== "trace",
    }),
  });
  await app.register(cookie);
  // Bodies are JSON only: a text/plain body is a 415 that says so, not a confusing type error.
  app.removeContentTypeParser("text/plain");
  registerErrorHandling(app);
  app.addHook("preValidation", refuseUnstorableText);
  registerHttpMetrics(app, ctx.metrics);
  app.addHook("onRequest", createOriginGuard(ctx.config.publicUrl));
  app.addHook("onSend", async (_request, reply) => {
    reply.header("x-content-type-options", "nosniff");
    reply.header("referrer-policy", "same-origin");
  });

  authRoutes(app, ctx);
  contextRoutes(app, ctx);
  jobsRoutes(app, ctx);
  jobStreamRoutes(app, ctx);
  runsRoutes(app, ctx);
  filesRoutes(app, ctx);
  blueprintsRoutes(app, ctx);
  secretHolderListRoutes(app, ctx);
  usersRoutes(app, ctx);
  spacesRoutes(app, ctx);
  deliveryInterfacesUiRoutes(app, ctx);
  aiProvidersUiRoutes(app, ctx);
  runsUiRoutes(app, ctx);
  auditRoutes(app, ctx);
  backupRoutes(app, ctx);
  uploadsUiRoutes(app, ctx);
  reportPreviewUiRoutes(app, ctx);
  guideRoutes(app, ctx);
  healthRoutes(app, ctx);
  // For load balancers and container health checks: the process answers and reaches its database.
  app.get("/healthz", async (_request, reply) => {
    try {
      await sql`select 1`.execute(ctx.storage.db);
      return { ok: true, version: VERSION };
    } catch {
      return reply.code(503).send({ ok: false, error: "the database does not answer" });
    }
  });
  healthAlertsSettingsRoutes(app, ctx);
  observerKeysRoutes(app, ctx);
  metricsRoutes(app, ctx);
  uiRoutes(app, ctx);
  return app;
}
