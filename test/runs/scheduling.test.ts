import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteExpiredRuns } from "../../src/runs/retention-cleanup.task.js";
import { startTestSite, type TestSite } from "../fixtures/test-site.js";
import { Client } from "../helpers/client.js";
import { jobBody } from "../helpers/factories.js";
import { ADMIN, startTestServer, type TestServer } from "../helpers/server.js";
import { postStream } from "../helpers/sse.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const waitFor = async <T>(fn: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await sleep(100);
  }
};

type RunRead = {
  id: string;
  state: string;
  trigger: string;
  attempt: number;
  retryOf: string | null;
  error: { message: string } | null;
};
const runsOf = async (server: TestServer, jobId: string): Promise<RunRead[]> =>
  (await server.admin.get(`/api/spaces/default/runs?jobId=${jobId}&limit=200`)).body.items;

describe("scheduler, retries and recovery", () => {
  let site: TestSite;
  let server: TestServer;
  const logs: Record<string, unknown>[] = [];
  beforeAll(async () => {
    site = await startTestSite();
    server = await startTestServer("sqlite", {}, { onLog: (line) => logs.push(line) });
  });
  afterAll(async () => {
    await server?.stop();
    await site?.stop();
  });

  const create = async (overrides: Record<string, unknown>) => {
    const answer = await server.admin.post("/api/spaces/default/jobs", jobBody({ cron: "* * * * *", ...overrides }));
    expect(answer.status, answer.text).toBe(201);
    return answer.body;
  };

  it("fires on the cron schedule, and follows replace, disable and delete at once", async () => {
    const job = await create({ capture: { steps: [{ type: "navigate", url: `${site.url}/counter` }] } });
    expect(server.ctx.scheduler.nextRun(job.id)?.getSeconds()).toBe(0);
    // Per-second timing for the test: the same scheduler with a six-field pattern.
    server.ctx.scheduler.jobChanged({ ...job, cron: "* * * * * *" });
    const runs = await waitFor(async () => {
      const list = await runsOf(server, job.id);
      return list.filter((r) => r.state === "success").length >= 2 ? list : undefined;
    });
    expect(runs.every((r) => r.trigger === "schedule")).toBe(true);

    const disabled = await server.admin.put(`/api/spaces/default/jobs/${job.id}`, { ...job, enabled: false });
    expect(disabled.status).toBe(200);
    expect(server.ctx.scheduler.nextRun(job.id)).toBeNull();
    await sleep(1200);
    const settled = (await runsOf(server, job.id)).length;
    await sleep(1500);
    expect((await runsOf(server, job.id)).length).toBe(settled);

    await server.admin.put(`/api/spaces/default/jobs/${job.id}`, {
      ...job,
      enabled: true,
      cron: "30 6 * * *",
      timezone: "Asia/Tokyo",
    });
    const next = server.ctx.scheduler.nextRun(job.id);
    expect(next?.toISOString()).toMatch(/T21:30:00/);
    await server.admin.delete(`/api/spaces/default/jobs/${job.id}`);
    expect(server.ctx.scheduler.nextRun(job.id)).toBeNull();
  });

  it("skips a firing while the previous run of the job still runs, and logs it", async () => {
    const job = await create({
      capture: {
        steps: [
          { type: "navigate", url: `${site.url}/table` },
          { type: "wait", ms: 2500 },
        ],
      },
    });
    logs.length = 0;
    server.ctx.scheduler.jobChanged({ ...job, cron: "* * * * * *" });
    await waitFor(
      async () => (logs.filter((l) => /firing skipped/.test(String(l.msg))).length >= 2 ? true : undefined),
      10_000,
    );
    server.ctx.scheduler.jobDeleted(job.id);
    const runs = await runsOf(server, job.id);
    // Never two at once: every run but the last had finished before the next was queued.
    expect(runs.filter((r) => r.state === "running" || r.state === "queued").length).toBeLessThanOrEqual(1);
    expect(runs.length).toBeLessThanOrEqual(2);
    expect(logs.find((l) => /firing skipped/.test(String(l.msg)))).toMatchObject({ jobId: job.id, level: 40 });
    await waitFor(async () => (await runsOf(server, job.id)).every((r) => r.state === "success"));
  });

  it("retries a failed run as attempts of the same run, up to retry.attempts", async () => {
    const job = await create({
      cron: null,
      retry: { attempts: 2, delayMinutes: 0 },
      capture: { steps: [{ type: "navigate", url: `${site.url}/no-such-page` }] },
    });
    const { end } = await postStream(server.admin, `/api/spaces/default/jobs/${job.id}/run`);
    expect(end.state).toBe("failed");
    const runs = await waitFor(async () => {
      const list = await runsOf(server, job.id);
      return list.length === 3 && list.every((r) => r.state === "failed") ? list : undefined;
    });
    const byAttempt = [...runs].sort((a, b) => a.attempt - b.attempt);
    expect(byAttempt.map((r) => [r.trigger, r.attempt, r.retryOf])).toEqual([
      ["manual", 1, null],
      ["retry", 2, end.runId],
      ["retry", 3, end.runId],
    ]);
    await sleep(1500);
    expect(await runsOf(server, job.id)).toHaveLength(3);
  });

  it("stops a capture at the run limit, naming it", async () => {
    const limited = await startTestServer("sqlite", {}, { maxCaptureMs: 1000 });
    try {
      const job = (
        await limited.admin.post(
          "/api/spaces/default/jobs",
          jobBody({
            cron: null,
            capture: {
              steps: [
                { type: "navigate", url: `${site.url}/table` },
                { type: "wait", ms: 10000 },
              ],
            },
          }),
        )
      ).body;
      const started = Date.now();
      const { end } = await postStream(limited.admin, `/api/spaces/default/jobs/${job.id}/run`);
      expect(Date.now() - started).toBeLessThan(8000);
      expect(end.state).toBe("failed");
      expect(end.error.message).toMatch(/stopped after/);
    } finally {
      await limited.stop();
    }
  });

  it("launches the browser again after it dies", async () => {
    const job = await create({ cron: null, capture: { steps: [{ type: "navigate", url: `${site.url}/table` }] } });
    expect((await postStream(server.admin, `/api/spaces/default/jobs/${job.id}/run`)).end.state).toBe("success");
    const before = server.ctx.pool.launches;
    await server.ctx.pool.restartBrowser();
    expect((await postStream(server.admin, `/api/spaces/default/jobs/${job.id}/run`)).end.state).toBe("success");
    expect(server.ctx.pool.launches).toBe(before + 1);
  });

  it("deletes runs and files past the job's retention", async () => {
    const job = await create({
      cron: null,
      retentionDays: 3,
      capture: {
        steps: [
          { type: "navigate", url: `${site.url}/table` },
          { type: "snapshot", as: "s" },
        ],
      },
    });
    const old = (await postStream(server.admin, `/api/spaces/default/jobs/${job.id}/run`)).end.runId;
    const fresh = (await postStream(server.admin, `/api/spaces/default/jobs/${job.id}/run`)).end.runId;
    const fourDaysAgo = new Date(Date.now() - 4 * 86_400_000).toISOString();
    await server.ctx.storage.db.updateTable("runs").set({ finished_at: fourDaysAgo }).where("id", "=", old).execute();
    expect(await deleteExpiredRuns(server.ctx)).toBeGreaterThanOrEqual(1);
    expect((await server.admin.get(`/api/spaces/default/runs/${old}`)).status).toBe(404);
    expect(await server.ctx.files.get(`runs/${old}/s.png`)).toBeUndefined();
    expect((await server.admin.get(`/api/spaces/default/runs/${fresh}`)).status).toBe(200);
    expect(await server.ctx.files.get(`runs/${fresh}/s.png`)).toBeDefined();
  });
});

