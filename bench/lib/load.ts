import { Worker } from "node:worker_threads";

/** One autocannon run, as plain data so that it can cross into the worker thread. */
export type LoadSpec = {
  url: string;
  method: "GET" | "POST";
  path: string;
  cookie: string;
  connections: number;
  seconds: number;
  /** A JSON body; with `uniqueName`, each request's copy gets a `name` of its own. */
  body?: Record<string, unknown>;
  uniqueName?: string;
};

export type LoadSummary = {
  seconds: number;
  /** Answers received (any status). */
  requests: number;
  requestsPerSecond: number;
  /** Milliseconds. */
  latencyP50: number;
  latencyP99: number;
  latencyAverage: number;
  /** Average bytes of an answer (status line, headers and body). */
  bytesPerAnswer: number;
  non2xx: number;
  /** Connection errors and timeouts. */
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  firstError: string | null;
};

const workers = new Set<Worker>();

/** Ends every load still running (an interrupted run), so that the servers can close. */
export async function stopLoads(): Promise<void> {
  await Promise.all([...workers].map((w) => w.terminate()));
}

/**
 * Runs autocannon in a worker thread, so that the load generator does not compete with the
 * server for this process's event loop (it still competes for the machine's cores).
 */
export function runLoad(spec: LoadSpec): Promise<LoadSummary> {
  const target = new URL("./load-worker.ts", import.meta.url).href;
  // A worker's entry is not run through the `--import tsx` hook on Node 20: load it via tsx's API.
  const tsx = import.meta.resolve("tsx/esm/api");
  const source = `import(${JSON.stringify(tsx)}).then((api) => api.tsImport(${JSON.stringify(target)}, ${JSON.stringify(import.meta.url)}))`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(source, { eval: true, workerData: spec });
    workers.add(worker);
    let settled = false;
    worker.once("message", (message: { summary?: LoadSummary; error?: string }) => {
      settled = true;
      void worker.terminate();
      if (message.summary) resolve(message.summary);
      else reject(new Error(`autocannon failed: ${message.error}`));
    });
    worker.once("error", (error) => {
      settled = true;
      reject(error);
    });
    worker.once("exit", (code) => {
      workers.delete(worker);
      if (!settled) reject(new Error(`the load worker exited (code ${code}) without a result`));
    });
  });
}
