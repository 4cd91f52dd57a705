/**
 * Health endpoint latency with a large history: 1,000 jobs, 1,000,000 runs and 300,000
 * deliveries, on SQLite and PostgreSQL. The history is made by the database itself (a recursive
 * CTE on SQLite, generate_series on PostgreSQL). It prints the cost of one answer computed from
 * the database (what every request pays after a write), then measures GET /guest/api/health
 * with autocannon (in a worker thread) as a system user over HTTP Basic, anonymously, and as a
 * system user while a run finishes every second (so answers keep being computed anew).
 *
 *   node --import tsx bench/health.bench.ts
 *
 * Environment: BENCH_SECONDS (default 8), BENCH_CONNECTIONS (10), BENCH_RUNS (1000000),
 * BENCH_DATABASE_URL or TEST_DATABASE_URL (PostgreSQL; without either only SQLite runs).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { sql } from "kysely";
import pg from "pg";
import pino from "pino";
import { loadConfig } from "../src/config/config.js";
import { createHealthReader } from "../src/health/health-queries.js";
import { buildHealth, type FullHealth, summarizeHealth } from "../src/health/health-report.js";
import { type RunningServer, startServer } from "../src/server.js";
import { nowIso } from "../src/storage/time.js";

type Dialect = "sqlite" | "postgres";

export type HealthBenchOptions = {
  databases: Dialect[];
  pgUrl?: string;
  log(line: string): void;
  /** Defaults: 1,000 jobs, 1,000,000 runs, 300,000 deliveries, 20 interfaces, 8 s, 10 connections. */
  jobs?: number;
  runs?: number;
  deliveries?: number;
  interfaces?: number;
  seconds?: number;
  connections?: number;
};

export type HealthBenchResult = {
  dialect: Dialect;
  scenario: string;
  requests: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
};

/** The target of the issue: p99 under 50 ms at this scale. */
export const TARGET_P99_MS = 50;

const ADMIN_PASSWORD = crypto.randomBytes(12).toString("hex");
const BASIC = `Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString("base64")}`;

export async function benchHealth(options: HealthBenchOptions): Promise<HealthBenchResult[]> {
  const size = {
    jobs: options.jobs ?? 1000,
    runs: options.runs ?? 1_000_000,
    deliveries: options.deliveries ?? 300_000,
    interfaces: options.interfaces ?? 20,
  };
  const seconds = options.seconds ?? 8;
  const connections = options.connections ?? 10;
  const log = options.log;
  const results: HealthBenchResult[] = [];
  for (const dialect of options.databases) {
    if (dialect === "postgres" && !options.pgUrl) throw new Error("PostgreSQL needs pgUrl");
    const label = dialect === "sqlite" ? "SQLite" : "PostgreSQL";
    log(
      `\n${label}: ${size.jobs.toLocaleString("en-US")} jobs, ${size.runs.toLocaleString("en-US")} runs, ${size.deliveries.toLocaleString("en-US")} deliveries`,
    );
    const server = await startHealthServer(dialect, options.pgUrl);
    try {
      log(`  database: ${server.running.ctx.storage.description}`);
      const seeded = await seed(server.running, size);
      log(`  seeded in ${(seeded.ms / 1000).toFixed(1)} s`);

      const fresh = await timeFreshAnswers(server.running, 30);
      log(
        `  one fresh answer (computed in-process, no cache, 30 times): p50 ${fmt(fresh.p50)} ms, p99 ${fmt(fresh.p99)} ms ` +
          `(${fresh.jobs} jobs, ${fresh.interfaces} interfaces, status ${fresh.status}, ${Math.round(fresh.bytes / 1024)} KB full, ${Math.round(fresh.summaryBytes / 1024)} KB summary)`,
      );
      await warmUp(server.running.url);
      for (const [scenario, authorization, writes] of [
        ["system user (HTTP Basic)", BASIC, false],
        ["anonymous", undefined, false],
        ["system user, runs finishing", BASIC, true],
      ] as const) {
        // "runs finishing": a run finishes every second (1,000 jobs running every 15 minutes or
        // so), and each one makes the next answer a fresh computation.
        const writer = writes ? startWriter(server.running) : undefined;
        const load = await runAutocannon({ url: server.running.url, authorization, seconds, connections }).finally(() =>
          writer?.stop(),
        );
        const result = { dialect, scenario, ...load };
        results.push(result);
        log(
          `  ${scenario.padEnd(29)} ${connections} connections, ${seconds} s: ${Math.round(load.requestsPerSecond)} req/s, ` +
            `p50 ${fmt(load.p50)} ms, p99 ${fmt(load.p99)} ms` +
            `${load.non2xx || load.errors ? ` (${load.non2xx} non-2xx, ${load.errors} errors)` : ""}` +
            `${writer ? `, ${writer.count()} runs written` : ""} ` +
            `→ ${load.p99 < TARGET_P99_MS && !load.non2xx && !load.errors ? "meets" : "MISSES"} the target (p99 < ${TARGET_P99_MS} ms)`,
        );
      }
    } finally {
      await server.stop();
    }
  }
  return results;
}

