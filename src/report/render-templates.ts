import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";

/**
 * Runs a report's Liquid off the main thread. A template is user code: a loop of a hundred
 * million turns or a string doubled thirty times must not stall the server's event loop or
 * exhaust its heap. So every field is rendered in a worker thread with a heap limit, all fields
 * of a report share one time budget, and a worker that runs out of either is terminated: the
 * fields it had not finished fail, the server goes on.
 */
export type TemplateField = {
  source: string;
  /** Text blocks: the Liquid output is Markdown, rendered to HTML in the worker too. */
  markdown: boolean;
};

/** `text` is HTML for Markdown fields and the plain Liquid output otherwise. */
export type FieldResult = { ok: true; text: string; images: string[] } | { ok: false; message: string };

export type RenderOptions = {
  /** For every field of the report together. */
  timeoutMs: number;
  /** Liquid output of all fields together. */
  outputBytes: number;
  /** The worker's heap. */
  memoryMb: number;
  imageToken: string;
  signal?: AbortSignal;
};

/** What a worker is started with (its workerData). */
export type WorkerRequest = {
  fields: TemplateField[];
  start: number;
  scope: Record<string, unknown>;
  /** Rendering time left for the report; the worker counts it from when its modules are loaded. */
  budgetMs: number;
  outputBytes: number;
  outputUsed: number;
  /** liquidjs' memory limit: characters and array items one render may allocate. */
  memoryUnits: number;
  imageToken: string;
  timeoutMessage: string;
};

/** From the worker: ready (with its Date.now() deadline), a field's result, or done. */
export type WorkerMessage =
  | { type: "ready"; deadline: number }
  | { type: "result"; index: number; result: FieldResult; outputUsed: number }
  | { type: "done" };

/** A worker that crashes this often in one report is not started again for it. */
const MAX_WORKER_STARTS = 3;
/** Time the worker's own limit gets to answer before the worker is terminated. */
const TERMINATE_GRACE_MS = 100;
/** A worker whose report rendered longer than this is not kept for the next report. */
const KEEP_AFTER_MS = 250;
/** Loading the worker's modules: milliseconds normally, seconds on a machine under load. */
const WORKER_START_TIMEOUT_MS = 30_000;

export async function renderTemplates(
  fields: TemplateField[],
  scope: Record<string, unknown>,
  options: RenderOptions,
): Promise<FieldResult[]> {
  options.signal?.throwIfAborted();
  const results: (FieldResult | undefined)[] = fields.map(() => undefined);
  const timeoutMessage = `template took longer than ${seconds(options.timeoutMs)} s`;
  // The budget is rendering time: starting a worker thread (and, after a crash, another) is
  // the server's cost, not the template's.
  let budgetMs = options.timeoutMs;
  let start = 0;
  let outputUsed = 0;
  let starts = 0;
  let stoppedBecause = timeoutMessage;
  while (start < fields.length && budgetMs > 0) {
    if (++starts > MAX_WORKER_STARTS) {
      stoppedBecause = `not rendered: the template renderer failed ${MAX_WORKER_STARTS} times`;
      break;
    }
    const request: WorkerRequest = {
      fields,
      start,
      scope,
      budgetMs,
      outputBytes: options.outputBytes,
      outputUsed,
      // Strings count a unit a character, arrays a unit an item (8 bytes or more): an eighth
      // of the heap keeps a template's own data well inside it.
      memoryUnits: Math.floor((options.memoryMb * 1024 * 1024) / 8),
      imageToken: options.imageToken,
      timeoutMessage,
    };
    const end = await runWorker(request, options, (index, result, used) => {
      results[index] = result;
      outputUsed = used;
    });
    budgetMs -= end.renderedMs;
    if (end.kind === "aborted") throw options.signal?.reason;
    if (end.kind !== "crashed") break;
    // Fields render in order: the first one without a result is the one that was running.
    const running = results.findIndex((result, index) => index >= start && !result);
    if (running < 0) break;
    results[running] = { ok: false, message: end.message };
    start = running + 1;
  }
  return results.map((result) => result ?? { ok: false, message: stoppedBecause });
}

type WorkerOutcome = { kind: "done" | "timeout" | "aborted" } | { kind: "crashed"; message: string };
/** With the rendering time this worker used of the budget. */
type WorkerEnd = WorkerOutcome & { renderedMs: number };

