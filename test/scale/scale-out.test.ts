import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import PgBoss from "pg-boss";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TICK_QUEUE } from "../../src/scheduler/cluster-scheduler.js";
import { startS3Receiver } from "../fixtures/receivers.js";
import { startTestSite, type TestSite } from "../fixtures/test-site.js";
import { Client } from "../helpers/client.js";
import { jobBody } from "../helpers/factories.js";
import {
  type PagewrightProcess,
  scratchDatabase,
  startPagewrightProcess,
  stopPagewrightProcess,
} from "../helpers/processes.js";
import { ADMIN, notePostgresSkip, TEST_DATABASE_URL } from "../helpers/server.js";
import { postStream } from "../helpers/sse.js";

/**
 * Scale-out as operators run it: one `pagewright web` and two `pagewright worker` processes
 * (separate OS processes) on a PostgreSQL database of their own, files in an S3 bucket (s3rver).
 * The cluster's clock is pg-boss's minute tick; the test plays the clock by sending ticks for
 * chosen minutes itself (each twice, as a clock that stutters would), so that a dozen "minutes"
 * pass in seconds. The jobs' crons fire on the 1st of January only, so the real clock adds none.
 */
notePostgresSkip();

type Proc = PagewrightProcess;

const SECRET = "scale-test-secret-key-0123456789";

