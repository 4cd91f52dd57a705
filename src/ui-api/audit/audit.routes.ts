import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../app-context.js";
import { decodeAuditCursor } from "../../audit/audit-log.js";
import { requireSpaceAccess, requireSystemUser } from "../../auth/access.js";
import { invalid } from "../../errors.js";
import { parseBody } from "../../http/validate.js";
import { AuditQuerySchema } from "../../schemas/audit.js";

/**
 * The audit log: system users read every entry (or one space's), space admins their space's.
 * `{items, nextCursor}`, newest first.
 */
export function auditRoutes(app: FastifyInstance, ctx: AppContext) {
  const page = (query: ReturnType<typeof AuditQuerySchema.parse>, space: string | undefined) => {
    const cursor = query.cursor ? decodeAuditCursor(query.cursor) : undefined;
    if (query.cursor && !cursor) {
      throw invalid([{ path: ["cursor"], code: "custom", message: "not a cursor of this list" }]);
    }
    return ctx.audit.page({ space, type: query.type, targetId: query.targetId, limit: query.limit, cursor });
  };

  app.get("/ui-api/admin/audit", async (request) => {
    await requireSystemUser(ctx, request);
    const query = parseBody(AuditQuerySchema, request.query);
    return page(query, query.space);
  });

  app.get<{ Params: { space: string } }>("/ui-api/spaces/:space/audit", async (request) => {
    await requireSpaceAccess(ctx, request, request.params.space, "admin");
    const query = parseBody(AuditQuerySchema.omit({ space: true }), request.query);
    return page(query, request.params.space);
  });
}
