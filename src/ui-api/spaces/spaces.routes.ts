import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../app-context.js";
import { requireSystemUser, SPACE_ID } from "../../auth/access.js";
import { conflict, notFound } from "../../errors.js";
import { isUuid, parseBody } from "../../http/validate.js";
import { MemberSchema, SpaceCreateSchema } from "../../schemas/admin.js";

type MemberParams = { space: string; userId: string };

/** System users manage spaces and who may use them. */
export function spacesRoutes(app: FastifyInstance, ctx: AppContext) {
  app.get("/ui-api/admin/spaces", async (request) => {
    await requireSystemUser(ctx, request);
    return { items: await ctx.spaces.list() };
  });

  app.post("/ui-api/admin/spaces", async (request, reply) => {
    const actor = await requireSystemUser(ctx, request);
    const body = parseBody(SpaceCreateSchema, request.body);
    if (await ctx.spaces.get(body.id)) throw conflict("a space with this id exists");
    const space = await ctx.spaces.create(body.id, body.name);
    await ctx.audit.record({
      actor,
      space: body.id,
      action: "create",
      type: "space",
      id: body.id,
      name: body.name,
      after: space,
    });
    return reply.code(201).send(space);
  });

  app.get<{ Params: { space: string } }>("/ui-api/admin/spaces/:space/members", async (request) => {
    await requireSystemUser(ctx, request);
    if (!SPACE_ID.test(request.params.space) || !(await ctx.spaces.get(request.params.space))) throw notFound();
    return { items: await ctx.spaces.members(request.params.space) };
  });

  app.put<{ Params: MemberParams }>("/ui-api/admin/spaces/:space/members/:userId", async (request) => {
    const actor = await requireSystemUser(ctx, request);
    const { space, userId } = request.params;
    const body = parseBody(MemberSchema, request.body);
    if (!SPACE_ID.test(space) || !(await ctx.spaces.get(space))) throw notFound();
    const member = isUuid(userId) ? await ctx.users.findById(userId) : undefined;
    if (!member) throw notFound();
    const before = (await ctx.spaces.members(space)).find((m) => m.userId === userId);
    await ctx.spaces.setMember(space, userId, body.access);
    await ctx.audit.record({
      actor,
      space,
      action: before ? "update" : "create",
      type: "member",
      id: userId,
      name: member.username,
      before: before && { access: before.access },
      after: { access: body.access },
    });
    return { space, userId, access: body.access };
  });

  app.delete<{ Params: MemberParams }>("/ui-api/admin/spaces/:space/members/:userId", async (request, reply) => {
    const actor = await requireSystemUser(ctx, request);
    const { space, userId } = request.params;
    if (!SPACE_ID.test(space) || !isUuid(userId)) throw notFound();
    const member = await ctx.users.findById(userId);
    if (!(await ctx.spaces.removeMember(space, userId))) throw notFound();
    await ctx.audit.record({
      actor,
      space,
      action: "delete",
      type: "member",
      id: userId,
      name: member?.username ?? userId,
      before: { name: member?.username ?? userId },
    });
    return reply.code(204).send();
  });
}
