/**
 * Scale-out: one firing of N scheduled jobs (default 200) executed by one `pagewright worker`
 * process, then the same firing size by two, each process with WORKER_COUNT=2, beside one
 * `pagewright web` process, on a scratch PostgreSQL database. The bench plays the cluster's clock
 * as test/scale/scale-out.test.ts does: it sends pg-boss the tick of a chosen minute at which every
 * job's cron ("0 0 1 1 *") fires. It prints runs per second from the tick to the last run
 * finished, how long the tick took to be picked up and to record the runs, how long each run
 * waited in the queue (started − queued, p50 and p99) and the ratio of the two throughputs.
 *
 *   node --import tsx bench/scale.bench.ts [--quick]
 *
 * Environment: BENCH_SCALE_RUNS (default 200; 40 with --quick), BENCH_DATABASE_URL or
 * TEST_DATABASE_URL (without either the section is skipped).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import PgBoss from "pg-boss";
import { TICK_QUEUE } from "../src/scheduler/cluster-scheduler.js";
import { startTestSite } from "../test/fixtures/test-site.js";
import { Client } from "../test/helpers/client.js";
import {
  type PagewrightProcess,
  scratchDatabase,
  startPagewrightProcess,
  stopPagewrightProcess,
} from "../test/helpers/processes.js";
import { ADMIN } from "../test/helpers/server.js";
import { parseOptions, USAGE, UsageError } from "./lib/options.js";
import { ms, ratio, table } from "./lib/report.js";

const SLOTS_PER_WORKER = 2;
const SECRET = "bench-scale-secret-key-0123456789";
/** Every job fires on the 1st of January only: the real clock adds no runs while measuring. */
const CRON = "0 0 1 1 *";
/** The warm-up jobs fire on the 2nd of January: their firings never mix with the measured ones. */
const WARMUP_CRON = "0 0 2 1 *";
const WARMUP_JOBS = 8;
const ROUNDS = [
  { workers: 1, at: "2027-01-01T00:00:00.000Z", warmupAt: "2026-01-02T00:00:00.000Z" },
  { workers: 2, at: "2028-01-01T00:00:00.000Z", warmupAt: "2027-01-02T00:00:00.000Z" },
];

export type ScaleFigures = {
  workers: number;
  runs: number;
  /** From sending the tick to the last run finished. */
  seconds: number;
  runsPerSecond: number;
  /** From sending the tick to the first run queued: the tick's pick-up. */
  pickupMs: number;
  /** From the first run queued to the last: the tick recording the firing, job by job. */
  queueingMs: number;
  waitP50: number;
  waitP99: number;
  /** Finished − started of each run: its own time, which grows when the slots share few cores. */
  runP50: number;
  /** The capture steps' own time (navigate, snapshot) of a run; the rest of runP50 is the pipeline's. */
  stepsP50: number;
  /** Runs taken by each worker process, in start order. */
  perWorker: number[];
  failed: number;
  firstError?: string;
};

type RunRow = {
  state: string;
  worker: string | null;
  queued_at: string;
  started_at: string | null;
  finished_at: string | null;
  error: string | null;
  steps: string;
};

/** N from BENCH_SCALE_RUNS (default 200), 40 with --quick. */
export function scaleRuns(quick: boolean, env: Record<string, string | undefined>): number {
  if (quick) return 40;
  const raw = env.BENCH_SCALE_RUNS;
  if (raw === undefined || raw === "") return 200;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 5000) {
    throw new UsageError(`Invalid BENCH_SCALE_RUNS (${JSON.stringify(raw)}): expected a whole number from 1 to 5000`);
  }
  return Number(raw);
}

/** The clean-up of a bench still running, for an interrupted run (see stopScale). */
let pendingCleanUp: ((signal: NodeJS.Signals) => Promise<void>) | undefined;

/** Kills the processes of a running scale bench and drops its database; for SIGINT/SIGTERM. */
export async function stopScale(): Promise<void> {
  await pendingCleanUp?.("SIGKILL");
}

