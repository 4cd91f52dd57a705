import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import SQLite from "better-sqlite3";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JobBodySchema } from "../../src/schemas/job.js";
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
import { type PlainServer, queueRun, readRun, runsOf, SECRET_KEY, startServerOn, waitFor } from "./fault-helpers.js";
import { startWriteBurst, type TrackedJob, wholeVersionOf } from "./job-writes.js";

/**
 * `pagewright serve` killed with SIGKILL (process group: Chromium goes too) while runs are in
 * flight and fifty clients write jobs, then started again on the same store. DESIGN: "a process
 * that dies mid-run leaves a run that the next start marks failed and retries. Nothing is lost
 * silently." Every write the server answered 2xx must be there whole; every run must end.
 */

// Long enough that the kill lands mid-run even on a loaded machine (the whole suite on 2 cores).
const SLOW_MS = 25_000;
const LANES = 50;
/** The kill comes once this many writes were answered, so that many more are in flight. */
const KILL_AFTER_ACKED = 120;

type Store = {
  /** Environment of both the killed process and the restarted server. */
  env: Record<string, string>;
  /** How the restarted server names a run the dead process left running. */
  orphanCause: RegExp;
  /** Checks of the database file right after the kill, before anything opens it to write. */
  checkAfterKill?: () => void;
  /** Checks of the database through the restarted server. */
  checkAfterRestart?: (server: PlainServer) => Promise<void>;
  drop(): Promise<void>;
};

let site: TestSite;
beforeAll(async () => {
  site = await startTestSite();
});
afterAll(async () => {
  await site?.stop();
});

describe("SIGKILL of pagewright serve during runs and writes, then a restart (SQLite)", () => {
  it("ends every run, keeps every answered write whole, and the database checks out", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "pagewright-kill-"));
    const file = path.join(dataDir, "pagewright.db");
    await killAndRestart({
      env: { DATA_DIR: dataDir },
      orphanCause: /process running it stopped before the run ended/,
      checkAfterKill() {
        // The file as the kill left it (with its WAL), opened read-only: nothing repairs it first.
        expect(fs.existsSync(`${file}-wal`)).toBe(true);
        const { integrity, foreignKeys } = sqliteChecks(file);
        expect(integrity).toEqual(["ok"]);
        expect(foreignKeys).toEqual([]);
      },
      async checkAfterRestart(server) {
        const integrity = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(server.ctx.storage.db);
        expect(integrity.rows.map((r) => r.integrity_check)).toEqual(["ok"]);
        expect((await sql`pragma foreign_key_check`.execute(server.ctx.storage.db)).rows).toEqual([]);
      },
      drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
    });
  }, 90_000);
});

describe.skipIf(!TEST_DATABASE_URL)(
  "SIGKILL of pagewright serve during runs and writes, then a restart (PostgreSQL)",
  () => {
    notePostgresSkip();
    it("ends every run, keeps every answered write whole", async () => {
      const database = await scratchDatabase(TEST_DATABASE_URL ?? "", "pw_kill");
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "pagewright-kill-pg-"));
      await killAndRestart({
        // Scale-out mode: no start recovers orphans; runs whose heartbeat stopped are (15 s, the least).
        env: { DATA_DIR: dataDir, DATABASE_URL: database.url, RUN_STALE_SECONDS: "15" },
        orphanCause: /worker running it stopped answering \(killed or hung\)/,
        async checkAfterRestart(server) {
          // Every row that refers to another has it (PostgreSQL enforces the keys; this checks none was left out).
          const dangling = await sql<{ n: string }>`
          select count(*) as n from runs r left join jobs j on j.id = r.job_id
          where j.id is null and r.trigger <> 'test'`.execute(server.ctx.storage.db);
          expect(Number(dangling.rows[0].n)).toBe(0);
        },
        async drop() {
          fs.rmSync(dataDir, { recursive: true, force: true });
          await database.drop();
        },
      });
    }, 300_000);
  },
);

