import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../app-context.js";
import { requireSystemUser } from "../../auth/access.js";
import { notFound } from "../../errors.js";
import { isUuid, parseBody } from "../../http/validate.js";
import { ObserverKeyCreateSchema } from "../../schemas/observer-key.js";

/**
 * System users manage observer keys: read-only credentials for monitors (the full health listing
 * and /metrics, see auth/observer-key.ts). The key is in the answer of POST and nowhere else
 * afterwards; DELETE revokes it at once.
 */
export function observerKeysRoutes(app: FastifyInstance, ctx: AppContext) {
  app.get("/ui-api/admin/observer-keys", async (request) => {
    await requireSystemUser(ctx, request);
    return { items: await ctx.observerKeys.list() };
  });

  app.post("/ui-api/admin/observer-keys", async (request, reply) => {
    const user = await requireSystemUser(ctx, request);
    const body = parseBody(ObserverKeyCreateSchema, request.body);
    const created = await ctx.observerKeys.create(body.name, user.id);
    // The key itself is never recorded.
    await ctx.audit.record({
      actor: user,
      space: null,
      action: "create",
      type: "observer_key",
      id: created.id,
      name: body.name,
      after: { name: body.name },
    });
    return reply.code(201).header("cache-control", "no-store").send(created);
  });

  app.delete<{ Params: { keyId: string } }>("/ui-api/admin/observer-keys/:keyId", async (request, reply) => {
    const user = await requireSystemUser(ctx, request);
    const { keyId } = request.params;
    const key = isUuid(keyId) ? (await ctx.observerKeys.list()).find((k) => k.id === keyId) : undefined;
    if (!key || !(await ctx.observerKeys.delete(keyId))) throw notFound();
    await ctx.audit.record({
      actor: user,
      space: null,
      action: "delete",
      type: "observer_key",
      id: keyId,
      name: key.name,
      before: { name: key.name },
    });
    return reply.code(204).send();
  });
}
