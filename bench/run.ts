/**
 * `npm run bench`: the agent API's jobs endpoints on a real server, on SQLite and (when a URL is
 * given) PostgreSQL, against an authenticated baseline. `--help` explains the options.
 */
import os from "node:os";
import { VERSION } from "../src/version.js";
import { benchJobsApi, SCENARIO_ORDER, type ScenarioResult, statusList } from "./api-jobs.bench.js";
import { benchCapture, printCapture } from "./capture.bench.js";
import { benchHealth } from "./health.bench.js";
import { stopLoads } from "./lib/load.js";
import { type BenchOptions, parseOptions, shownUrl, USAGE, UsageError } from "./lib/options.js";
import { integer, kilobytes, ms, ratio, table } from "./lib/report.js";
import { type BenchServer, DIALECT_LABEL, type Dialect, startBenchServer, stopAll } from "./lib/server.js";
import { benchLoad, loadProblems, loadSettings, printLoad, stopLoadBench } from "./load.bench.js";
import { benchReport } from "./report.bench.js";
import { benchScale, printScale, scaleProblems, scaleRuns, stopScale } from "./scale.bench.js";

const SCENARIO_COUNT = SCENARIO_ORDER.length;

/** Set on SIGINT/SIGTERM: the handler cleans up and exits; main() stops reporting. */
let interrupted = false;

function printHeader(options: BenchOptions, dialects: Dialect[]) {
  const cpus = os.cpus();
  const model = cpus[0]?.model.trim() ?? "unknown CPU";
  const perDatabase = SCENARIO_COUNT * (options.seconds + options.warmupSeconds);
  console.log(`Pagewright ${VERSION} benchmark: agent API, jobs`);
  console.log(
    table(
      [
        { title: "", align: "left" },
        { title: "", align: "left" },
      ],
      [
        ["machine", `${os.availableParallelism()} cores (${model}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GB RAM`],
        ["system", `${os.type()} ${os.release()} ${os.arch()}, load average ${os.loadavg()[0].toFixed(2)}`],
        ["node", process.version],
        [
          "parameters",
          `${options.seconds} s per scenario after a ${options.warmupSeconds} s warm-up${options.quick ? " (--quick)" : ""}, ` +
            `${options.connections} connections, ${options.jobs} jobs in space default`,
        ],
        ["load", "autocannon in a worker thread of this process; server, load and database share the machine"],
        [
          "databases",
          dialects.length === 2 && "url" in options.postgres
            ? `SQLite; PostgreSQL from ${options.postgres.from} (${shownUrl(options.postgres.url)})`
            : "SQLite",
        ],
        ["expected", `about ${Math.ceil(perDatabase * dialects.length)} s of load plus set-up`],
      ],
    )
      .split("\n")
      .slice(2)
      .join("\n"),
  );
  const load = os.loadavg()[0];
  if (load > os.availableParallelism() / 2) {
    console.log(
      `  warning: the machine is busy (load average ${load.toFixed(2)} on ${os.availableParallelism()} cores): ` +
        "figures will be noisy; compare runs made on a quiet machine",
    );
  }
  if ("skipped" in options.postgres) {
    console.log(`  PostgreSQL skipped: ${options.postgres.skipped}.`);
  }
}

function printResults(results: ScenarioResult[]) {
  const base = results.find((r) => r.key === "baseline")?.summary;
  if (!base) return;
  const rows = results.map(({ label, request, summary: s }) => [
    label,
    request,
    integer(s.requestsPerSecond),
    ratio(s.requestsPerSecond, base.requestsPerSecond),
    ms(s.latencyP50),
    ratio(s.latencyP50, base.latencyP50),
    ms(s.latencyP99),
    ratio(s.latencyP99, base.latencyP99),
    kilobytes(s.bytesPerAnswer),
    integer(s.requests),
    integer(s.non2xx),
    integer(s.errors),
  ]);
  console.log();
  console.log(
    table(
      [
        { title: "scenario", align: "left" },
        { title: "request", align: "left" },
        { title: "req/s" },
        { title: "×base" },
        { title: "p50 ms" },
        { title: "×base" },
        { title: "p99 ms" },
        { title: "×base" },
        { title: "KB/answer" },
        { title: "answers" },
        { title: "non-2xx" },
        { title: "errors" },
      ],
      rows,
    ),
  );
  console.log();
  for (const { label, summary: s } of results.filter((r) => r.key !== "baseline")) {
    console.log(
      `  ${label}: ${ratio(s.requestsPerSecond, base.requestsPerSecond)} baseline req/s, ` +
        `p50 ${ratio(s.latencyP50, base.latencyP50)}, p99 ${ratio(s.latencyP99, base.latencyP99)} baseline latency`,
    );
  }
}