async function killAndRestart(store: Store) {
  let server: PlainServer | undefined;
  let child: PagewrightProcess | undefined;
  try {
    child = await startPagewrightProcess("serve", "killed serve", {
      ...store.env,
      SECRET_KEY,
      WORKER_COUNT: "2",
      LOG_LEVEL: "info",
    });
    const client = new Client(child.url);
    await client.login(ADMIN.username, ADMIN.password);

    // Three slow runs on two worker slots: two running, one queued, when the kill comes.
    const slowJobs: string[] = [];
    for (let i = 0; i < 3; i++) {
      const answer = await client.post(
        "/api/spaces/default/jobs",
        jobBody({
          name: `Slow ${i}`,
          cron: null,
          retry: { attempts: 1, delayMinutes: 0 },
          capture: {
            steps: [
              { type: "navigate", url: `${site.url}/slow?ms=${SLOW_MS}` },
              { type: "extract", as: "value", selector: "#slow-value" },
            ],
          },
        }),
      );
      expect(answer.status, answer.text).toBe(201);
      slowJobs.push(answer.body.id);
    }
    // No run can be claimed, let alone get its slow page, before this.
    const queuedAt = Date.now();
    const runIds: string[] = [];
    for (const jobId of slowJobs) runIds.push(await queueRun(client, jobId));
    const inFlight = await waitFor("two runs running, one queued", async () => {
      const reads = await Promise.all(runIds.map((id) => readRun(client, id)));
      const running = reads.filter((r) => r.state === "running");
      return running.length === 2 && reads.some((r) => r.state === "queued") ? reads : undefined;
    });
    const leftRunning = inFlight.filter((r) => r.state === "running").map((r) => r.id);
    const leftQueued = inFlight.filter((r) => r.state === "queued").map((r) => r.id);

    const burst = startWriteBurst(client, site.url, LANES);
    await waitFor("writes answered before the kill", async () => burst.acked >= KILL_AFTER_ACKED, 15_000);
    await stopPagewrightProcess(child, "SIGKILL");
    // Precondition: the slow pages could not have answered yet, so the running runs were mid-page.
    expect(Date.now() - queuedAt, "the kill came too late to land mid-run").toBeLessThan(SLOW_MS);
    burst.stop();
    await burst.done;
    expect(burst.refused).toEqual([]);
    const unanswered = burst.jobs.filter((j) => j.sent.length > j.acked.length);
    // The kill landed mid-burst: some writes were sent and never answered.
    expect(unanswered.length).toBeGreaterThan(0);

    store.checkAfterKill?.();
    server = await startServerOn({ ...store.env, WORKER_COUNT: "3" });
    const admin = server.admin;

    // Writes: every answered one is there, whole; the unanswered ones are there whole or not at all.
    await checkJobs(admin, burst.jobs);

    // Runs: the ones left running are failed naming the cause and retried to success; the queued one runs.
    for (const runId of leftRunning) {
      const failed = await waitFor(
        `run ${runId} recorded failed`,
        async () => {
          const run = await readRun(admin, runId);
          return run.state === "failed" ? run : undefined;
        },
        40_000,
      );
      expect(failed.error?.message).toMatch(store.orphanCause);
      const retry = await waitFor(
        `the retry of ${runId} succeeds`,
        async () => (await runsOf(admin, failed.jobId)).find((r) => r.retryOf === runId && r.state === "success"),
        // The retry opens the slow page again, maybe behind the other retry on a loaded machine.
        SLOW_MS * 3,
      );
      expect(retry).toMatchObject({ trigger: "retry", attempt: 2 });
    }
    for (const runId of leftQueued) {
      await waitFor(
        `queued run ${runId} succeeds`,
        async () => (await readRun(admin, runId)).state === "success",
        SLOW_MS * 3,
      );
    }
    await waitFor("no run running or queued", async () => {
      const open = await server?.ctx.storage.db
        .selectFrom("runs")
        .select(["id", "state"])
        .where("state", "in", ["running", "queued"])
        .execute();
      return open?.length === 0;
    });
    await store.checkAfterRestart?.(server);
  } finally {
    if (child) await stopPagewrightProcess(child, "SIGKILL");
    await server?.stop();
    await store.drop();
  }
}

/** Every answered write is stored whole; no job in the list is a mix of two writes. */
async function checkJobs(admin: Client, jobs: TrackedJob[]) {
  const problems: string[] = [];
  await Promise.all(
    jobs.map(async (job) => {
      const answer = await admin.get(`/api/spaces/default/jobs/${job.id}`);
      const lastAcked = job.acked.at(-1);
      if (answer.status === 404) {
        if (lastAcked !== undefined) problems.push(`${job.id}: created (201) but missing after the restart`);
        return;
      }
      const version = wholeVersionOf(answer.body, site.url);
      if (version === undefined) problems.push(`${job.id}: half-written body ${answer.text}`);
      // A write that was answered, or a later one that was sent (it may have committed unanswered).
      else if (lastAcked !== undefined && version < lastAcked)
        problems.push(`${job.id}: holds v${version}, but v${lastAcked} was answered 200`);
      else if (!job.sent.includes(version)) problems.push(`${job.id}: holds v${version}, never sent`);
      // The stored body is a valid job: sent back as it is, it is accepted.
      if (version !== undefined) {
        const again = await admin.put(`/api/spaces/default/jobs/${job.id}`, answer.body);
        if (again.status !== 200) problems.push(`${job.id}: its stored body is refused: ${again.text}`);
      }
    }),
  );
  expect(problems).toEqual([]);

  const tracked = new Set(jobs.map((j) => j.id));
  const list = (await admin.get("/api/spaces/default/jobs")).body.items as { id: string; name: string }[];
  const answered = jobs.filter((j) => j.acked.length > 0);
  expect(answered.length).toBeGreaterThanOrEqual(20);
  for (const job of answered) expect(list.some((item) => item.id === job.id)).toBe(true);
  for (const item of list) {
    expect(JobBodySchema.safeParse(item).success, JSON.stringify(item)).toBe(true);
    if (tracked.has(item.id)) expect(wholeVersionOf(item, site.url), JSON.stringify(item)).toBeDefined();
  }
}

/** integrity_check and foreign_key_check of a SQLite file, opened read-only. */
function sqliteChecks(file: string) {
  const db = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    return {
      integrity: (db.pragma("integrity_check") as { integrity_check: string }[]).map((r) => r.integrity_check),
      foreignKeys: db.pragma("foreign_key_check"),
    };
  } finally {
    db.close();
  }
}
