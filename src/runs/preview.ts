import { createAskAi } from "../ai/ask-ai.js";
import type { AppContext } from "../app-context.js";
import { type CaptureEvent, runCapture } from "../capture/capture-engine.js";
import type { JobBody } from "../schemas/job.js";
import { MAX_CAPTURE_MS } from "./run-pipeline.js";

/**
 * Runs only the capture of an unsaved job and reports it as events; stores nothing: snapshots
 * travel inside the events as data URLs. It takes one of the worker's slots like a run, and stops
 * when the client goes away.
 */
export async function runPreview(
  ctx: AppContext,
  space: string,
  body: JobBody,
  send: (event: string, data: unknown) => void,
  signal: AbortSignal,
) {
  send("start", { runId: null, jobId: body.id ?? null, trigger: "preview" });
  await ctx.worker.withSlot(async () => {
    const combined = AbortSignal.any([signal, AbortSignal.timeout(MAX_CAPTURE_MS)]);
    const { context, page } = await ctx.pool.acquire(body.capture.viewport);
    const onAbort = () => void context.close().catch(() => undefined);
    combined.addEventListener("abort", onAbort, { once: true });
    try {
      const result = await runCapture({
        capture: body.capture,
        context,
        page,
        scope: {
          job: { id: body.id ?? null, name: body.name, description: body.description },
          run: { id: null, trigger: "preview", attempt: 1, startedAt: new Date().toISOString() },
          space,
          now: new Date().toISOString(),
        },
        signal: combined,
        askAi: createAskAi(ctx.providers, space),
        emit: (event: CaptureEvent) => {
          if (event.type === "step") send("step", event.step);
          else if (event.type === "log") send("log", { level: event.level, message: event.message });
          else send("snapshot", { name: event.name, url: event.url });
        },
        saveSnapshot: async (_name, png) => `data:image/png;base64,${png.toString("base64")}`,
      });
      send("end", {
        ok: result.state !== "failed",
        state: result.state,
        runId: null,
        variables: result.variables,
        snapshots: result.snapshots,
        files: [],
        deliveries: [],
        error: result.error,
      });
    } finally {
      combined.removeEventListener("abort", onAbort);
      await context.close().catch(() => undefined);
    }
  }, signal);
}
