import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../app-context.js";
import { requireSpaceAccess } from "../../auth/access.js";
import { conflict, notFound } from "../../errors.js";
import { isUuid } from "../../http/validate.js";
import { removeRuns } from "../../runs/remove-runs.js";

/** Deleting runs (rw): a run that is queued or running is refused until it ends. */
export function runsUiRoutes(app: FastifyInstance, ctx: AppContext) {
  app.delete<{ Params: { space: string; runId: string } }>(
    "/ui-api/spaces/:space/runs/:runId",
    async (request, reply) => {
      const { user } = await requireSpaceAccess(ctx, request, request.params.space, "rw");
      if (!isUuid(request.params.runId)) throw notFound();
      const run = await ctx.runs.getInSpace(request.params.space, request.params.runId);
      if (!run) throw notFound();
      if (run.state === "queued" || run.state === "running") {
        throw conflict(`the run is ${run.state}; it can be deleted when it has ended`);
      }
      await removeRuns(ctx, [run.id]);
      await ctx.audit.record({
        actor: user,
        space: run.space,
        action: "delete",
        type: "run",
        id: run.id,
        name: run.jobName,
        before: { job: run.jobName, trigger: run.trigger, state: run.state, queuedAt: run.queuedAt },
      });
      return reply.code(204).send();
    },
  );
}
