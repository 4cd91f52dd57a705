import { parentPort } from "node:worker_threads";
import { createLiquid } from "../templates/liquid.js";
import { markdownToHtml } from "./markdown-to-html.js";
import type { FieldResult, WorkerMessage, WorkerRequest } from "./render-templates.js";

/**
 * Renders a report's template fields one after the other, in a worker thread started with a
 * heap limit, and posts each result as soon as it has it (a request per report, by message): when the parent stops this worker
 * (time is up, or the heap limit killed it) it keeps every result already posted.
 *
 * liquidjs' own render and memory limits end most runaway templates here with a clean error;
 * the parent's timer and the heap limit catch whatever they miss.
 */
const liquid = createLiquid();
const post = (message: WorkerMessage) => parentPort?.postMessage(message);

// One report after another: the thread stays warm between reports, and is terminated (and
// replaced) only when a report runs out of time or memory.
parentPort?.on("message", (request: WorkerRequest) => {
  // The budget starts now that the modules are loaded: loading them is not the template's time.
  const state = { request, deadline: Date.now() + request.budgetMs, outputUsed: request.outputUsed };
  post({ type: "ready", deadline: state.deadline });
  for (let index = request.start; index < request.fields.length; index++) {
    const field = request.fields[index];
    const result = render(state, field.source, field.markdown);
    post({ type: "result", index, result, outputUsed: state.outputUsed });
  }
  post({ type: "done" });
});

type RenderState = { request: WorkerRequest; deadline: number; outputUsed: number };

function render(state: RenderState, source: string, markdown: boolean): FieldResult {
  const { request } = state;
  const remainingMs = state.deadline - Date.now();
  if (remainingMs <= 0) return { ok: false, message: request.timeoutMessage };
  let text: string;
  try {
    text = String(
      liquid.parseAndRenderSync(source, request.scope, {
        renderLimit: remainingMs,
        memoryLimit: request.memoryUnits,
      }),
    );
  } catch (error) {
    return { ok: false, message: liquidMessage(request, error) };
  }
  state.outputUsed += Buffer.byteLength(text);
  if (state.outputUsed > request.outputBytes)
    return { ok: false, message: `the report's rendered text is larger than ${request.outputBytes / 1024 / 1024} MB` };
  if (!markdown) return { ok: true, text, images: [] };
  const { html, images } = markdownToHtml(text, request.imageToken);
  return { ok: true, text: html, images };
}

function liquidMessage(request: WorkerRequest, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // liquidjs appends the template source and a caret line; the first line says it all.
  const first = message.split("\n")[0];
  if (/render limit exceeded/.test(first)) return request.timeoutMessage;
  if (/memory alloc limit exceeded/.test(first))
    return "Liquid: the template builds more than the memory limit allows (a loop or a string too large)";
  return `Liquid: ${first}`;
}