describe("stopping and restarting", () => {
  let site: TestSite;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "pagewright-restart-"));
  beforeAll(async () => {
    site = await startTestSite();
  });
  afterAll(async () => {
    await site?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("on SIGTERM-like stop, lets runs finish within the grace period and fails the others cleanly", async () => {
    const server = await startTestServer("sqlite", {}, { dataDir, graceMs: 1500 });
    const slow = (
      await server.admin.post(
        "/api/spaces/default/jobs",
        jobBody({
          cron: null,
          capture: {
            steps: [
              { type: "navigate", url: `${site.url}/table` },
              { type: "wait", ms: 8000 },
            ],
          },
        }),
      )
    ).body;
    const quick = (
      await server.admin.post(
        "/api/spaces/default/jobs",
        jobBody({
          cron: null,
          capture: {
            steps: [
              { type: "navigate", url: `${site.url}/table` },
              { type: "wait", ms: 500 },
            ],
          },
        }),
      )
    ).body;
    const started = (e: { event: string; data: { type?: string; state?: string } }) =>
      e.event === "step" && e.data.type === "wait" && e.data.state === "started";
    const [slowRun, quickRun] = await Promise.all([
      postStream(server.admin, `/api/spaces/default/jobs/${slow.id}/run`, {}, { stopAfter: started }),
      postStream(server.admin, `/api/spaces/default/jobs/${quick.id}/run`, {}, { stopAfter: started }),
    ]);
    await server.stop();
    const again = await startTestServer("sqlite", {}, { dataDir });
    try {
      const slowId = slowRun.events[0].data.runId;
      const quickId = quickRun.events[0].data.runId;
      const slowRead = (await again.admin.get(`/api/spaces/default/runs/${slowId}`)).body;
      expect(slowRead.state).toBe("failed");
      expect(slowRead.error.message).toMatch(/stopped during the run/);
      expect((await again.admin.get(`/api/spaces/default/runs/${quickId}`)).body.state).toBe("success");
    } finally {
      await again.stop();
    }
  });

  it("after a killed process, fails the run it left running and retries it", async () => {
    const child = await startChildServer(dataDir);
    const client = new Client(child.url);
    try {
      await client.login(ADMIN.username, ADMIN.password);
      const job = (
        await client.post(
          "/api/spaces/default/jobs",
          jobBody({
            cron: null,
            retry: { attempts: 1, delayMinutes: 0 },
            capture: {
              steps: [
                { type: "navigate", url: `${site.url}/table` },
                { type: "wait", ms: 1500 },
              ],
            },
          }),
        )
      ).body;
      const partial = await postStream(
        client,
        `/api/spaces/default/jobs/${job.id}/run`,
        {},
        {
          stopAfter: (e) => e.event === "step" && e.data.type === "wait" && e.data.state === "started",
        },
      );
      const runId = partial.events[0].data.runId;
      child.process.kill("SIGKILL");
      await new Promise((r) => child.process.once("exit", r));

      const server = await startTestServer("sqlite", {}, { dataDir });
      try {
        const first = (await server.admin.get(`/api/spaces/default/runs/${runId}`)).body;
        expect(first.state).toBe("failed");
        expect(first.error.message).toMatch(/process running it stopped/);
        const retry = await waitFor(async () => {
          const list = await runsOf(server, job.id);
          const r = list.find((x) => x.retryOf === runId && x.state === "success");
          return r;
        });
        expect(retry).toMatchObject({ trigger: "retry", attempt: 2 });
        const running = await server.ctx.storage.db
          .selectFrom("runs")
          .select("id")
          .where("state", "=", "running")
          .execute();
        expect(running).toEqual([]);
      } finally {
        await server.stop();
      }
    } finally {
      if (child.process.exitCode === null) child.process.kill("SIGKILL");
    }
  });

  it("logs the firings missed while it was down, without running them", async () => {
    const first = await startTestServer("sqlite", {}, { dataDir });
    const job = (
      await first.admin.post(
        "/api/spaces/default/jobs",
        jobBody({
          name: "Every minute",
          cron: "* * * * *",
          capture: { steps: [{ type: "navigate", url: `${site.url}/table` }] },
        }),
      )
    ).body;
    await first.stop();
    const tenMinutesAgo = JSON.stringify(new Date(Date.now() - 10 * 60_000).toISOString());
    const { default: SQLite } = await import("better-sqlite3");
    const db = new SQLite(path.join(dataDir, "pagewright.db"));
    db.prepare("update settings set value = ? where key = 'scheduler.lastAliveAt'").run(tenMinutesAgo);
    db.close();
    const logs: Record<string, unknown>[] = [];
    const second = await startTestServer("sqlite", {}, { dataDir, onLog: (l) => logs.push(l) });
    try {
      const missed = logs.find((l) => l.jobId === job.id && /missed/.test(String(l.msg)));
      expect(missed).toBeDefined();
      expect(Number(missed?.missed)).toBeGreaterThanOrEqual(9);
      expect(await runsOf(second, job.id)).toEqual([]);
    } finally {
      await second.stop();
    }
  });
});

/** Pagewright as its own OS process, as an operator runs it. */
async function startChildServer(dataDir: string): Promise<{ url: string; process: ChildProcess }> {
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts", "serve"], {
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      DATA_DIR: dataDir,
      PORT: "0",
      HOST: "127.0.0.1",
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      SECRET_KEY: "test-secret-key-0123456789abcdef",
      LOG_LEVEL: "info",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`server did not start: ${output}`)), 20_000);
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/localhost:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once("exit", (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
  return { url, process: child };
}
