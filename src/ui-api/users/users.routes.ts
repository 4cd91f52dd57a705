import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../app-context.js";
import { requireSystemUser } from "../../auth/access.js";
import { hashPassword } from "../../auth/passwords.js";
import { conflict, HttpError, notFound } from "../../errors.js";
import { isUuid, parseBody } from "../../http/validate.js";
import { UserCreateSchema, UserUpdateSchema } from "../../schemas/admin.js";
import type { User } from "../../storage/repositories/users-repository.js";

/** System users manage accounts. The last system user cannot be removed or demoted. */
export function usersRoutes(app: FastifyInstance, ctx: AppContext) {
  app.get("/ui-api/admin/users", async (request) => {
    await requireSystemUser(ctx, request);
    return { items: await ctx.users.list() };
  });

  app.post("/ui-api/admin/users", async (request, reply) => {
    const actor = await requireSystemUser(ctx, request);
    const body = parseBody(UserCreateSchema, request.body);
    if (await ctx.users.findByUsername(body.username)) throw conflict("this user name is taken");
    const user = await ctx.users.create({
      username: body.username,
      passwordHash: await hashPassword(body.password),
      systemRole: body.systemRole,
      email: body.email ?? null,
    });
    await ctx.audit.record({ ...audited(actor, user), action: "create", after: user });
    return reply.code(201).send(user);
  });

  app.put<{ Params: { userId: string } }>("/ui-api/admin/users/:userId", async (request) => {
    const actor = await requireSystemUser(ctx, request);
    const { userId } = request.params;
    const body = parseBody(UserUpdateSchema, request.body);
    const existing = isUuid(userId) ? await ctx.users.findById(userId) : undefined;
    if (!existing) throw notFound();
    if (body.username && body.username !== existing.username && (await ctx.users.findByUsername(body.username))) {
      throw conflict("this user name is taken");
    }
    if (existing.systemRole === "system" && body.systemRole === "user") await keepOneSystemUser(ctx);
    await ctx.users.update(userId, {
      username: body.username,
      passwordHash: body.password ? await hashPassword(body.password) : undefined,
      systemRole: body.systemRole,
      email: body.email,
    });
    // A new password ends the user's other sessions.
    if (body.password) await ctx.sessions.deleteForUser(userId);
    const updated = await ctx.users.findById(userId);
    await ctx.audit.record({
      ...audited(actor, updated ?? existing),
      action: "update",
      before: existing,
      // A new password shows as changed, never as a value.
      after: { ...updated, ...(body.password ? { password: "(changed)" } : {}) },
    });
    return updated;
  });

  app.delete<{ Params: { userId: string } }>("/ui-api/admin/users/:userId", async (request, reply) => {
    const actor = await requireSystemUser(ctx, request);
    const { userId } = request.params;
    const existing = isUuid(userId) ? await ctx.users.findById(userId) : undefined;
    if (!existing) throw notFound();
    if (existing.systemRole === "system") await keepOneSystemUser(ctx);
    await ctx.users.delete(userId);
    await ctx.audit.record({ ...audited(actor, existing), action: "delete", before: { username: existing.username } });
    return reply.code(204).send();
  });
}

const audited = (actor: User, user: { id: string; username: string }) => ({
  actor,
  space: null,
  type: "user" as const,
  id: user.id,
  name: user.username,
});

async function keepOneSystemUser(ctx: AppContext) {
  if ((await ctx.users.countSystemUsers()) <= 1) {
    throw new HttpError(409, { error: "conflict", message: "the last system user cannot be removed or demoted" });
  }
}
