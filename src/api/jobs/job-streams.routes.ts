import crypto from "node:crypto";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../app-context.js";
import { requireSpaceAccess } from "../../auth/access.js";
import { invalid, notFound } from "../../errors.js";
import { openEventStream } from "../../http/event-stream.js";
import { isUuid } from "../../http/validate.js";
import { validateForSpace } from "../../jobs/jobs-service.js";
import { runPreview } from "../../runs/preview.js";
import type { TestRunBody } from "../../runs/run-pipeline.js";
import type { StoredRun } from "../../storage/repositories/runs-repository.js";

type SpaceParams = { space: string };

/**
 * run, preview and test answer `text/event-stream`: start, step, log, snapshot, delivery, and last
 * `end` with the result. A run goes on when its client leaves; a test or a preview is stopped.
 */
export function jobStreamRoutes(app: FastifyInstance, ctx: AppContext) {
  /** Streams a queued run's events until its `end`. */
  const streamRun = (
    request: Parameters<typeof openEventStream>[0],
    reply: Parameters<typeof openEventStream>[1],
    run: StoredRun,
    onClientGone?: () => void,
  ) => {
    const stream = openEventStream(request, reply);
    let ended = false;
    const unsubscribe = ctx.runEvents.subscribe(run.id, (event) => {
      stream.send(event.event, event.data);
      if (event.event === "end") {
        ended = true;
        unsubscribe();
        stream.close();
      }
    });
    stream.signal.addEventListener("abort", () => {
      unsubscribe();
      if (!ended) onClientGone?.();
    });
    // Subscribed before the worker hears of the run, so no event can be missed.
    ctx.worker.notify();
  };

  app.post<{ Params: SpaceParams & { jobId: string } }>(
    "/api/spaces/:space/jobs/:jobId/run",
    async (request, reply) => {
      const { user } = await requireSpaceAccess(ctx, request, request.params.space, "rw");
      if (!isUuid(request.params.jobId)) throw notFound();
      const job = await ctx.jobs.get(request.params.space, request.params.jobId);
      if (!job) throw notFound();
      const run = await ctx.runs.create({ space: job.space, jobId: job.id, jobName: job.name, trigger: "manual" });
      await ctx.audit.record({
        actor: user,
        space: job.space,
        action: "run",
        type: "job",
        id: job.id,
        name: job.name,
        after: { runId: run.id },
      });
      streamRun(request, reply, run);
    },
  );

  app.post<{ Params: SpaceParams }>("/api/spaces/:space/jobs/test", async (request, reply) => {
    await requireSpaceAccess(ctx, request, request.params.space, "rw");
    const { deliver, rest } = splitDeliver(request.body);
    const body = await validateForSpace(ctx, request.params.space, rest);
    const run = await ctx.runs.create({
      space: request.params.space,
      // The body's id is ignored: a test run is never a run of a saved job (of this or any space).
      jobId: crypto.randomUUID(),
      jobName: body.name,
      trigger: "test",
      jobBody: { job: body, deliver } satisfies TestRunBody,
    });
    streamRun(request, reply, run, () => {
      void ctx.worker.cancel(run.id, "the test was cancelled: its client closed the stream");
    });
  });

  app.post<{ Params: SpaceParams }>("/api/spaces/:space/jobs/preview", async (request, reply) => {
    await requireSpaceAccess(ctx, request, request.params.space, "rw");
    const { rest } = splitDeliver(request.body);
    const body = await validateForSpace(ctx, request.params.space, rest);
    const stream = openEventStream(request, reply);
    try {
      await runPreview(ctx, request.params.space, body, stream.send, stream.signal);
    } catch (error) {
      if (!stream.signal.aborted) {
        stream.send("end", {
          ok: false,
          state: "failed",
          runId: null,
          variables: {},
          snapshots: [],
          files: [],
          deliveries: [],
          error: { message: (error as Error).message },
        });
      }
    } finally {
      stream.close();
    }
  });
}

/** `deliver` belongs to the test request, not to the job body. */
function splitDeliver(raw: unknown): { deliver: boolean; rest: unknown } {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return { deliver: false, rest: raw };
  const { deliver, ...rest } = raw as Record<string, unknown>;
  if (deliver !== undefined && typeof deliver !== "boolean") {
    throw invalid([{ path: ["deliver"], code: "invalid_type", message: "expected a boolean" }]);
  }
  return { deliver: deliver === true, rest };
}
