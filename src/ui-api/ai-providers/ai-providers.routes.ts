import type { FastifyInstance } from "fastify";
import { createProvider, deleteProvider, updateProvider } from "../../ai/ai-providers-service.js";
import { createAskAi } from "../../ai/ask-ai.js";
import type { AppContext } from "../../app-context.js";
import { requireSpaceAccess } from "../../auth/access.js";
import { notFound } from "../../errors.js";
import { isUuid, parseBody } from "../../http/validate.js";
import { AiProviderCreateSchema, AiProviderUpdateSchema } from "../../schemas/ai-provider.js";

type Params = { space: string; id: string };

/** A provider test gives up after this long. */
const TEST_TIMEOUT_MS = 30_000;

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

  /**
   * Asks the provider a one-word question with its stored key: `{ok, answer, ms}` or
   * `{ok: false, error, ms}` (the error without the key, as a failing `ai` step says it).
   */
  app.post<{ Params: Params }>("/ui-api/spaces/:space/ai-providers/:id/test", async (request) => {
    await requireSpaceAccess(ctx, request, request.params.space, "admin");
    if (!isUuid(request.params.id)) throw notFound();
    if (!(await ctx.providers.get(request.params.space, request.params.id))) throw notFound();
    const ask = createAskAi(ctx.providers, request.params.space);
    const started = performance.now();
    const ms = () => Math.round(performance.now() - started);
    try {
      const answer = await ask({
        providerId: request.params.id,
        prompt: "This is a connection test. Answer with the single word OK.",
        output: "text",
        variables: {},
        images: [],
        signal: AbortSignal.timeout(TEST_TIMEOUT_MS),
      });
      return { ok: true, answer: answer.slice(0, 200), ms: ms() };
    } catch (error) {
      return { ok: false, error: (error as Error).message, ms: ms() };
    }
  });

  app.delete<{ Params: Params }>("/ui-api/spaces/:space/ai-providers/:id", async (request, reply) => {
    await requireSpaceAccess(ctx, request, request.params.space, "admin");
    if (!isUuid(request.params.id)) throw notFound();
    await deleteProvider(ctx, request.params.space, request.params.id);
    return reply.code(204).send();
  });
}
