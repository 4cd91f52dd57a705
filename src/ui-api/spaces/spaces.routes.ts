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
    await requireSystemUser(ctx, request);
    const body = parseBody(SpaceCreateSchema, request.body);
    if (await ctx.spaces.get(body.id)) throw conflict("a space with this id exists");
    return reply.code(201).send(await ctx.spaces.create(body.id, body.name));
  });

  app.get<{ Params: { space: string } }>("/ui-api/admin/spaces/:space/members", async (request) => {
    await requireSystemUser(ctx, request);
    if (!SPACE_ID.test(request.params.space) || !(await ctx.spaces.get(request.params.space))) throw notFound();
    return { items: await ctx.spaces.members(request.params.space) };
  });

  app.put<{ Params: MemberParams }>("/ui-api/admin/spaces/:space/members/:userId", async (request) => {
    await requireSystemUser(ctx, request);
    const { space, userId } = request.params;
    const body = parseBody(MemberSchema, request.body);
    if (!SPACE_ID.test(space) || !(await ctx.spaces.get(space))) throw notFound();
    if (!isUuid(userId) || !(await ctx.users.findById(userId))) throw notFound();
    await ctx.spaces.setMember(space, userId, body.access);
    return { space, userId, access: body.access };
  });

  app.delete<{ Params: MemberParams }>("/ui-api/admin/spaces/:space/members/:userId", async (request, reply) => {
    await requireSystemUser(ctx, request);
    const { space, userId } = request.params;
    if (!SPACE_ID.test(space) || !isUuid(userId)) throw notFound();
    if (!(await ctx.spaces.removeMember(space, userId))) throw notFound();
    return reply.code(204).send();
  });
}
