import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/**
 * The process's Prometheus instruments, in a registry of their own: one per app context, never
 * prom-client's global registry, so that several servers in one process (tests, benchmarks) each
 * count only their own work. Modules record into these; `GET /metrics` (metrics.routes.ts) reads
 * the registry. Counters count what this process did since it started; the queue depth is read
 * from the database at each scrape, so every process reports the shared queue.
 */
export type Metrics = ReturnType<typeof createMetrics>;

// Bucket bounds in seconds. A run is a browser session (seconds to minutes, 30 min at most); a
// step is one action (milliseconds to a minute); a due run normally waits less than a second for
// a worker, and minutes when the workers are saturated.
const RUN_BUCKETS = [0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800];
const STEP_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
const QUEUE_WAIT_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 2, 5, 10, 30, 60, 300, 1800];
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createMetrics(options: {
  /** Queued runs now (all processes); read at each scrape. */
  queueDepth: () => Promise<number>;
  /** Told when the queue depth cannot be read; the gauge then shows NaN for that scrape. */
  onCollectError?: (error: unknown) => void;
}) {
  const registry = new Registry();
  // The standard process_* and nodejs_* series, unprefixed: the names dashboards expect.
  collectDefaultMetrics({ register: registry });
  const registers = [registry];

  return {
    registry,
    runsTotal: new Counter({
      name: "pagewright_runs_total",
      help: "Runs finished, by final state and trigger.",
      labelNames: ["state", "trigger"] as const,
      registers,
    }),
    runDuration: new Histogram({
      name: "pagewright_run_duration_seconds",
      help: "Time from a run's start (claimed by a worker) to its end: capture, report and delivery.",
      buckets: RUN_BUCKETS,
      registers,
    }),
    stepDuration: new Histogram({
      name: "pagewright_step_duration_seconds",
      help: "Time of one capture step, by step type.",
      labelNames: ["type"] as const,
      buckets: STEP_BUCKETS,
      registers,
    }),
    queueDepth: new Gauge({
      name: "pagewright_queue_depth",
      help: "Runs waiting in the queue (state queued, retries waiting for their delay included).",
      registers,
      async collect() {
        try {
          this.set(await options.queueDepth());
        } catch (error) {
          options.onCollectError?.(error);
          this.set(Number.NaN);
        }
      },
    }),
    queueWait: new Histogram({
      name: "pagewright_queue_wait_seconds",
      help: "Time a due run waited for a worker: from queued (or the end of its retry delay) to started.",
      buckets: QUEUE_WAIT_BUCKETS,
      registers,
    }),
    deliveriesTotal: new Counter({
      name: "pagewright_deliveries_total",
      help: "Delivery records (one per destination), by interface type and state (sent, failed, throttled).",
      labelNames: ["type", "state"] as const,
      registers,
    }),
    browserLaunches: new Counter({
      name: "pagewright_browser_launches_total",
      help: "Chromium launches by this process (1 in a healthy process; more after crashes).",
      registers,
    }),
    browserCrashes: new Counter({
      name: "pagewright_browser_crashes_total",
      help: "Times Chromium exited while in use (not closed by Pagewright).",
      registers,
    }),
    httpRequests: new Counter({
      name: "pagewright_http_requests_total",
      help: "HTTP requests answered, by route pattern and status code.",
      labelNames: ["route", "status"] as const,
      registers,
    }),
    httpDuration: new Histogram({
      name: "pagewright_http_request_duration_seconds",
      help: "Time to answer an HTTP request (to its last byte, event streams included), by route pattern and status code.",
      labelNames: ["route", "status"] as const,
      buckets: HTTP_BUCKETS,
      registers,
    }),
  };
}
