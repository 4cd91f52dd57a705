import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../app-context.js";
import { requireSystemUser } from "../../auth/access.js";
import { exportData, importData } from "../../backup/export-import.js";

/** The largest import accepted over HTTP; bigger files go through `pagewright import`. */
const IMPORT_LIMIT = 256 * 1024 * 1024;

/** Export and import (system users): the backup of everything but files, and its restore. */
export function backupRoutes(app: FastifyInstance, ctx: AppContext) {
  app.get<{ Querystring: { runs?: string } }>("/ui-api/admin/export", async (request, reply) => {
    const user = await requireSystemUser(ctx, request);
    const runs = request.query.runs === "true";
    const document = await exportData(ctx, { runs });
    ctx.log.info({ user: user.username, runs }, "export downloaded");
    const day = document.exportedAt.slice(0, 10);
    return reply
      .header("content-disposition", `attachment; filename="pagewright-export-${day}${runs ? "-with-runs" : ""}.json"`)
      .header("cache-control", "no-store")
      .send(document);
  });

  app.post("/ui-api/admin/import", { bodyLimit: IMPORT_LIMIT }, async (request) => {
    const user = await requireSystemUser(ctx, request);
    const imported = await importData(ctx, request.body);
    await ctx.audit.record({
      actor: null,
      space: null,
      action: "create",
      type: "setting",
      id: "import",
      name: `Import by ${user.username}`,
      after: { imported },
    });
    ctx.log.warn({ user: user.username, imported }, "import applied: every table was replaced");
    return { imported };
  });
}
