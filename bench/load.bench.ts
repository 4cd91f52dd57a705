/**
 * Load: N event streams (default 200) held open while mixed API traffic runs for a minute, on a
 * `pagewright serve` process of its own (SQLite, WORKER_COUNT=2, a temporary DATA_DIR), so that
 * the server's memory is its own and not the load generator's.
 *
 * Each stream is `POST /api/spaces/default/jobs/{id}/run` of a short job (navigate to the local
 * test site's /table, one snapshot): with 2 slots nearly all of them wait `queued`, each an open
 * HTTP response and a subscription that gets the keep-alive comments, while the 2 executing ones
 * send start, step, log, snapshot and end. A stream that ends is replaced at once, so N stay open
 * for the whole minute. Meanwhile autocannon (worker threads of this process) sends the mixed API
 * traffic, one load per request kind so that each gets its own latency. Memory, the queue and the
 * event loop delay are read from /metrics (METRICS_ALLOW=127.0.0.1) and, on Linux, the memory of
 * the server's process tree (the server and its Chromium) from /proc.
 *
 *   node --import tsx bench/load.bench.ts [--quick]
 *
 * Environment: BENCH_LOAD_SECONDS (default 60; 10 with --quick), BENCH_LOAD_STREAMS (default 200).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startTestSite } from "../test/fixtures/test-site.js";
import { startPagewrightProcess, stopPagewrightProcess } from "../test/helpers/processes.js";
import { ADMIN } from "../test/helpers/server.js";
import { jobBody } from "./api-jobs.bench.js";
import { holdEventStreams } from "./lib/event-streams.js";
import { call, createJobs, login, shorten } from "./lib/http.js";
import { runLoad, stopLoads } from "./lib/load.js";
import {
  type EndpointResult,
  type LoadFigures,
  type LoadSettings,
  loadProblems,
  printLoad,
} from "./lib/load-report.js";
import { parseOptions, USAGE, UsageError } from "./lib/options.js";
import { highestOf, type MemorySample, sampleMemory } from "./lib/server-memory.js";

export { loadProblems, printLoad };

const SLOTS = 2;
const SEEDED_JOBS = 100;
/** Jobs created during the load go to a space of their own: the listed space stays the same size. */
const WRITE_SPACE = "load-writes";

type Endpoint = { label: string; method: "GET" | "POST"; path: string; connections: number; request?: string };

/** BENCH_LOAD_SECONDS (default 60, 10 with --quick) and BENCH_LOAD_STREAMS (default 200). */
export function loadSettings(quick: boolean, env: Record<string, string | undefined>): LoadSettings {
  const read = (name: string, fallback: number, max: number) => {
    const raw = env[name];
    if (raw === undefined || raw === "") return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > max) {
      throw new UsageError(`Invalid ${name} (${JSON.stringify(raw)}): expected a whole number from 1 to ${max}`);
    }
    return Number(raw);
  };
  return { seconds: quick ? 10 : read("BENCH_LOAD_SECONDS", 60, 3600), streams: read("BENCH_LOAD_STREAMS", 200, 5000) };
}

/** The clean-up of a bench still running, for an interrupted run (see stopLoadBench). */
let pendingCleanUp: ((signal: NodeJS.Signals) => Promise<void>) | undefined;

/** Kills the server process of a running load bench and removes its data; for SIGINT/SIGTERM. */
export async function stopLoadBench(): Promise<void> {
  await pendingCleanUp?.("SIGKILL");
}

