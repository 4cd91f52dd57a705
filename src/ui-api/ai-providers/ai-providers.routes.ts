import type { FastifyInstance } from "fastify";
import { createProvider, deleteProvider, presentProvider, updateProvider } from "../../ai/ai-providers-service.js";
import { createAskAi } from "../../ai/ask-ai.js";
import type { AppContext } from "../../app-context.js";
import { requireSpaceAccess } from "../../auth/access.js";
import { notFound } from "../../errors.js";
import { isUuid, parseBody } from "../../http/validate.js";
import { AiProviderCreateSchema, AiProviderUpdateSchema } from "../../schemas/ai-provider.js";
import type { User } from "../../storage/repositories/users-repository.js";

type Params = { space: string; id: string };

/** A provider test gives up after this long. */
const TEST_TIMEOUT_MS = 30_000;

/** Secret-bearing set-up of AI providers: space admins only, never in the agent API. */
/** An audit entry's target: the provider, named. Its secrets never reach the log (present* leaves them out). */
const audited = (user: User, space: string, item: { id: string; name: string }) => ({
  actor: user,
  space,
  type: "ai_provider" as const,
  id: item.id,
  name: item.name,
});

export function aiProvidersUiRoutes(app: FastifyInstance, ctx: AppContext) {
  app.post<{ Params: { space: string } }>("/ui-api/spaces/:space/ai-providers", async (request, reply) => {
    const { user } = await requireSpaceAccess(ctx, request, request.params.space, "admin");
    const body = parseBody(AiProviderCreateSchema, request.body);
    const created = await createProvider(ctx, request.params.space, body);
    await ctx.audit.record({ ...audited(user, request.params.space, created), action: "create", after: created });
    return reply.code(201).send(created);
  });

  app.put<{ Params: Params }>("/ui-api/spaces/:space/ai-providers/:id", async (request) => {
    const { user } = await requireSpaceAccess(ctx, request, request.params.space, "admin");
    if (!isUuid(request.params.id)) throw notFound();
    const body = parseBody(AiProviderUpdateSchema, request.body);
    const before = await ctx.providers.get(request.params.space, request.params.id);
    const updated = await updateProvider(ctx, request.params.space, request.params.id, body);
    await ctx.audit.record({
      ...audited(user, request.params.space, updated),
      action: "update",
      before: before && presentProvider(before),
      after: updated,
    });
    return updated;
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
    const { user } = await requireSpaceAccess(ctx, request, request.params.space, "admin");
    if (!isUuid(request.params.id)) throw notFound();
    const before = await ctx.providers.get(request.params.space, request.params.id);
    await deleteProvider(ctx, request.params.space, request.params.id);
    if (before) {
      await ctx.audit.record({
        ...audited(user, request.params.space, before),
        action: "delete",
        before: { name: before.name },
      });
    }
    return reply.code(204).send();
  });
}