async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe.skipIf(!TEST_DATABASE_URL)("one web and two worker processes on PostgreSQL", () => {
  let scratch: Awaited<ReturnType<typeof scratchDatabase>>;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "pagewright-scale-"));
  let databaseUrl: string;
  let s3: Awaited<ReturnType<typeof startS3Receiver>>;
  let site: TestSite;
  let web: Proc;
  const workers: Proc[] = [];
  let api: Client;
  let db: pg.Client;
  let boss: PgBoss;

  const start = (role: "web" | "worker", name: string) =>
    startPagewrightProcess(role, name, {
      DATABASE_URL: databaseUrl,
      FILES_URL: "s3://scale/files",
      S3_ENDPOINT: s3.endpoint,
      S3_ACCESS_KEY_ID: s3.credentials.accessKeyId,
      S3_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
      DATA_DIR: path.join(dataDir, name),
      SECRET_KEY: SECRET,
      WORKER_COUNT: "2",
      RUN_STALE_SECONDS: "15",
    });
  const stopProc = stopPagewrightProcess;

  beforeAll(async () => {
    scratch = await scratchDatabase(TEST_DATABASE_URL ?? "", "pw_scale");
    databaseUrl = scratch.url;
    [s3, site] = await Promise.all([startS3Receiver("scale"), startTestSite()]);
    // The web process first: it applies the migrations and makes the admin.
    web = await start("web", "web");
    workers.push(...(await Promise.all([start("worker", "worker-1"), start("worker", "worker-2")])));
    api = new Client(web.url);
    await api.login(ADMIN.username, ADMIN.password);
    db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    boss = new PgBoss({ connectionString: databaseUrl, schema: "pgboss", supervise: false, schedule: false });
    await boss.start();
  }, 120_000);

  afterAll(async () => {
    await boss?.stop({ graceful: false, wait: true }).catch(() => undefined);
    await db?.end().catch(() => undefined);
    await Promise.all([web, ...workers].filter(Boolean).map((p) => stopProc(p)));
    await site?.stop();
    await s3?.stop();
    // Forced: connections of killed processes may linger for a moment.
    await scratch?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  /** Plays the clock: the tick of `at`, sent twice, as pg-boss's cron would send it once. */
  const tick = async (at: string) => {
    await boss.send(TICK_QUEUE, { at });
    await boss.send(TICK_QUEUE, { at });
  };

  const firingRuns = async (at: string) =>
    (
      await db.query<{ job_id: string; state: string; worker: string | null }>(
        "select job_id, state, worker from runs where scheduled_for = $1",
        [new Date(at).toISOString()],
      )
    ).rows;

  const finished = (rows: { state: string }[]) => rows.every((r) => r.state !== "queued" && r.state !== "running");

  const jobIds: string[] = [];
  const FIRINGS = ["2027-01-01T00:00:00.000Z", "2028-01-01T00:00:00.000Z", "2029-01-01T00:00:00.000Z"];

  it("runs every firing of 20 jobs exactly once, spread over both workers", async () => {
    for (let i = 0; i < 20; i++) {
      const created = await api.post(
        "/api/spaces/default/jobs",
        jobBody({
          name: `Scheduled ${String(i).padStart(2, "0")}`,
          cron: "0 0 1 1 *",
          timezone: "UTC",
          capture: { steps: [{ type: "navigate", url: `${site.url}/table` }] },
        }),
      );
      expect(created.status).toBe(201);
      jobIds.push(created.body.id);
    }
    for (const at of FIRINGS) {
      await tick(at);
      const rows = await waitFor(`the 20 runs of ${at}`, async () => {
        const found = await firingRuns(at);
        return found.length === 20 && finished(found) && found;
      });
      expect(rows.every((r) => r.state === "success")).toBe(true);
    }
    const counts = await db.query<{ job_id: string; n: string }>(
      "select job_id, count(*) as n from runs where trigger = 'schedule' group by job_id",
    );
    expect(counts.rows).toHaveLength(20);
    expect(counts.rows.every((r) => Number(r.n) === FIRINGS.length)).toBe(true);
    // Both workers took runs (2 processes × 2 slots).
    const byWorker = await db.query<{ worker: string }>(
      "select distinct split_part(worker, ':', 2) as worker from runs where trigger = 'schedule'",
    );
    expect(byWorker.rows.length).toBe(2);
    // Each run reached its worker through pg-boss's queue.
    const carried = await db.query<{ n: string }>(
      "select count(*) as n from pgboss.job where name = 'pagewright-run' and state = 'completed'",
    );
    expect(Number(carried.rows[0].n)).toBeGreaterThanOrEqual(20 * FIRINGS.length);
  }, 180_000);

  it("follows a job changed on the web process at the next tick", async () => {
    const [disabled, moved] = jobIds;
    const first = (await api.get(`/api/spaces/default/jobs/${disabled}`)).body;
    expect((await api.put(`/api/spaces/default/jobs/${disabled}`, { ...first, enabled: false })).status).toBe(200);
    const second = (await api.get(`/api/spaces/default/jobs/${moved}`)).body;
    expect((await api.put(`/api/spaces/default/jobs/${moved}`, { ...second, cron: "0 0 2 1 *" })).status).toBe(200);

    const at = "2030-01-01T00:00:00.000Z";
    await tick(at);
    const rows = await waitFor("the 18 runs of 2030", async () => {
      const found = await firingRuns(at);
      return found.length === 18 && finished(found) && found;
    });
    expect(rows.map((r) => r.job_id)).not.toContain(disabled);
    expect(rows.map((r) => r.job_id)).not.toContain(moved);
    const next = "2030-01-02T00:00:00.000Z";
    await tick(next);
    const moved2 = await waitFor("the moved job's run", async () => {
      const found = await firingRuns(next);
      return found.length === 1 && finished(found) && found;
    });
    expect(moved2[0].job_id).toBe(moved);
  }, 120_000);

  it("streams on the web process a run executed by a worker, files from the bucket", async () => {
    const stream = await postStream(api, `/api/spaces/default/jobs/${jobIds[2]}/run`);
    expect(stream.status).toBe(200);
    expect(stream.events.map((e) => e.event)).toEqual(expect.arrayContaining(["start", "step", "end"]));
    expect(stream.end).toMatchObject({ ok: true, state: "success" });
    const worker = (await db.query("select worker from runs where id = $1", [stream.end.runId])).rows[0].worker;
    const pids = workers.map((w) => String(w.child.pid));
    expect(pids).toContain(worker.split(":")[1]);
    // The report, in the bucket, through the web process's token link.
    const html = stream.end.files.find((f: { kind: string }) => f.kind === "html");
    const report = await fetch(`${web.url}${html.url}`);
    expect(report.status).toBe(200);
    expect(await report.text()).toContain("<html");
  }, 60_000);

  it("retries on the other worker a run whose worker was killed", async () => {
    const job = (
      await api.post(
        "/api/spaces/default/jobs",
        jobBody({
          name: "Slow page",
          cron: null,
          retry: { attempts: 1, delayMinutes: 0 },
          capture: { steps: [{ type: "navigate", url: `${site.url}/slow?ms=6000`, timeoutMs: 60_000 }] },
        }),
      )
    ).body;
    const started = await postStream(
      api,
      `/api/spaces/default/jobs/${job.id}/run`,
      {},
      { stopAfter: (e) => e.event === "step" && e.data.state === "started" },
    );
    // The run of this job (read from the database: the stream's first event may be a step).
    const runId = (await db.query("select id from runs where job_id = $1", [job.id])).rows[0]?.id as string;
    expect(runId, `no run of the slow job; stream events: ${JSON.stringify(started.events)}`).toBeDefined();
    const owner = (await db.query("select worker from runs where id = $1", [runId])).rows[0].worker as string;
    const victim = workers.find((w) => String(w.child.pid) === owner.split(":")[1]);
    expect(victim).toBeDefined();
    await stopProc(victim as Proc, "SIGKILL");
    const survivor = workers.find((w) => w !== victim) as Proc;

    const first = await waitFor(
      "the killed run to be failed",
      async () => {
        const row = (await db.query("select state, error from runs where id = $1", [runId])).rows[0];
        return row.state === "failed" && row;
      },
      60_000,
    );
    expect(JSON.parse(first.error).message).toMatch(/stopped answering/);
    const retry = await waitFor(
      "the retry to succeed",
      async () => {
        const row = (
          await db.query("select state, attempt, worker from runs where retry_of = $1 and state = 'success'", [runId])
        ).rows[0];
        return row;
      },
      60_000,
    );
    expect(retry.attempt).toBe(2);
    expect(retry.worker.split(":")[1]).toBe(String(survivor.child.pid));
  }, 150_000);
});
