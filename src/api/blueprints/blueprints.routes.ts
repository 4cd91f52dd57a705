import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../app-context.js";
import { requireSpaceAccess } from "../../auth/access.js";
import {
  createBlueprint,
  deleteBlueprint,
  getBlueprint,
  listBlueprints,
  replaceBlueprint,
} from "../../blueprints/blueprints-service.js";
import { notFound } from "../../errors.js";
import { isUuid } from "../../http/validate.js";
import type { User } from "../../storage/repositories/users-repository.js";

type SpaceParams = { space: string };
type BlueprintParams = { space: string; blueprintId: string };

const target = (user: User, space: string, blueprint: { id: string; name: string }) => ({
  actor: user,
  space,
  type: "blueprint" as const,
  id: blueprint.id,
  name: blueprint.name,
});

export function blueprintsRoutes(app: FastifyInstance, ctx: AppContext) {
  app.get<{ Params: SpaceParams }>("/api/spaces/:space/blueprints", async (request) => {
    await requireSpaceAccess(ctx, request, request.params.space, "ro");
    return { items: await listBlueprints(ctx, request.params.space) };
  });

  app.post<{ Params: SpaceParams }>("/api/spaces/:space/blueprints", async (request, reply) => {
    const { user } = await requireSpaceAccess(ctx, request, request.params.space, "admin");
    const blueprint = await createBlueprint(ctx, request.params.space, request.body);
    await ctx.audit.record({ ...target(user, request.params.space, blueprint), action: "create", after: blueprint });
    return reply.code(201).send(blueprint);
  });

  app.get<{ Params: BlueprintParams }>("/api/spaces/:space/blueprints/:blueprintId", async (request) => {
    await requireSpaceAccess(ctx, request, request.params.space, "ro");
    if (!isUuid(request.params.blueprintId)) throw notFound();
    return getBlueprint(ctx, request.params.space, request.params.blueprintId);
  });

  app.put<{ Params: BlueprintParams }>("/api/spaces/:space/blueprints/:blueprintId", async (request) => {
    const { user } = await requireSpaceAccess(ctx, request, request.params.space, "admin");
    if (!isUuid(request.params.blueprintId)) throw notFound();
    const before = await ctx.blueprints.get(request.params.space, request.params.blueprintId);
    const blueprint = await replaceBlueprint(ctx, request.params.space, request.params.blueprintId, request.body);
    await ctx.audit.record({
      ...target(user, request.params.space, blueprint),
      action: "update",
      before,
      after: blueprint,
    });
    return blueprint;
  });

  app.delete<{ Params: BlueprintParams }>("/api/spaces/:space/blueprints/:blueprintId", async (request, reply) => {
    const { user } = await requireSpaceAccess(ctx, request, request.params.space, "admin");
    if (!isUuid(request.params.blueprintId)) throw notFound();
    const before = await ctx.blueprints.get(request.params.space, request.params.blueprintId);
    await deleteBlueprint(ctx, request.params.space, request.params.blueprintId);
    if (before) {
      await ctx.audit.record({
        ...target(user, request.params.space, before),
        action: "delete",
        before: { name: before.name },
      });
    }
    return reply.code(204).send();
  });
}