function runWorker(
  request: WorkerRequest,
  options: RenderOptions,
  onResult: (index: number, result: FieldResult, outputUsed: number) => void,
): Promise<WorkerEnd> {
  return new Promise((resolve) => {
    let ended = false;
    let failure: Error | undefined;
    let readyAt: number | undefined;
    let deadline = Number.POSITIVE_INFINITY;
    const worker = takeWorker(options.memoryMb);
    worker.postMessage(request);
    const finish = (end: WorkerOutcome) => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      // Only this report's listeners: the Worker keeps internal ones of its own.
      worker.off("message", onMessage).off("error", onError).off("exit", onExit);
      const renderedMs = readyAt === undefined ? 0 : Math.min(Date.now(), deadline) - readyAt;
      if (end.kind === "done" && renderedMs < KEEP_AFTER_MS) {
        // A worker that finished a light report serves the next one; after heavy work its heap
        // may be full of garbage, and a fresh one gives the next report its whole memory limit.
        keepWorker(worker, options.memoryMb);
        resolve({ ...end, renderedMs });
        return;
      }
      // Resolved once the thread is gone, so that nothing of a runaway template outlives it.
      void worker.terminate().finally(() => resolve({ ...end, renderedMs }));
    };
    const onAbort = () => finish({ kind: "aborted" });
    let timer = setTimeout(
      () =>
        finish({
          kind: "crashed",
          message: `the template renderer did not start within ${seconds(WORKER_START_TIMEOUT_MS)} s`,
        }),
      WORKER_START_TIMEOUT_MS,
    );
    options.signal?.addEventListener("abort", onAbort, { once: true });
    function onMessage(message: WorkerMessage) {
      if (ended) return;
      if (message.type === "ready") {
        readyAt = Date.now();
        deadline = message.deadline;
        clearTimeout(timer);
        timer = setTimeout(() => finish({ kind: "timeout" }), Math.max(0, deadline - Date.now()) + TERMINATE_GRACE_MS);
      } else if (message.type === "result") {
        onResult(message.index, message.result, message.outputUsed);
      } else {
        finish({ kind: "done" });
      }
    }
    function onError(error: Error) {
      failure = error;
    }
    function onExit() {
      finish({ kind: "crashed", message: crashMessage(failure, options.memoryMb) });
    }
    worker.on("message", onMessage).on("error", onError).on("exit", onExit);
  });
}

function crashMessage(error: Error | undefined, memoryMb: number): string {
  if ((error as NodeJS.ErrnoException | undefined)?.code === "ERR_WORKER_OUT_OF_MEMORY")
    return `template used more than ${memoryMb} MB of memory`;
  return `the template renderer failed: ${error?.message ?? "it stopped without an answer"}`;
}

/** One warm worker kept between reports (per heap size); others are started as needed. */
let idle: { worker: Worker; memoryMb: number; onExit: () => void } | undefined;

function takeWorker(memoryMb: number): Worker {
  if (idle && idle.memoryMb === memoryMb) {
    const { worker, onExit } = idle;
    idle = undefined;
    worker.off("exit", onExit);
    worker.ref();
    return worker;
  }
  return startWorker(memoryMb);
}

function keepWorker(worker: Worker, memoryMb: number) {
  if (idle) {
    void worker.terminate();
    return;
  }
  // An idle worker does not keep the process alive; if it dies while idle, it is forgotten.
  worker.unref();
  const onExit = () => {
    if (idle?.worker === worker) idle = undefined;
  };
  worker.once("exit", onExit);
  idle = { worker, memoryMb, onExit };
}

function startWorker(memoryMb: number): Worker {
  const { url, execArgv } = workerEntry();
  return new Worker(url, {
    execArgv,
    // The worker needs nothing of the server's environment.
    env: {},
    resourceLimits: {
      maxOldGenerationSizeMb: memoryMb,
      maxYoungGenerationSizeMb: Math.max(4, Math.min(16, Math.floor(memoryMb / 4))),
      stackSizeMb: 4,
    },
  });
}

let entry: { url: URL; execArgv: string[] } | undefined;

/**
 * The worker file next to this module: `liquid-worker.js` in the compiled build (dist/report/),
 * else `liquid-worker.ts` when the server runs from its TypeScript sources (vitest, tsx). Node 20
 * does not apply `--import tsx` from a worker's execArgv to the worker's entry module, so a
 * small bootstrap registers tsx's loader first and then imports the .ts file.
 */
function workerEntry(): { url: URL; execArgv: string[] } {
  if (entry) return entry;
  const compiled = new URL("./liquid-worker.js", import.meta.url);
  if (fs.existsSync(fileURLToPath(compiled))) {
    entry = { url: compiled, execArgv: [] };
    return entry;
  }
  const source = new URL("./liquid-worker.ts", import.meta.url);
  const tsx = import.meta.resolve("tsx/esm/api");
  const bootstrap = [
    `const { register } = await import(${JSON.stringify(tsx)});`,
    "register();",
    `await import(${JSON.stringify(source.href)});`,
  ].join("\n");
  entry = { url: new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`), execArgv: [] };
  return entry;
}

const seconds = (ms: number) => String(Math.round(ms / 100) / 10);