const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));

/** A server without worker or scheduler (nothing should run), on its own folder / schema. */
async function startHealthServer(dialect: Dialect, pgUrl?: string) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "pagewright-bench-health-"));
  const schema = dialect === "postgres" ? `bench_health_${crypto.randomBytes(5).toString("hex")}` : undefined;
  const admin = async (query: string) => {
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    try {
      await client.query(query);
    } finally {
      await client.end();
    }
  };
  if (schema) await admin(`create schema ${schema}`);
  const clean = async () => {
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (schema) await admin(`drop schema ${schema} cascade`);
  };
  try {
    const config = loadConfig({
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      ADMIN_USERNAME: "admin",
      ADMIN_PASSWORD,
      SECRET_KEY: crypto.randomBytes(24).toString("hex"),
      LOG_LEVEL: "silent",
      ...(dialect === "postgres" ? { DATABASE_URL: pgUrl } : {}),
    });
    const running = await startServer(config, pino({ level: "silent" }), { pgSchema: schema, worker: false });
    return {
      running,
      async stop() {
        const force = setTimeout(() => running.app.server.closeAllConnections(), 2000);
        try {
          await running.stop();
        } finally {
          clearTimeout(force);
          await clean();
        }
      },
    };
  } catch (error) {
    await clean();
    throw error;
  }
}

/**
 * The history, made in the database. Run n belongs to job n mod J and finished n div J steps of
 * 2 hours ago, so each job has a run every 2 hours going back ~83 days (about 360 in the 30-day
 * window). States and triggers vary with n; some jobs always fail, some only ran long ago.
 * Delivery n went through interface n mod I, 8.64 s apart: 10,000 in the last 24 hours.
 */