export async function benchLoad(
  options: LoadSettings & { drain: boolean; log: (line: string) => void },
): Promise<LoadFigures> {
  const { log } = options;
  const steps: Array<(signal: NodeJS.Signals) => Promise<unknown>> = [];
  let cleaning: Promise<void> | undefined;
  const cleanUp = (signal: NodeJS.Signals) => {
    cleaning ??= (async () => {
      for (const step of steps.splice(0).reverse()) await step(signal).catch((error) => console.error(error));
      pendingCleanUp = undefined;
    })();
    return cleaning;
  };
  pendingCleanUp = cleanUp;
  let finished = false;
  try {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "pagewright-bench-load-"));
    steps.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
    const site = await startTestSite();
    steps.push(() => site.stop());
    const starting = startPagewrightProcess("serve", "load", {
      DATA_DIR: dataDir,
      SECRET_KEY: "bench-load-secret-key-0123456789",
      WORKER_COUNT: String(SLOTS),
      METRICS_ALLOW: "127.0.0.1,::1",
      ...(process.env.CHROMIUM_PATH ? { CHROMIUM_PATH: process.env.CHROMIUM_PATH } : {}),
    });
    // An interrupt while the server starts waits for its start, so that the process is not left running.
    steps.push(async (signal) => {
      const started = await starting.catch(() => undefined);
      if (started) await stopPagewrightProcess(started, signal);
    });
    const server = await starting;
    const url = server.url.replace("//localhost:", "//127.0.0.1:");
    const serverPid = server.child.pid ?? 0;
    const cookie = await login(url, ADMIN.username, ADMIN.password);

    const space = await call(url, "POST", "/ui-api/admin/spaces", {
      cookie,
      body: { id: WRITE_SPACE, name: "Load bench writes" },
    });
    if (space.status !== 201) throw new Error(`creating space ${WRITE_SPACE}: ${space.status} ${shorten(space.text)}`);
    await createJobs(url, cookie, SEEDED_JOBS, (i) => jobBody(`Load job ${String(i + 1).padStart(3, "0")}`), {
      concurrency: 20,
      progress: () => {},
    });
    const streamJob = await call(url, "POST", "/api/spaces/default/jobs", {
      cookie,
      body: {
        ...jobBody("Load stream job"),
        cron: null,
        capture: {
          steps: [
            { type: "navigate", url: `${site.url}/table` },
            { type: "snapshot", as: "table", selector: "table" },
          ],
        },
      },
    });
    const jobId = (streamJob.body as { id?: string }).id;
    if (streamJob.status !== 201 || !jobId) throw new Error(`creating the stream job: ${shorten(streamJob.text)}`);
    const endpoints: Endpoint[] = [
      {
        label: "one job",
        method: "GET",
        path: `/api/spaces/default/jobs/${jobId}`,
        request: "GET /api/spaces/default/jobs/{id}",
        connections: 3,
      },
      { label: "health", method: "GET", path: "/guest/api/health", connections: 2 },
      { label: "runs list", method: "GET", path: "/api/spaces/default/runs?limit=50", connections: 2 },
      { label: "jobs list", method: "GET", path: "/api/spaces/default/jobs", connections: 2 },
      { label: "job create", method: "POST", path: `/api/spaces/${WRITE_SPACE}/jobs`, connections: 1 },
    ];
    for (const endpoint of endpoints) {
      const body = endpoint.method === "POST" ? { ...jobBody("Load probe"), name: "Load probe" } : undefined;
      const probe = await call(url, endpoint.method, endpoint.path, { cookie, body });
      if (probe.status >= 300) {
        throw new Error(`${endpoint.label}: ${endpoint.method} ${endpoint.path} answered ${probe.status}`);
      }
    }

    // Warm-up: a few runs to their end, so that Chromium is launched before "before" is read.
    const runPath = `/api/spaces/default/jobs/${jobId}/run`;
    const warm = holdEventStreams({ url, cookie, path: runPath, count: SLOTS * 2, replace: false });
    const warmed = await warm.untilEnded(60_000);
    if (warmed.errors || warmed.ended < SLOTS * 2) {
      throw new Error(`warm-up runs: ${warmed.ended} ended, ${warmed.errors} errors (${warmed.firstError})`);
    }
    log(
      `  server: pagewright serve (pid ${serverPid}), SQLite, WORKER_COUNT=${SLOTS}; ${SEEDED_JOBS} scheduled jobs and the stream job in space default; ` +
        `load average ${os.loadavg()[0].toFixed(2)} on ${os.availableParallelism()} cores`,
    );
    // The same traffic alone first: the baseline, and the API's warm-up (JIT, caches).
    const baselineSeconds = Math.min(10, Math.max(2, Math.round(options.seconds / 6)));
    log(`  mixed API traffic alone for ${baselineSeconds} s (the baseline) …`);
    const alone = await mixedTraffic(url, cookie, endpoints, baselineSeconds);
    // The event loop delay covers the time since the previous scrape: read it over 2 idle seconds.
    await sampleMemory(url, serverPid);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const loadBefore = os.loadavg()[0];
    const before = await sampleMemory(url, serverPid);

    log(`  opening ${options.streams} event streams (${runPath.replace(jobId, "{id}")}) …`);
    const streams = holdEventStreams({ url, cookie, path: runPath, count: options.streams, replace: true });
    await streams.allOpen(60_000);
    log(`  ${options.streams} streams open; mixed API traffic for ${options.seconds} s …`);

    const samples: MemorySample[] = [];
    const sampler = setInterval(() => {
      void sampleMemory(url, serverPid).then(
        (sample) => samples.push(sample),
        () => {},
      );
    }, 2000);
    let loaded: EndpointResult[];
    try {
      loaded = await mixedTraffic(url, cookie, endpoints, options.seconds);
    } finally {
      clearInterval(sampler);
    }
    const streamFigures = await streams.stop();
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const after = await sampleMemory(url, serverPid);
    const loadAfter = os.loadavg()[0];

    let drained: MemorySample | null = null;
    let drainSeconds: number | null = null;
    if (options.drain) {
      log(`  load over; waiting for the ${after.queueDepth ?? "?"} queued runs to finish …`);
      const t0 = performance.now();
      await waitForIdleQueue(url, cookie, 60_000 + options.streams * 3_000);
      drainSeconds = (performance.now() - t0) / 1000;
      await new Promise((resolve) => setTimeout(resolve, 2000));
      drained = await sampleMemory(url, serverPid);
    }

    const logLines = server.output().split("\n");
    const peak = highestOf([before, ...samples, after]);
    finished = true;
    return {
      ...options,
      loadAverage: { before: loadBefore, after: loadAfter },
      eventStreams: streamFigures,
      baselineSeconds,
      endpoints: loaded.map((result, i) => ({ ...result, alone: alone[i].summary })),
      memory: { before, peak, after, drained },
      drainSeconds,
      serverErrors: logLines.filter((line) => /"level":(50|60)/.test(line)),
      serverWarnings: logLines.filter((line) => /"level":40/.test(line)).length,
      jobsCreated: { alone: created(alone), loaded: created(loaded) },
    };
  } finally {
    await stopLoads();
    // A clean stop when all went well (only queued runs remain); on a failure, no grace.
    await cleanUp(finished ? "SIGTERM" : "SIGKILL");
  }
}