export async function benchScale(options: {
  databaseUrl: string;
  runs: number;
  log: (line: string) => void;
}): Promise<ScaleFigures[]> {
  const { log, runs } = options;
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
    const scratch = await scratchDatabase(options.databaseUrl, "pw_bench_scale");
    steps.push(() => scratch.drop());
    // One DATA_DIR for all processes: on one machine the local file store is shared storage.
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "pagewright-bench-scale-"));
    steps.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
    const site = await startTestSite();
    steps.push(() => site.stop());

    const processes: PagewrightProcess[] = [];
    steps.push((signal) => Promise.all(processes.map((p) => stopPagewrightProcess(p, signal))));
    const start = async (role: "web" | "worker", name: string) => {
      // LOG_LEVEL info: the helper waits for the start-up line, logged at info.
      const started = await startPagewrightProcess(role, name, {
        DATABASE_URL: scratch.url,
        DATA_DIR: dataDir,
        SECRET_KEY: SECRET,
        WORKER_COUNT: String(SLOTS_PER_WORKER),
        ...(process.env.CHROMIUM_PATH ? { CHROMIUM_PATH: process.env.CHROMIUM_PATH } : {}),
      });
      processes.push(started);
      return started;
    };
    // The web process first: it applies the migrations and makes the admin.
    const web = await start("web", "web");
    const workers = [await start("worker", "worker-1")];

    const db = new pg.Client({ connectionString: scratch.url });
    await db.connect();
    steps.push(() => db.end());
    const boss = new PgBoss({ connectionString: scratch.url, schema: "pgboss", supervise: false, schedule: false });
    boss.on("error", (error) => console.error("  pg-boss:", error));
    await boss.start();
    steps.push(() => boss.stop({ graceful: false, wait: true }));

    const api = new Client(web.url);
    await api.login(ADMIN.username, ADMIN.password);
    const t0 = performance.now();
    await createJobs(api, runs, CRON, `${site.url}/table`);
    await createJobs(api, WARMUP_JOBS, WARMUP_CRON, `${site.url}/table`);
    log(
      `  ${runs} jobs created through the web process in ${ms(performance.now() - t0)} ms; ` +
        `load average ${os.loadavg()[0].toFixed(2)} on ${os.availableParallelism()} cores`,
    );

    const results: ScaleFigures[] = [];
    for (const round of ROUNDS) {
      while (workers.length < round.workers) workers.push(await start("worker", `worker-${workers.length + 1}`));
      // Each worker launches its Chromium on its first run; a firing of the warm-up jobs makes
      // every process launch it before it is measured, as in a service that has been running.
      const warm = await fire(db, boss, round.warmupAt, WARMUP_JOBS);
      if (warm.failed) throw new Error(`warm-up: ${warm.failed} runs failed: ${warm.firstError}`);
      const pids = workers.map((w) => String(w.child.pid));
      const runsOf = (rows: RunRow[], pid: string) => rows.filter((r) => r.worker?.split(":")[1] === pid).length;
      const cold = workers.filter((_, i) => runsOf(warm.rows, pids[i]) === 0).map((w) => w.name);
      if (cold.length) log(`  note: ${cold.join(", ")} took no warm-up run: it launches Chromium while measured`);
      log(
        `  ${round.workers} worker process${round.workers > 1 ? "es" : ""} × WORKER_COUNT=${SLOTS_PER_WORKER}: ` +
          `one firing of ${runs} runs …`,
      );
      const { rows, ...firing } = await fire(db, boss, round.at, runs);
      results.push({ workers: round.workers, ...firing, perWorker: pids.map((pid) => runsOf(rows, pid)) });
    }
    finished = true;
    return results;
  } finally {
    // A clean stop when all went well (nothing runs); on a failure, no grace for running runs.
    await cleanUp(finished ? "SIGTERM" : "SIGKILL");
  }
}

async function createJobs(api: Client, count: number, cron: string, url: string) {
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < count) {
        const i = next++;
        const created = await api.post("/api/spaces/default/jobs", {
          name: `Scale ${cron === CRON ? "" : "warm-up "}${String(i).padStart(4, "0")}`,
          cron,
          timezone: "UTC",
          capture: {
            steps: [
              { type: "navigate", url },
              { type: "snapshot", as: "table", selector: "table" },
            ],
          },
        });
        if (created.status !== 201) throw new Error(`job create failed: ${created.status} ${created.text}`);
      }
    }),
  );
}

