import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestSite, type TestSite } from "../fixtures/test-site.js";
import { jobBody, userWithAccess } from "../helpers/factories.js";
import { DIALECTS, startTestServer, type TestServer } from "../helpers/server.js";
import { postStream } from "../helpers/sse.js";

const waitFor = async <T>(fn: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe.each(DIALECTS)("run, preview and test streams, and the runs list, on %s", (dialect) => {
  let server: TestServer;
  let site: TestSite;
  beforeAll(async () => {
    [server, site] = await Promise.all([startTestServer(dialect), startTestSite()]);
  });
  afterAll(async () => {
    await server?.stop();
    await site?.stop();
  });

  const snapshotJob = (overrides: Record<string, unknown> = {}) =>
    jobBody({
      cron: null,
      capture: {
        steps: [
          { type: "navigate", url: `${site.url}/table` },
          { type: "extract", as: "orders", selector: "#orders", attribute: "data-value", parse: "number" },
          { type: "snapshot", as: "table", selector: "table" },
        ],
      },
      ...overrides,
    });

  it("previews an unsaved job without storing anything", async () => {
    const before = (await server.admin.get("/api/spaces/default/runs")).body.items.length;
    const stream = await postStream(server.admin, "/api/spaces/default/jobs/preview", snapshotJob());
    expect(stream.events.map((e) => e.event)).toEqual(
      expect.arrayContaining(["start", "step", "log", "snapshot", "end"]),
    );
    expect(stream.end).toMatchObject({
      ok: true,
      state: "success",
      runId: null,
      variables: { orders: 777 },
      files: [],
    });
    expect(stream.end.snapshots[0].url).toMatch(/^data:image\/png;base64,iVBOR/);
    expect((await server.admin.get("/api/spaces/default/runs")).body.items.length).toBe(before);
  });

  it("validates preview and test bodies before streaming: 400 with issues", async () => {
    const bad = await postStream(server.admin, "/api/spaces/default/jobs/test", {
      name: "x",
      capture: { steps: [{ type: "navigate", url: "ftp://x" }] },
    });
    expect(bad.status).toBe(400);
    expect(bad.end.issues[0].path).toEqual(["capture", "steps", 0, "url"]);
    const deliver = await postStream(server.admin, "/api/spaces/default/jobs/test", {
      ...snapshotJob(),
      deliver: "yes",
    });
    expect(deliver.status).toBe(400);
    expect(deliver.end.issues[0].path).toEqual(["deliver"]);
  });

  it("records a test as a run with trigger test", async () => {
    const stream = await postStream(server.admin, "/api/spaces/default/jobs/test", {
      ...snapshotJob(),
      deliver: false,
    });
    expect(stream.end).toMatchObject({ ok: true, state: "success" });
    const run = await server.admin.get(`/api/spaces/default/runs/${stream.end.runId}`);
    expect(run.body).toMatchObject({ trigger: "test", state: "success", variables: { orders: 777 } });
    expect(run.body.snapshots[0].url).toContain(`/files/runs/${stream.end.runId}/table.png?token=`);
  });

  it("cancels a test when its client goes away, and lets a run go on", async () => {
    const slow = snapshotJob({
      capture: {
        steps: [
          { type: "navigate", url: `${site.url}/late` },
          { type: "wait", ms: 3000 },
          { type: "snapshot", as: "late" },
        ],
      },
    });
    const test = await postStream(server.admin, "/api/spaces/default/jobs/test", slow, {
      stopAfter: (e) => e.event === "step" && e.data.type === "wait" && e.data.state === "started",
    });
    const testRunId = test.events.find((e) => e.event === "start")?.data.runId;
    const cancelled = await waitFor(async () => {
      const run = (await server.admin.get(`/api/spaces/default/runs/${testRunId}`)).body;
      return run.state === "failed" ? run : undefined;
    });
    expect(cancelled.error.message).toMatch(/cancelled/);

    const saved = (await server.admin.post("/api/spaces/default/jobs", slow)).body;
    const run = await postStream(
      server.admin,
      `/api/spaces/default/jobs/${saved.id}/run`,
      {},
      {
        stopAfter: (e) => e.event === "step" && e.data.type === "wait" && e.data.state === "started",
      },
    );
    const runId = run.events.find((e) => e.event === "start")?.data.runId;
    const finished = await waitFor(async () => {
      const read = (await server.admin.get(`/api/spaces/default/runs/${runId}`)).body;
      return read.finishedAt ? read : undefined;
    });
    expect(finished.state).toBe("success");
    expect(finished.snapshots.map((s: { name: string }) => s.name)).toEqual(["late"]);
  });

  it("answers 404 for an unknown job and 403 for ro members", async () => {
    expect((await postStream(server.admin, `/api/spaces/default/jobs/${crypto.randomUUID()}/run`)).status).toBe(404);
    const ro = await userWithAccess(server, "ro");
    const job = (await server.admin.post("/api/spaces/default/jobs", snapshotJob())).body;
    expect((await postStream(ro.client, `/api/spaces/default/jobs/${job.id}/run`)).status).toBe(403);
    expect((await postStream(ro.client, "/api/spaces/default/jobs/preview", snapshotJob())).status).toBe(403);
    expect((await ro.client.get("/api/spaces/default/runs")).status).toBe(200);
  });

  it("pages the runs list with a keyset cursor and filters by job, state and time", async () => {
    const job = (await server.admin.post("/api/spaces/default/jobs", snapshotJob({ name: "Paged" }))).body;
    const failing = (
      await server.admin.post(
        "/api/spaces/default/jobs",
        snapshotJob({ name: "Failing", capture: { steps: [{ type: "navigate", url: `${site.url}/missing-page` }] } }),
      )
    ).body;
    const since = new Date().toISOString();
    for (let i = 0; i < 5; i++) await postStream(server.admin, `/api/spaces/default/jobs/${job.id}/run`);
    const failed = await postStream(server.admin, `/api/spaces/default/jobs/${failing.id}/run`);
    expect(failed.end.error.message).toMatch(/HTTP 404/);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { items: { id: string; jobId: string }[]; nextCursor: string | null } } =
        await server.admin.get(`/api/spaces/default/runs?jobId=${job.id}&limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.body.items.length).toBeLessThanOrEqual(2);
      for (const item of page.body.items) expect(item.jobId).toBe(job.id);
      seen.push(...page.body.items.map((r) => r.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);

    const newestFirst = (await server.admin.get(`/api/spaces/default/runs?since=${since}`)).body.items;
    expect(newestFirst[0].jobId).toBe(failing.id);
    const times = newestFirst.map((r: { queuedAt: string }) => r.queuedAt);
    expect([...times].sort().reverse()).toEqual(times);
    const onlyFailed = (await server.admin.get(`/api/spaces/default/runs?state=failed&since=${since}`)).body.items;
    expect(onlyFailed.map((r: { jobId: string }) => r.jobId)).toEqual([failing.id]);
    const none = (await server.admin.get(`/api/spaces/default/runs?until=${since}&jobId=${job.id}`)).body.items;
    expect(none).toEqual([]);

    const bad = await server.admin.get("/api/spaces/default/runs?limit=500&state=done&cursor=@@");
    expect(bad.status).toBe(400);
    expect(bad.body.issues.map((i: { path: string[] }) => i.path[0]).sort()).toEqual(["limit", "state"]);
    expect((await server.admin.get("/api/spaces/default/runs?cursor=bm9wZQ")).status).toBe(400);
  });

  it("deletes a job's runs and their files with the job", async () => {
    const job = (await server.admin.post("/api/spaces/default/jobs", snapshotJob())).body;
    const { end } = await postStream(server.admin, `/api/spaces/default/jobs/${job.id}/run`);
    const url = end.snapshots[0].url;
    expect((await fetch(server.url + url)).status).toBe(200);
    expect((await server.admin.delete(`/api/spaces/default/jobs/${job.id}`)).status).toBe(204);
    expect((await server.admin.get(`/api/spaces/default/runs/${end.runId}`)).status).toBe(404);
    expect((await fetch(server.url + url)).status).toBe(404);
    expect(await server.ctx.files.get(`runs/${end.runId}/table.png`)).toBeUndefined();
  });
});
