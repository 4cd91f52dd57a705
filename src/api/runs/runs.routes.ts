import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../app-context.js";
import { requireSpaceAccess } from "../../auth/access.js";
import { invalid, notFound } from "../../errors.js";
import { isUuid, parseBody } from "../../http/validate.js";
import { presentRun } from "../../runs/run-presenter.js";
import { RunListQuerySchema } from "../../schemas/run.js";
import { decodeCursor } from "../../storage/repositories/runs-repository.js";

export function runsRoutes(app: FastifyInstance, ctx: AppContext) {
  app.get<{ Params: { space: string } }>("/api/spaces/:space/runs", async (request) => {
    await requireSpaceAccess(ctx, request, request.params.space, "ro");
    const query = parseBody(RunListQuerySchema, request.query);
    const cursor = query.cursor ? decodeCursor(query.cursor) : undefined;
    if (query.cursor && !cursor)
      throw invalid([{ path: ["cursor"], code: "custom", message: "not a cursor of this list" }]);
    const page = await ctx.runs.page(
      request.params.space,
      {
        jobId: query.jobId,
        state: query.state,
        trigger: query.trigger,
        since: query.since ? new Date(query.since).toISOString() : undefined,
        until: query.until ? new Date(query.until).toISOString() : undefined,
      },
      query.limit,
      cursor,
    );
    return { items: page.items.map(presentRun), nextCursor: page.nextCursor };
  });

  app.get<{ Params: { space: string; runId: string } }>("/api/spaces/:space/runs/:runId", async (request) => {
    await requireSpaceAccess(ctx, request, request.params.space, "ro");
    if (!isUuid(request.params.runId)) throw notFound();
    const run = await ctx.runs.getInSpace(request.params.space, request.params.runId);
    if (!run) throw notFound();
    return presentRun(run);
  });
}