/** Sends the tick of `at`, waits for its `count` runs to finish and measures them. */
async function fire(db: pg.Client, boss: PgBoss, at: string, count: number) {
  const sent = Date.now();
  await boss.send(TICK_QUEUE, { at });
  const deadline = sent + Math.max(120_000, count * 5_000);
  for (;;) {
    const { rows } = await db.query<{ total: string; open: string }>(
      "select count(*) as total, count(*) filter (where state in ('queued', 'running')) as open " +
        "from runs where scheduled_for = $1",
      [at],
    );
    if (Number(rows[0].total) >= count && Number(rows[0].open) === 0) break;
    if (Date.now() > deadline) {
      throw new Error(`the firing of ${at}: ${rows[0].total} of ${count} runs recorded, ${rows[0].open} not finished`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const { rows } = await db.query<RunRow>(
    "select state, worker, queued_at, started_at, finished_at, error, steps from runs where scheduled_for = $1",
    [at],
  );
  const time = (iso: string | null) => (iso ? Date.parse(iso) : Number.NaN);
  const queued = rows.map((r) => time(r.queued_at));
  const lastFinished = Math.max(...rows.map((r) => time(r.finished_at)));
  const failed = rows.filter((r) => r.state !== "success");
  const waits = rows.map((r) => time(r.started_at) - time(r.queued_at));
  const seconds = (lastFinished - sent) / 1000;
  return {
    rows,
    runs: rows.length,
    seconds,
    runsPerSecond: rows.length / seconds,
    pickupMs: Math.min(...queued) - sent,
    queueingMs: Math.max(...queued) - Math.min(...queued),
    waitP50: percentile(waits, 50),
    waitP99: percentile(waits, 99),
    runP50: percentile(
      rows.map((r) => time(r.finished_at) - time(r.started_at)),
      50,
    ),
    stepsP50: percentile(
      rows.map((r) => (JSON.parse(r.steps) as { ms: number | null }[]).reduce((sum, step) => sum + (step.ms ?? 0), 0)),
      50,
    ),
    failed: failed.length,
    firstError: failed[0] ? `${failed[0].state}: ${failed[0].error ?? "no error recorded"}` : undefined,
  };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

export function printScale(results: ScaleFigures[], log: (line: string) => void) {
  const base = results[0];
  log("");
  log(
    table(
      [
        { title: "workers", align: "left" },
        { title: "runs" },
        { title: "seconds" },
        { title: "runs/s" },
        { title: "×1 worker" },
        { title: "tick pick-up ms" },
        { title: "recording ms" },
        { title: "wait p50 ms" },
        { title: "wait p99 ms" },
        { title: "run p50 ms" },
        { title: "steps p50 ms" },
        { title: "runs per process", align: "left" },
        { title: "failed" },
      ],
      results.map((r) => [
        `${r.workers} × ${SLOTS_PER_WORKER} slots`,
        String(r.runs),
        r.seconds.toFixed(1),
        r.runsPerSecond.toFixed(2),
        ratio(r.runsPerSecond, base.runsPerSecond),
        ms(r.pickupMs),
        ms(r.queueingMs),
        ms(r.waitP50),
        ms(r.waitP99),
        ms(r.runP50),
        ms(r.stepsP50),
        r.perWorker.join(" + "),
        String(r.failed),
      ]),
    ),
  );
  log("");
  const last = results[results.length - 1];
  if (last !== base) {
    log(
      `  ${last.workers} workers ÷ 1 worker: ${ratio(last.runsPerSecond, base.runsPerSecond)} throughput, ` +
        `queue wait p50 ${ratio(last.waitP50, base.waitP50)}, run time p50 ${ratio(last.runP50, base.runP50)}`,
    );
  }
  log(
    `  The ratio is bounded by this machine: ${os.availableParallelism()} cores shared by every worker process and ` +
      "its Chromium, the web process, PostgreSQL, the test site and this script.",
  );
  log(
    "  run = claimed → recorded; steps = navigate + snapshot as the capture engine timed them; the rest is " +
      "the fresh browser context, the HTML report, the files and the records.",
  );
  log(
    "  All runs are queued at once, so a run's queue wait is mostly the backlog ahead of it (p50 ≈ half the drain time).",
  );
  for (const r of results) {
    if (r.failed) log(`  ${r.workers} worker(s): ${r.failed} runs failed; first: ${r.firstError}`);
  }
}

/** The failures to report (the run exits 1): a firing whose runs did not all succeed. */
export function scaleProblems(results: ScaleFigures[]): string[] {
  return results
    .filter((r) => r.failed)
    .map((r) => `scale-out, ${r.workers} worker(s): ${r.failed} of ${r.runs} runs failed (${r.firstError})`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      console.error(`\n${signal}: stopping the processes and dropping the database …`);
      void stopScale().finally(() => process.exit(130));
    });
  }
  let code = 0;
  try {
    const options = parseOptions(process.argv.slice(2), process.env);
    if (!options) {
      console.log(USAGE);
    } else if ("skipped" in options.postgres) {
      console.log(`Scale-out skipped: ${options.postgres.skipped}.`);
    } else {
      const runs = scaleRuns(options.quick, process.env);
      console.log(`Scale-out: ${runs} snapshot runs, 1 then 2 worker processes\n`);
      const results = await benchScale({ databaseUrl: options.postgres.url, runs, log: console.log });
      printScale(results, console.log);
      const problems = scaleProblems(results);
      for (const problem of problems) console.error(`  - ${problem}`);
      if (problems.length) code = 1;
    }
  } catch (error) {
    console.error(error instanceof UsageError ? error.message : error);
    code = error instanceof UsageError ? 2 : 1;
  }
  process.exit(code);
}
