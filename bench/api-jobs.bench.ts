import type { JobBodyInput } from "../src/schemas/job.js";
import { call, createJobs, shorten } from "./lib/http.js";
import { type LoadSummary, runLoad } from "./lib/load.js";
import type { BenchOptions } from "./lib/options.js";
import type { BenchServer } from "./lib/server.js";

/** The agent API's jobs endpoints against an authenticated baseline, on one running server. */

export type ScenarioKey = "baseline" | "list" | "create";

type Scenario = {
  key: ScenarioKey;
  label: string;
  method: "GET" | "POST";
  path: string;
  body?: JobBodyInput;
  /** Each request's body gets a name of its own (so each creates a distinct job). */
  uniqueName?: string;
  status: number;
  /** What a probe answer must hold besides its status; returns what is wrong, or null. */
  check(body: unknown, jobs: number): string | null;
};

export type ScenarioResult = {
  key: ScenarioKey;
  label: string;
  request: string;
  summary: LoadSummary;
  /** Non-2xx answers or errors during the warm-up, which is not in `summary`. */
  warmupProblem: string | null;
};

/**
 * A daily schedule 12 hours away: each job gets a scheduler timer, as a real one does, but none
 * fires during the run (a thousand captures starting at once would wreck the figures).
 */
const far = new Date(Date.now() + 12 * 60 * 60 * 1000);
const CRON = `${far.getUTCMinutes()} ${far.getUTCHours()} * * *`;

/** A small valid job, like the one a user writes first: three steps, a daily schedule. */
export function jobBody(name: string): JobBodyInput {
  return {
    name,
    description: "made by the benchmark",
    cron: CRON,
    timezone: "UTC",
    capture: {
      steps: [
        { type: "navigate", url: "https://dash.example.com/errors" },
        { type: "extract", as: "errors", selector: "#errors .value", parse: "number" },
        { type: "snapshot", as: "dashboard", fullPage: true },
      ],
    },
  };
}

const SCENARIOS: Scenario[] = [
  {
    key: "baseline",
    label: "baseline",
    method: "GET",
    path: "/api/agent/context",
    status: 200,
    check: (body, jobs) => {
      const usage = (body as { usage?: Record<string, { jobs?: number }> }).usage;
      return usage?.default?.jobs === jobs ? null : `usage.default.jobs is ${usage?.default?.jobs}, not ${jobs}`;
    },
  },
  {
    key: "list",
    label: "jobs list",
    method: "GET",
    path: "/api/spaces/default/jobs",
    status: 200,
    check: (body, jobs) => {
      const items = (body as { items?: unknown[] }).items;
      return items?.length === jobs ? null : `${items?.length ?? "no"} items, not ${jobs}`;
    },
  },
  {
    key: "create",
    label: "job create",
    method: "POST",
    path: "/api/spaces/default/jobs",
    body: jobBody("Bench job"),
    uniqueName: "Bench created job",
    status: 201,
    check: (body) => (typeof (body as { id?: unknown }).id === "string" ? null : "no id in the answer"),
  },
];

export const SCENARIO_ORDER: ScenarioKey[] = SCENARIOS.map((s) => s.key);

/** Creates the jobs, then probes, warms up and measures each scenario in turn. */
export async function benchJobsApi(server: BenchServer, options: BenchOptions): Promise<ScenarioResult[]> {
  await seedJobs(server, options.jobs);

  const results: ScenarioResult[] = [];
  for (const scenario of SCENARIOS) {
    const request = `${scenario.method} ${scenario.path}`;
    process.stdout.write(`  ${scenario.label.padEnd(10)} ${request.padEnd(31)} `);

    // One request first: a wrong status or content stops here with the answer, not after 10 s of 4xx.
    const probe = await call(server.url, scenario.method, scenario.path, {
      cookie: server.cookie,
      body: scenario.body ? { ...scenario.body, name: `${scenario.uniqueName} probe` } : undefined,
    });
    const wrong =
      probe.status !== scenario.status
        ? `answered ${probe.status}, expected ${scenario.status}: ${shorten(probe.text)}`
        : scenario.check(probe.body, options.jobs);
    if (wrong) {
      process.stdout.write("\n");
      throw new Error(`${scenario.label}: the probe request ${request} ${wrong}`);
    }

    const load = {
      url: server.url,
      method: scenario.method,
      path: scenario.path,
      cookie: server.cookie,
      connections: options.connections,
      body: scenario.body,
      uniqueName: scenario.uniqueName,
    };
    const warmup = await runLoad({
      ...load,
      seconds: options.warmupSeconds,
      uniqueName: scenario.uniqueName && `${scenario.uniqueName} warm-up`,
    });
    const summary = await runLoad({ ...load, seconds: options.seconds });
    const warmupProblem =
      warmup.non2xx || warmup.errors
        ? `warm-up: ${warmup.non2xx} non-2xx, ${warmup.errors} errors (${statusList(warmup)})`
        : null;
    process.stdout.write(
      `${Math.round(summary.requestsPerSecond).toLocaleString("en-US").padStart(7)} req/s` +
        `${summary.non2xx || summary.errors ? `  (${summary.non2xx} non-2xx, ${summary.errors} errors)` : ""}\n`,
    );
    results.push({ key: scenario.key, label: scenario.label, request, summary, warmupProblem });
  }
  return results;
}

async function seedJobs(server: BenchServer, count: number): Promise<void> {
  const started = performance.now();
  const tty = process.stdout.isTTY;
  let shown = 0;
  const progress = (done: number) => {
    if (tty) {
      process.stdout.write(`\r  creating ${count} jobs in space default: ${done}/${count}`);
    } else if (done === count || done - shown >= count / 4) {
      shown = done;
      console.log(`  creating ${count} jobs in space default: ${done}/${count}`);
    }
  };
  const width = String(count).length;
  await createJobs(
    server.url,
    server.cookie,
    count,
    (i) => jobBody(`Seeded job ${String(i + 1).padStart(width, "0")}`),
    { concurrency: 50, progress },
  );
  const seconds = (performance.now() - started) / 1000;
  const line = `  created ${count} jobs in ${seconds.toFixed(1)} s (${Math.round(count / seconds)} jobs/s, 50 at a time)`;
  console.log(tty ? `\r${line}`.padEnd(60) : line);
}

export function statusList(summary: LoadSummary): string {
  const codes = Object.entries(summary.statusCodes)
    .map(([code, n]) => `${code}×${n}`)
    .join(", ");
  return [codes, summary.firstError ? `first error: ${summary.firstError}` : ""].filter(Boolean).join("; ");
}