async function seed(
  server: RunningServer,
  size: { jobs: number; runs: number; deliveries: number; interfaces: number },
) {
  const started = performance.now();
  const { db, dialect } = server.ctx.storage;
  const now = Date.now();

  // Interfaces through the UI API, as an admin makes them (secrets sealed as usual).
  const login = await fetch(`${server.url}/auth/login-local`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "admin", password: ADMIN_PASSWORD }),
  });
  const cookie = login.headers.getSetCookie()[0]?.split(";")[0] ?? "";
  const interfaceIds: string[] = [];
  for (let i = 0; i < size.interfaces; i++) {
    const answer = await fetch(`${server.url}/ui-api/spaces/default/delivery-interfaces`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie },
      body: JSON.stringify({
        name: `Hook ${String(i).padStart(2, "0")}`,
        type: "webhook",
        config: { url: `https://hooks.example.com/${i}` },
      }),
    });
    if (answer.status !== 201) throw new Error(`interface create answered ${answer.status}: ${await answer.text()}`);
    interfaceIds.push(((await answer.json()) as { id: string }).id);
  }

  const jobId = (j: number) => `00000000-0000-4000-8000-${j.toString(16).padStart(12, "0")}`;
  const at = nowIso(new Date(now));
  for (let start = 0; start < size.jobs; start += 200) {
    const rows = [];
    for (let j = start; j < Math.min(start + 200, size.jobs); j++) {
      const body = {
        name: `Bench job ${String(j).padStart(4, "0")}`,
        description: `made by the health benchmark (${j})`,
        enabled: true,
        cron: "0 9 * * 1-5",
        timezone: "UTC",
        capture: { steps: [{ id: crypto.randomUUID(), type: "navigate", url: "https://dash.example.com/" }] },
        deliveries: [],
      };
      rows.push({
        id: jobId(j),
        space_id: "default",
        name: body.name,
        enabled: 1,
        cron: body.cron,
        body: JSON.stringify(body),
        created_at: at,
        updated_at: at,
      });
    }
    await db.insertInto("jobs").values(rows).execute();
  }

  const J = size.jobs;
  const nowSeconds = Math.floor(now / 1000);
  // Expressions shared by both dialects, over n (the row number) and j (its job).
  const state = `case when j % 50 = 0 then 'failed' when n % 17 = 0 then 'failed' when n % 53 = 0 then 'partial'
    when n % 29 = 0 then 'skipped' else 'success' end`;
  const trigger = "case when n % 11 = 0 then 'test' when n % 7 = 0 then 'manual' else 'schedule' end";
  // Jobs j % 97 = 0 ran only long ago (their runs start 40 days back): gray.
  const ageSeconds = `(n / ${J}) * 7200 + case when j % 97 = 0 then 40 * 86400 else 0 end + 60`;

  if (dialect === "sqlite") {
    const iso = (seconds: string) => `strftime('%Y-%m-%dT%H:%M:%fZ', ${seconds}, 'unixepoch')`;
    await sql
      .raw(
        `with recursive seq(n) as (select 0 union all select n + 1 from seq where n < ${size.runs - 1}),
        rows as (select n, n % ${J} as j from seq)
        insert into runs (id, space_id, job_id, job_name, trigger, attempt, retry_of, state, queued_at, not_before,
          started_at, finished_at, duration_ms, error, variables, steps, snapshots, files, deliveries, token, job_body,
          worker, heartbeat_at)
        select printf('10000000-0000-4000-8000-%012x', n), 'default',
          printf('00000000-0000-4000-8000-%012x', j), printf('Bench job %04d', j), ${trigger}, 1, null, ${state},
          ${iso(`${nowSeconds} - (${ageSeconds}) - 30`)}, ${iso(`${nowSeconds} - (${ageSeconds}) - 30`)},
          ${iso(`${nowSeconds} - (${ageSeconds}) - 20`)}, ${iso(`${nowSeconds} - (${ageSeconds})`)}, 20000,
          null, '{}', '[]', '[]', '[]', '[]', printf('token%d', n), null, null, null
        from rows`,
      )
      .execute(db);
    const interfacesList = interfaceIds.map((id, i) => `select ${i} as i, '${id}' as id`).join(" union all ");
    await sql
      .raw(
        `with recursive seq(n) as (select 0 union all select n + 1 from seq where n < ${size.deliveries - 1}),
        ifaces(i, id) as (${interfacesList})
        insert into deliveries (id, run_id, job_id, space_id, interface_id, type, state, error, status, at)
        select printf('20000000-0000-4000-8000-%012x', n), printf('10000000-0000-4000-8000-%012x', n * 3),
          printf('00000000-0000-4000-8000-%012x', (n * 3) % ${J}), 'default', ifaces.id, 'webhook',
          case when n % ${size.interfaces} = 0 or n % 13 = 0 then 'failed' when n % 7 = 0 then 'throttled' else 'sent' end,
          case when n % ${size.interfaces} = 0 or n % 13 = 0 then 'HTTP 500: the receiver failed' else null end,
          case when n % ${size.interfaces} = 0 or n % 13 = 0 then 500 else 200 end,
          strftime('%Y-%m-%dT%H:%M:%fZ', ${nowSeconds} - n * 8.64, 'unixepoch')
        from seq join ifaces on ifaces.i = n % ${size.interfaces}`,
      )
      .execute(db);
  } else {
    const iso = (seconds: string) =>
      `to_char(to_timestamp(${seconds}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
    const hex = (expr: string) => `lpad(to_hex(${expr}), 12, '0')`;
    await sql
      .raw(
        `insert into runs (id, space_id, job_id, job_name, trigger, attempt, retry_of, state, queued_at, not_before,
          started_at, finished_at, duration_ms, error, variables, steps, snapshots, files, deliveries, token, job_body,
          worker, heartbeat_at)
        select '10000000-0000-4000-8000-' || ${hex("n")}, 'default', '00000000-0000-4000-8000-' || ${hex("j")},
          'Bench job ' || lpad(j::text, 4, '0'), ${trigger}, 1, null, ${state},
          ${iso(`${nowSeconds} - (${ageSeconds}) - 30`)}, ${iso(`${nowSeconds} - (${ageSeconds}) - 30`)},
          ${iso(`${nowSeconds} - (${ageSeconds}) - 20`)}, ${iso(`${nowSeconds} - (${ageSeconds})`)}, 20000,
          null, '{}', '[]', '[]', '[]', '[]', 'token' || n, null, null, null
        from (select n, n % ${J} as j from generate_series(0, ${size.runs - 1}) as n) as s`,
      )
      .execute(db);
    await sql
      .raw(
        `insert into deliveries (id, run_id, job_id, space_id, interface_id, type, state, error, status, at)
        select '20000000-0000-4000-8000-' || ${hex("n")}, '10000000-0000-4000-8000-' || ${hex("n * 3")},
          '00000000-0000-4000-8000-' || ${hex(`(n * 3) % ${J}`)}, 'default',
          (array[${interfaceIds.map((id) => `'${id}'`).join(",")}])[n % ${size.interfaces} + 1], 'webhook',
          case when n % ${size.interfaces} = 0 or n % 13 = 0 then 'failed' when n % 7 = 0 then 'throttled' else 'sent' end,
          case when n % ${size.interfaces} = 0 or n % 13 = 0 then 'HTTP 500: the receiver failed' else null end,
          case when n % ${size.interfaces} = 0 or n % 13 = 0 then 500 else 200 end,
          ${iso(`${nowSeconds} - n * 8.64`)}
        from generate_series(0, ${size.deliveries - 1}) as n`,
      )
      .execute(db);
    // What autovacuum would do soon after a bulk load: statistics for the planner.
    await sql`analyze`.execute(db);
  }
  return { ms: performance.now() - started };
}

/** The cost of one answer computed from the database, as after every write. */
async function timeFreshAnswers(server: RunningServer, count: number) {
  const reader = createHealthReader(server.ctx.storage);
  const times: number[] = [];
  let full: FullHealth | undefined;
  let bytes = 0;
  let summaryBytes = 0;
  for (let i = 0; i < count + 3; i++) {
    const started = performance.now();
    full = await buildHealth(reader);
    const text = JSON.stringify(full);
    const summary = JSON.stringify(summarizeHealth(full));
    // The first ones warm up the JIT and read the job descriptions.
    if (i >= 3) times.push(performance.now() - started);
    bytes = text.length;
    summaryBytes = summary.length;
  }
  times.sort((a, b) => a - b);
  const at = (p: number) => times[Math.min(times.length - 1, Math.ceil((p / 100) * times.length) - 1)];
  return {
    p50: at(50),
    p99: at(99),
    jobs: full?.jobs.length ?? 0,
    interfaces: full?.deliveryInterfaces.length ?? 0,
    status: full?.status,
    bytes,
    summaryBytes,
  };
}

/** A few requests of each kind first: the Basic check's scrypt, the JIT, the pool. */
async function warmUp(url: string) {
  for (const authorization of [BASIC, undefined, BASIC]) {
    const answer = await fetch(`${url}/guest/api/health`, { headers: authorization ? { authorization } : {} });
    const text = await answer.text();
    if (answer.status !== 200)
      throw new Error(`GET /guest/api/health answered ${answer.status}: ${text.slice(0, 300)}`);
  }
}

/** Records a finished run every second, as 1,000 jobs on a 15-minute schedule do, until stopped. */
function startWriter(server: RunningServer) {
  let count = 0;
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    const at = nowIso();
    const j = count % 1000;
    void server.ctx.storage.db
      .insertInto("runs")
      .values({
        id: crypto.randomUUID(),
        space_id: "default",
        job_id: `00000000-0000-4000-8000-${j.toString(16).padStart(12, "0")}`,
        job_name: `Bench job ${String(j).padStart(4, "0")}`,
        trigger: "schedule",
        attempt: 1,
        retry_of: null,
        state: count % 3 === 0 ? "failed" : "success",
        queued_at: at,
        not_before: at,
        started_at: at,
        finished_at: at,
        duration_ms: 0,
        error: null,
        variables: "{}",
        steps: "[]",
        snapshots: "[]",
        files: "[]",
        deliveries: "[]",
        token: crypto.randomBytes(12).toString("hex"),
        job_body: null,
        worker: null,
        heartbeat_at: null,
      })
      .execute()
      .then(() => {
        count++;
      })
      .finally(() => {
        busy = false;
      });
  }, 1000);
  return {
    count: () => count,
    stop() {
      clearInterval(timer);
    },
  };
}

/**
 * autocannon in a worker thread, so that the load does not share the server's event loop. The
 * worker is plain JavaScript (no TypeScript hook needed) and keeps every latency to compute the
 * percentiles exactly (autocannon's histogram rounds to whole milliseconds).
 */
function runAutocannon(spec: { url: string; authorization?: string; seconds: number; connections: number }) {
  const autocannonPath = createRequire(import.meta.url).resolve("autocannon");
  const source = `
    const { parentPort, workerData } = require("node:worker_threads");
    const autocannon = require(workerData.autocannonPath);
    const headers = workerData.authorization ? { authorization: workerData.authorization } : {};
    const latencies = [];
    const instance = autocannon({
      url: workerData.url + "/guest/api/health",
      connections: workerData.connections,
      duration: workerData.seconds,
      timeout: 10,
      headers,
    });
    instance.on("response", (_client, _status, _bytes, ms) => latencies.push(ms));
    instance.then(
      (result) => parentPort.postMessage({ result: { duration: result.duration, non2xx: result.non2xx, errors: result.errors }, latencies }),
      (error) => parentPort.postMessage({ error: String(error) }),
    );`;
  return new Promise<Omit<HealthBenchResult, "dialect" | "scenario">>((resolve, reject) => {
    const worker = new Worker(source, { eval: true, workerData: { ...spec, autocannonPath } });
    worker.once(
      "message",
      (message: {
        error?: string;
        result?: { duration: number; non2xx: number; errors: number };
        latencies?: number[];
      }) => {
        void worker.terminate();
        if (!message.result || !message.latencies) return reject(new Error(`autocannon failed: ${message.error}`));
        const sorted = Float64Array.from(message.latencies).sort();
        const at = (p: number) =>
          sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : 0;
        resolve({
          requests: sorted.length,
          requestsPerSecond: message.result.duration > 0 ? sorted.length / message.result.duration : 0,
          p50: at(50),
          p99: at(99),
          non2xx: message.result.non2xx,
          errors: message.result.errors,
        });
      },
    );
    worker.once("error", reject);
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const pgUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;
  const number = (name: string) => (process.env[name] ? Number(process.env[name]) : undefined);
  const results = await benchHealth({
    databases: pgUrl ? ["sqlite", "postgres"] : ["sqlite"],
    pgUrl,
    log: console.log,
    seconds: number("BENCH_SECONDS"),
    connections: number("BENCH_CONNECTIONS"),
    runs: number("BENCH_RUNS"),
  });
  if (!pgUrl) console.log("\nPostgreSQL skipped: neither BENCH_DATABASE_URL nor TEST_DATABASE_URL is set.");
  const missed = results.filter((r) => r.p99 >= TARGET_P99_MS || r.non2xx || r.errors);
  console.log(
    missed.length
      ? `\n${missed.length} of ${results.length} measurements miss the target (p99 < ${TARGET_P99_MS} ms).`
      : `\nEvery measurement meets the target (p99 < ${TARGET_P99_MS} ms).`,
  );
  process.exitCode = missed.length ? 1 : 0;
}
