import { parentPort, workerData } from "node:worker_threads";
import { createLiquid } from "../templates/liquid.js";
import { markdownToHtml } from "./markdown-to-html.js";
import type { FieldResult, WorkerMessage, WorkerRequest } from "./render-templates.js";

/**
 * Renders a report's template fields one after the other, in a worker thread started with a
 * heap limit, and posts each result as soon as it has it: when the parent stops this worker
 * (time is up, or the heap limit killed it) it keeps every result already posted.
 *
 * liquidjs' own render and memory limits end most runaway templates here with a clean error;
 * the parent's timer and the heap limit catch whatever they miss.
 */
const request = workerData as WorkerRequest;
const liquid = createLiquid();
// The budget starts now that the modules are loaded: loading them is not the template's time.
const deadline = Date.now() + request.budgetMs;
let outputUsed = request.outputUsed;
const post = (message: WorkerMessage) => parentPort?.postMessage(message);

post({ type: "ready", deadline });
for (let index = request.start; index < request.fields.length; index++) {
  const field = request.fields[index];
  const result = render(field.source, field.markdown);
  post({ type: "result", index, result, outputUsed });
}
post({ type: "done" });

function render(source: string, markdown: boolean): FieldResult {
  const remainingMs = deadline - Date.now();
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
    return { ok: false, message: liquidMessage(error) };
  }
  outputUsed += Buffer.byteLength(text);
  if (outputUsed > request.outputBytes)
    return { ok: false, message: `the report's rendered text is larger than ${request.outputBytes / 1024 / 1024} MB` };
  if (!markdown) return { ok: true, text, images: [] };
  const { html, images } = markdownToHtml(text, request.imageToken);
  return { ok: true, text: html, images };
}

function liquidMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // liquidjs appends the template source and a caret line; the first line says it all.
  const first = message.split("\n")[0];
  if (/render limit exceeded/.test(first)) return request.timeoutMessage;
  if (/memory alloc limit exceeded/.test(first))
    return "Liquid: the template builds more than the memory limit allows (a loop or a string too large)";
  return `Liquid: ${first}`;
}