function printComparison(sqlite: ScenarioResult[], postgres: ScenarioResult[]) {
  const rows: string[][] = [];
  for (const key of SCENARIO_ORDER) {
    const a = sqlite.find((r) => r.key === key);
    const b = postgres.find((r) => r.key === key);
    if (!a || !b) continue;
    rows.push([
      a.label,
      `${integer(a.summary.requestsPerSecond)} → ${integer(b.summary.requestsPerSecond)}`,
      ratio(b.summary.requestsPerSecond, a.summary.requestsPerSecond),
      `${ms(a.summary.latencyP50)} → ${ms(b.summary.latencyP50)}`,
      ratio(b.summary.latencyP50, a.summary.latencyP50),
      `${ms(a.summary.latencyP99)} → ${ms(b.summary.latencyP99)}`,
      ratio(b.summary.latencyP99, a.summary.latencyP99),
    ]);
  }
  console.log("\nPostgreSQL vs SQLite (PostgreSQL ÷ SQLite: req/s below 1× or latency above 1× = PostgreSQL slower)\n");
  console.log(
    table(
      [
        { title: "scenario", align: "left" },
        { title: "req/s SQLite → PG" },
        { title: "ratio" },
        { title: "p50 ms SQLite → PG" },
        { title: "ratio" },
        { title: "p99 ms SQLite → PG" },
        { title: "ratio" },
      ],
      rows,
    ),
  );
}

/** Scenarios whose figures measured refusals or broken connections: the run fails. */
function problemsOf(label: string, results: ScenarioResult[]): string[] {
  const problems: string[] = [];
  for (const r of results) {
    if (r.summary.non2xx || r.summary.errors) {
      problems.push(
        `${label} ${r.label}: ${r.summary.non2xx} non-2xx answers, ${r.summary.errors} errors ` +
          `(${r.summary.timeouts} timeouts) of ${r.summary.requests} (${statusList(r.summary)})`,
      );
    }
    if (r.warmupProblem) problems.push(`${label} ${r.label}: ${r.warmupProblem}`);
  }
  return problems;
}

