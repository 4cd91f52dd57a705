import type { FastifyInstance } from "fastify";
import { createProvider, deleteProvider, updateProvider } from "../../ai/ai-providers-service.js";
import type { AppContext } from "../../app-context.js";
import { requireSpaceAccess } from "../../auth/access.js";
import { notFound } from "../../errors.js";
import { isUuid, parseBody } from "../../http/validate.js";
import { AiProviderCreateSchema, AiProviderUpdateSchema } from "../../schemas/ai-provider.js";

type Params = { space: string; id: string };

/** Secret-bearing set-up of AI providers: space admins only, never in the agent API. */
export function aiProvidersUiRoutes(app: FastifyInstance, ctx: AppContext) {
  app.post<{ Params: { space: string } }>("/ui-api/spaces/:space/ai-providers", async (request, reply) => {
    await requireSpaceAccess(ctx, request, request.params.space, "admin");
    const body = parseBody(AiProviderCreateSchema, request.body);
    return reply.code(201).send(await createProvider(ctx, request.params.space, body));
  });

  app.put<{ Params: Params }>("/ui-api/spaces/:space/ai-providers/:id", async (request) => {
    await requireSpaceAccess(ctx, request, request.params.space, "admin");
    if (!isUuid(request.params.id)) throw notFound();
    const body = parseBody(AiProviderUpdateSchema, request.body);
    return updateProvider(ctx, request.params.space, request.params.id, body);
  });

  app.delete<{ Params: Params }>("/ui-api/spaces/:space/ai-providers/:id", async (request, reply) => {
    await requireSpaceAccess(ctx, request, request.params.space, "admin");
    if (!isUuid(request.params.id)) throw notFound();
    await deleteProvider(ctx, request.params.space, request.params.id);
    return reply.code(204).send();
  });
}
