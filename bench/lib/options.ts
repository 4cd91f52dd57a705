/** Command line and environment of `npm run bench`. */

export type BenchOptions = {
  /** Measured seconds per scenario. */
  seconds: number;
  /** Unmeasured seconds of the same load before each measurement (JIT, caches, pools). */
  warmupSeconds: number;
  connections: number;
  /** Jobs created in space `default` before measuring. */
  jobs: number;
  quick: boolean;
  /** PostgreSQL to benchmark on, or why it is skipped. */
  postgres: { url: string; from: string } | { skipped: string };
};

export class UsageError extends Error {}

export const QUICK_SECONDS = 2;

export const USAGE = `Usage: npm run bench [-- --quick | --help]
       node --import tsx bench/run.ts [--quick | --help]

Benchmarks the agent API on a real server started in this process (port 0, LOG_LEVEL silent, a
temporary DATA_DIR): SQLite always, PostgreSQL when a URL is given (in a fresh schema, dropped at
the end). For each database it logs in as the admin, creates the jobs in space "default" through
the API, then measures with autocannon (run in a worker thread, so it does not share the server's
event loop), each scenario for a fixed time after a short warm-up:

  baseline     GET  /api/agent/context           an authenticated cheap endpoint
  jobs list    GET  /api/spaces/default/jobs     with the created jobs
  job create   POST /api/spaces/default/jobs     a valid body, a new job (and name) per request

It prints requests/s, p50 and p99 latency, errors and non-2xx answers per scenario, each figure as
a ratio to the baseline, and PostgreSQL against SQLite when both ran. It exits 1 when any
scenario got a non-2xx answer or a connection error (a benchmark of refusals measures nothing).

After the API it runs the other sections, each printing its own figures: the health endpoint
with a large history, composing a 10-page report, capture throughput, scale-out, and load.

Scale-out (PostgreSQL only; skipped, saying why, without a URL): on a scratch database beside the
given one it starts \`pagewright web\` and \`pagewright worker\` as OS processes (WORKER_COUNT=2,
one shared DATA_DIR), creates N jobs through the web process (each a snapshot of a local test
page, cron on 1 January), then sends pg-boss the tick of 1 January 2027: one firing of N runs,
executed by 1 worker process; then it starts a second worker and sends the tick of 2028 (each
firing follows one of 8 warm-up jobs, so that every worker has launched its Chromium). It
prints runs/s from the tick to the last run finished, the 2-worker ÷ 1-worker ratio (bounded by
this machine's cores, which all processes share), the tick's pick-up, and each run's queue wait
(started − queued, p50 and p99). Only this section:
  node --import tsx bench/scale.bench.ts [--quick]

Load (last): \`pagewright serve\` as an OS process (SQLite, WORKER_COUNT=2, METRICS_ALLOW=127.0.0.1)
holds 200 event streams open (POST …/jobs/{id}/run of a one-snapshot job of a local test page;
most runs wait queued, a stream that ends is replaced at once) while autocannon sends mixed API
traffic for 60 s, one load per request: one job (3 connections), /guest/api/health, the runs
list (limit 50), the jobs list (100 jobs; 2 each) and job create (1, into a space of its own).
The same traffic runs alone first, for a sixth of the time (2 to 10 s), as the baseline. It
prints the streams (ended, still open, errors, events), req/s, p50 and p99 per request against
the baseline, and the server's memory before, at its highest and after (RSS and heap from
/metrics; with its Chromium from /proc on Linux); without --quick it then waits for the queued
runs to finish and reads the memory again. Stream errors, non-2xx answers, failed runs and
errors in the server's log fail the run. Only this section:
  node --import tsx bench/load.bench.ts [--quick]

Options:
  --quick    ${QUICK_SECONDS} s per scenario (a smoke run); overrides BENCH_SECONDS
  --help     this text

Environment:
  BENCH_SECONDS        measured seconds per scenario (default 10)
  BENCH_CONNECTIONS    concurrent connections of autocannon (default 10)
  BENCH_JOBS           jobs created before measuring (default 1000)
  BENCH_SCALE_RUNS     runs per firing in the scale-out section (default 200; 40 with --quick)
  BENCH_LOAD_SECONDS   seconds of load in the load section (default 60; 10 with --quick)
  BENCH_LOAD_STREAMS   event streams held open in the load section (default 200)
  BENCH_DATABASE_URL   postgres://… to benchmark PostgreSQL on (wins over TEST_DATABASE_URL)
  TEST_DATABASE_URL    used when BENCH_DATABASE_URL is unset; with neither, PostgreSQL is skipped
`;

function positiveInt(env: Record<string, string | undefined>, name: string, fallback: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > max) {
    throw new UsageError(`Invalid ${name} (${JSON.stringify(raw)}): expected a whole number from 1 to ${max}`);
  }
  return Number(raw);
}

/** Returns null for --help. Throws UsageError for an unknown argument or a bad variable. */
export function parseOptions(argv: string[], env: Record<string, string | undefined>): BenchOptions | null {
  let quick = false;
  for (const arg of argv) {
    if (arg === "--help" || arg === "-h") return null;
    if (arg === "--quick") quick = true;
    else throw new UsageError(`Unknown argument: ${arg}`);
  }
  const seconds = quick ? QUICK_SECONDS : positiveInt(env, "BENCH_SECONDS", 10, 3600);
  const connections = positiveInt(env, "BENCH_CONNECTIONS", 10, 1000);
  const jobs = positiveInt(env, "BENCH_JOBS", 1000, 100_000);

  let postgres: BenchOptions["postgres"];
  const from = env.BENCH_DATABASE_URL ? "BENCH_DATABASE_URL" : env.TEST_DATABASE_URL ? "TEST_DATABASE_URL" : undefined;
  if (from) {
    const url = env[from] as string;
    if (!/^postgres(ql)?:\/\//.test(url)) {
      throw new UsageError(`Invalid ${from}: expected a postgres:// URL`);
    }
    postgres = { url, from };
  } else {
    postgres = { skipped: "neither BENCH_DATABASE_URL nor TEST_DATABASE_URL is set" };
  }
  return { seconds, warmupSeconds: quick ? 0.5 : 1, connections, jobs, quick, postgres };
}

/** A URL as it may be printed: without its password. */
export function shownUrl(url: string): string {
  try {
    const shown = new URL(url);
    if (shown.password) shown.password = "***";
    return shown.toString();
  } catch {
    return "(unparsable URL)";
  }
}
