import type { FastifyInstance } from "fastify";
import { presentProvider } from "../../ai/ai-providers-service.js";
import type { AppContext } from "../../app-context.js";
import { requireSpaceAccess } from "../../auth/access.js";
import { presentInterface } from "../../delivery/delivery-interfaces-service.js";

/** Read-only lists for agents: never a secret (set up happens in /ui-api). */
export function secretHolderListRoutes(app: FastifyInstance, ctx: AppContext) {
  app.get<{ Params: { space: string } }>("/api/spaces/:space/delivery-interfaces", async (request) => {
    await requireSpaceAccess(ctx, request, request.params.space, "ro");
    return { items: (await ctx.interfaces.list(request.params.space)).map(presentInterface) };
  });

  app.get<{ Params: { space: string } }>("/api/spaces/:space/ai-providers", async (request) => {
    await requireSpaceAccess(ctx, request, request.params.space, "ro");
    return { items: (await ctx.providers.list(request.params.space)).map(presentProvider) };
  });
}
