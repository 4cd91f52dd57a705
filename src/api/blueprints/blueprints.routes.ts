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

type SpaceParams = { space: string };
type BlueprintParams = { space: string; blueprintId: string };

export function blueprintsRoutes(app: FastifyInstance, ctx: AppContext) {
  app.get<{ Params: SpaceParams }>("/api/spaces/:space/blueprints", async (request) => {
    await requireSpaceAccess(ctx, request, request.params.space, "ro");
    return { items: await listBlueprints(ctx, request.params.space) };
  });

  app.post<{ Params: SpaceParams }>("/api/spaces/:space/blueprints", async (request, reply) => {
    await requireSpaceAccess(ctx, request, request.params.space, "admin");
    return reply.code(201).send(await createBlueprint(ctx, request.params.space, request.body));
  });

  app.get<{ Params: BlueprintParams }>("/api/spaces/:space/blueprints/:blueprintId", async (request) => {
    await requireSpaceAccess(ctx, request, request.params.space, "ro");
    if (!isUuid(request.params.blueprintId)) throw notFound();
    return getBlueprint(ctx, request.params.space, request.params.blueprintId);
  });

  app.put<{ Params: BlueprintParams }>("/api/spaces/:space/blueprints/:blueprintId", async (request) => {
    await requireSpaceAccess(ctx, request, request.params.space, "admin");
    if (!isUuid(request.params.blueprintId)) throw notFound();
    return replaceBlueprint(ctx, request.params.space, request.params.blueprintId, request.body);
  });

  app.delete<{ Params: BlueprintParams }>("/api/spaces/:space/blueprints/:blueprintId", async (request, reply) => {
    await requireSpaceAccess(ctx, request, request.params.space, "admin");
    if (!isUuid(request.params.blueprintId)) throw notFound();
    await deleteBlueprint(ctx, request.params.space, request.params.blueprintId);
    return reply.code(204).send();
  });
}