/** One autocannon load per endpoint, all at once, each in a worker thread of its own. */
function mixedTraffic(url: string, cookie: string, endpoints: Endpoint[], seconds: number): Promise<EndpointResult[]> {
  return Promise.all(
    endpoints.map(async (e) => ({
      label: e.label,
      request: e.request ?? `${e.method} ${e.path}`,
      connections: e.connections,
      summary: await runLoad({
        url,
        method: e.method,
        path: e.path,
        cookie,
        connections: e.connections,
        seconds,
        // Each POST creates a job of its own name.
        ...(e.method === "POST" ? { body: jobBody("Load created job"), uniqueName: `Load job ${Date.now()}` } : {}),
      }),
    })),
  );
}

/** Jobs that the job-create load made (201 answers). */
const created = (results: EndpointResult[]) =>
  results.filter((e) => e.request.startsWith("POST")).reduce((n, e) => n + (e.summary.statusCodes["201"] ?? 0), 0);

/** Waits until no run of the server is queued or running. */
async function waitForIdleQueue(url: string, cookie: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const counts = await Promise.all(
      ["queued", "running"].map(async (state) => {
        const answer = await call(url, "GET", `/api/spaces/default/runs?state=${state}&limit=1`, { cookie });
        return (answer.body as { items?: unknown[] }).items?.length ?? 1;
      }),
    );
    if (counts[0] === 0 && counts[1] === 0) return;
    if (Date.now() > deadline) throw new Error(`the queue did not drain within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      console.error(`\n${signal}: stopping the server process …`);
      void stopLoads()
        .then(stopLoadBench)
        .finally(() => process.exit(130));
    });
  }
  let code = 0;
  try {
    const options = parseOptions(process.argv.slice(2), process.env);
    if (!options) {
      console.log(USAGE);
    } else {
      const settings = loadSettings(options.quick, process.env);
      console.log(`Load: ${settings.streams} event streams and mixed API traffic for ${settings.seconds} s\n`);
      const figures = await benchLoad({ ...settings, drain: !options.quick, log: console.log });
      printLoad(figures, console.log);
      const problems = loadProblems(figures);
      for (const problem of problems) console.error(`  - ${problem}`);
      if (problems.length) code = 1;
    }
  } catch (error) {
    console.error(error instanceof UsageError ? error.message : error);
    code = error instanceof UsageError ? 2 : 1;
  }
  process.exit(code);
}
