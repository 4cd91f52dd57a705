import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../app-context.js";
import { requireUser } from "../../auth/access.js";
import { VERSION } from "../../version.js";

/** GET /api/agent/context: who is logged in, their spaces, the edition limits and usage. */
export function contextRoutes(app: FastifyInstance, ctx: AppContext) {
  app.get("/api/agent/context", async (request) => {
    const user = await requireUser(ctx, request);
    const spaces =
      user.systemRole === "system"
        ? (await ctx.spaces.list()).map((s) => ({ id: s.id, name: s.name, access: "admin" as const }))
        : (await ctx.spaces.membershipsOf(user.id)).map((s) => ({ id: s.id, name: s.name, access: s.access }));
    const usage: Record<string, { jobs: number; deliveryInterfaces: number; aiProviders: number }> = {};
    for (const space of spaces) {
      const [jobs, deliveryInterfaces, aiProviders] = await Promise.all([
        ctx.jobs.count(space.id),
        ctx.interfaces.count(space.id),
        ctx.providers.count(space.id),
      ]);
      usage[space.id] = { jobs, deliveryInterfaces, aiProviders };
    }
    return { user, spaces, limits: ctx.config.limits, usage, version: VERSION, guide: "/llms.txt" };
  });
}