async function main(): Promise<number> {
  let options: BenchOptions | null;
  try {
    options = parseOptions(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${error.message}\nRun with --help for the options and environment variables.`);
    return 2;
  }
  if (!options) {
    console.log(USAGE);
    return 0;
  }

  const started = performance.now();
  const dialects: Dialect[] = "url" in options.postgres ? ["sqlite", "postgres"] : ["sqlite"];
  printHeader(options, dialects);

  const results = new Map<Dialect, ScenarioResult[]>();
  const problems: string[] = [];
  let refusals = 0;
  for (const dialect of dialects) {
    const label = DIALECT_LABEL[dialect];
    console.log(`\n${label}\n`);
    let server: BenchServer | undefined;
    try {
      server = await startBenchServer(dialect, "url" in options.postgres ? options.postgres.url : undefined);
      console.log(`  database: ${server.description}`);
      const measured = await benchJobsApi(server, options);
      results.set(dialect, measured);
      printResults(measured);
      const refused = problemsOf(label, measured);
      refusals += refused.length;
      problems.push(...refused);
    } catch (error) {
      if (interrupted) break;
      const message = error instanceof Error ? error.message : String(error);
      console.error(`  ${label} failed: ${message}`);
      problems.push(`${label}: ${message}`);
    } finally {
      try {
        await server?.stop();
      } catch (error) {
        console.error(`  ${label}: stopping the server or removing its data failed:`, error);
        problems.push(`${label}: clean-up failed`);
      }
    }
  }

  if (interrupted) return 130;

  const sqlite = results.get("sqlite");
  const postgres = results.get("postgres");
  if (sqlite && postgres) printComparison(sqlite, postgres);

  // Health: the endpoint with 1,000 jobs and 1,000,000 runs (a tenth of that with --quick).
  console.log("\nHealth endpoint\n");
  try {
    await benchHealth({
      databases: dialects,
      pgUrl: "url" in options.postgres ? options.postgres.url : undefined,
      log: (line) => console.log(line),
      ...(options.quick ? { runs: 100_000, deliveries: 30_000, seconds: 2 } : {}),
    });
  } catch (error) {
    if (interrupted) return 130;
    problems.push(`health: ${error instanceof Error ? error.message : String(error)}`);
  }

  // Reports: composing a 10-page report (Liquid, HTML, PDF) with a warm browser.
  console.log("\nReports: a 10-page report\n");
  try {
    await benchReport((line) => console.log(line));
  } catch (error) {
    if (interrupted) return 130;
    problems.push(`reports: ${error instanceof Error ? error.message : String(error)}`);
  }

  // Captures: Pagewright against a browser per capture and a warm context, in the same run.
  const runs = options.quick ? 10 : Number(process.env.BENCH_RUNS ?? 50);
  console.log(`\nCaptures: ${runs} one-page snapshot runs, 2 at a time\n`);
  try {
    printCapture(await benchCapture({ runs, workers: 2, log: (line) => console.log(line) }), (line) =>
      console.log(line),
    );
  } catch (error) {
    if (interrupted) return 130;
    problems.push(`captures: ${error instanceof Error ? error.message : String(error)}`);
  }

  // Scale-out: one firing of N runs on 1, then 2 worker processes (needs PostgreSQL).
  console.log("\nScale-out: worker processes on PostgreSQL\n");
  if ("skipped" in options.postgres) {
    console.log(`  skipped: ${options.postgres.skipped}.`);
  } else {
    try {
      const scale = await benchScale({
        databaseUrl: options.postgres.url,
        runs: scaleRuns(options.quick, process.env),
        log: (line) => console.log(line),
      });
      printScale(scale, (line) => console.log(line));
      problems.push(...scaleProblems(scale));
    } catch (error) {
      if (interrupted) return 130;
      problems.push(`scale-out: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  // Load: event streams held open under mixed API traffic, on a server process of its own.
  try {
    const settings = loadSettings(options.quick, process.env);
    console.log(`\nLoad: ${settings.streams} event streams and mixed API traffic for ${settings.seconds} s\n`);
    const load = await benchLoad({ ...settings, drain: !options.quick, log: (line) => console.log(line) });
    printLoad(load, (line) => console.log(line));
    problems.push(...loadProblems(load));
  } catch (error) {
    if (interrupted) return 130;
    problems.push(`load: ${error instanceof Error ? error.message : String(error)}`);
  }

  const total = ((performance.now() - started) / 1000).toFixed(0);
  if (problems.length) {
    console.error(`\nFAILED after ${total} s:`);
    for (const problem of problems) console.error(`  - ${problem}`);
    if (refusals)
      console.error("Figures that include refused or failed requests measure nothing: fix the cause first.");
    return 1;
  }
  console.log(`\nDone in ${total} s; every answer was 2xx.`);
  return 0;
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    interrupted = true;
    console.error(`\n${signal}: stopping the servers and removing their data …`);
    void stopLoads()
      .then(stopAll)
      .then(stopScale)
      .then(stopLoadBench)
      .finally(() => {
        console.error("stopped.");
        process.exit(130);
      });
  });
}

main().then(
  (code) => {
    process.exitCode = code;
    // Everything is closed by now; should a stray handle remain, do not hang on it.
    setTimeout(() => process.exit(code), 2000).unref();
  },
  async (error: unknown) => {
    console.error(error);
    await stopLoads();
    await stopAll();
    await stopScale();
    await stopLoadBench();
    process.exit(1);
  },
);
