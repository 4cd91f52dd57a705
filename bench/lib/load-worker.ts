import { parentPort, workerData } from "node:worker_threads";
import autocannon from "autocannon";
import type { LoadSpec, LoadSummary } from "./load.js";

/** Runs in a worker thread (see load.ts): one autocannon run, then its summary to the parent. */

const spec = workerData as LoadSpec;

async function main(): Promise<LoadSummary> {
  const headers: Record<string, string> = { cookie: spec.cookie, accept: "application/json" };
  if (spec.body) headers["content-type"] = "application/json";
  let counter = 0;
  const request: autocannon.Request = { method: spec.method, path: spec.path, headers };
  if (spec.body && spec.uniqueName) {
    const { body, uniqueName } = spec;
    request.setupRequest = (raw) => ({ ...raw, body: JSON.stringify({ ...body, name: `${uniqueName} ${++counter}` }) });
  } else if (spec.body) {
    request.body = JSON.stringify(spec.body);
  }

  let firstError: string | null = null;
  const instance = autocannon({
    url: spec.url,
    connections: spec.connections,
    duration: spec.seconds,
    timeout: 10,
    requests: [request],
  });
  instance.on("reqError", (error: Error) => {
    firstError ??= error.message;
  });
  // autocannon's histogram keeps whole milliseconds; sub-millisecond answers need the raw times.
  const latencies: number[] = [];
  let bytes = 0;
  instance.on("response", (_client: unknown, _status: number, answerBytes: number, ms: number) => {
    latencies.push(ms);
    bytes += answerBytes;
  });
  const result = await instance;
  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count]));
  const sorted = Float64Array.from(latencies).sort();
  const answers = Object.values(statusCodes).reduce((a, b) => a + b, 0);
  return {
    seconds: result.duration,
    requests: answers,
    requestsPerSecond: result.duration > 0 ? answers / result.duration : 0,
    latencyP50: percentile(sorted, 50),
    latencyP99: percentile(sorted, 99),
    latencyAverage: sorted.reduce((a, b) => a + b, 0) / (sorted.length || 1),
    bytesPerAnswer: answers > 0 ? bytes / answers : 0,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes,
    firstError,
  };
}

/** Nearest-rank percentile of sorted values; 0 when there are none. */
function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

main().then(
  (summary) => parentPort?.postMessage({ summary }),
  (error: unknown) => parentPort?.postMessage({ error: error instanceof Error ? error.message : String(error) }),
);
