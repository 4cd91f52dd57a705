import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestSite, TEST_SITE_BASIC_AUTH, TEST_SITE_LOGIN, type TestSite } from "../fixtures/test-site.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { postStream } from "../helpers/sse.js";

/** Real jobs against the test site, in real Chromium, through the HTTP API and its event streams. */
describe("capture steps in Chromium", () => {
  let server: TestServer;
  let site: TestSite;
  beforeAll(async () => {
    [server, site] = await Promise.all([startTestServer("sqlite"), startTestSite()]);
  });
  afterAll(async () => {
    await server?.stop();
    await site?.stop();
  });

  const createJob = async (body: Record<string, unknown>) => {
    const answer = await server.admin.post("/api/spaces/default/jobs", { name: "t", cron: null, ...body });
    expect(answer.status, answer.text).toBe(201);
    return answer.body;
  };

  it("logs in with a form, interacts with the dashboard and reads values, streaming every step", async () => {
    const job = await createJob({
      capture: {
        steps: [
          { type: "navigate", url: `${site.url}/login` },
          { type: "type", selector: "#username", text: TEST_SITE_LOGIN.username },
          { type: "type", selector: "#password", text: TEST_SITE_LOGIN.password, sensitive: true },
          { type: "click", selector: "button[type=submit]" },
          { type: "waitFor", selector: "#errors .value", state: "visible", timeoutMs: 10000 },
          { type: "extract", as: "errors", selector: "#errors .value", parse: "number" },
          { type: "extract", as: "latency", selector: "#latency .value", parse: "number" },
          { type: "extract", as: "status", selector: "#status .value" },
          { type: "extract", as: "detailCount", selector: "#details", attribute: "data-count", parse: "number" },
          { type: "extract", as: "user", selector: "#user", pattern: "^(\\w+)$" },
          { type: "select", selector: "#range", value: "Last 7 days" },
          { type: "extract", as: "range", selector: "#range-label" },
          { type: "hover", selector: "#menu" },
          { type: "waitForText", text: "Export", timeoutMs: 5000 },
          { type: "type", selector: "#search", text: "errors of {{ user }}" },
          { type: "press", selector: "#search", key: "Enter" },
          { type: "extract", as: "searched", selector: "#search-result" },
          { type: "click", selector: "#refresh", clickCount: 1 },
          { type: "click", selector: "#refresh" },
          { type: "extract", as: "clicks", selector: "#clicks", parse: "number" },
          { type: "calculate", as: "perMille", expression: "round(errors / 1000, 1)" },
          { type: "snapshot", as: "panel", selector: "#errors" },
          { type: "snapshot", as: "page", fullPage: true },
          { type: "wait", ms: 50 },
          { type: "reload" },
          { type: "snapshot", as: "viewport" },
        ],
      },
    });
    const stream = await postStream(server.admin, `/api/spaces/default/jobs/${job.id}/run`);
    expect(stream.status).toBe(200);
    expect(stream.contentType).toMatch(/^text\/event-stream/);
    expect(stream.events[0].event).toBe("start");
    expect(stream.events.at(-1)?.event).toBe("end");
    const end = stream.end;
    expect(end.error).toBeNull();
    expect(end).toMatchObject({ ok: true, state: "success" });
    expect(end.variables).toEqual({
      errors: 1470592,
      latency: 12.5,
      status: "OK",
      detailCount: 42,
      user: "reports",
      range: expect.stringContaining("Last 7 days"),
      searched: "Searched: errors of reports",
      clicks: 2,
      perMille: 1470.6,
    });
    const steps = stream.events.filter((e) => e.event === "step").map((e) => e.data);
    expect(steps.filter((s) => s.state === "started")).toHaveLength(26);
    expect(steps.filter((s) => s.state === "done")).toHaveLength(26);
    for (const step of steps.filter((s) => s.state === "done")) expect(step.ms).toBeGreaterThanOrEqual(0);
    expect(stream.events.filter((e) => e.event === "snapshot").map((e) => e.data.name)).toEqual([
      "panel",
      "page",
      "viewport",
    ]);
    // The stream never carries the typed password.
    expect(JSON.stringify(stream.events)).not.toContain(TEST_SITE_LOGIN.password);

    // The run record has it all, and its snapshots are PNGs behind the run token.
    const run = await server.admin.get(`/api/spaces/default/runs/${end.runId}`);
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ id: end.runId, jobId: job.id, trigger: "manual", attempt: 1, state: "success" });
    expect(run.body.steps).toHaveLength(26);
    expect(run.body.durationMs).toBeGreaterThan(0);
    expect(run.text).not.toContain(TEST_SITE_LOGIN.password);
    const full = run.body.snapshots.find((s: { name: string }) => s.name === "page");
    const anonymous = server.client();
    const png = await fetch(server.url + full.url);
    expect(png.status).toBe(200);
    expect(png.headers.get("content-type")).toBe("image/png");
    const bytes = Buffer.from(await png.arrayBuffer());
    expect(bytes.subarray(1, 4).toString()).toBe("PNG");
    const withoutToken = full.url.replace(/\?token=.*$/, "");
    expect((await anonymous.get(withoutToken)).status).toBe(404);
    expect((await anonymous.get(`${withoutToken}?token=wrong`)).status).toBe(404);
    expect((await server.admin.get(withoutToken)).status).toBe(200);
  });

  it("sends basic auth only to the navigation's origin", async () => {
    site.requests.length = 0;
    const job = await createJob({
      capture: {
        auth: { type: "basic", ...TEST_SITE_BASIC_AUTH },
        steps: [
          { type: "navigate", url: `${site.url}/basic`, waitUntil: "load" },
          { type: "extract", as: "secret", selector: "#secret-value" },
        ],
      },
    });
    const { end } = await postStream(server.admin, `/api/spaces/default/jobs/${job.id}/run`);
    expect(end.error).toBeNull();
    expect(end.variables.secret).toBe("basic-ok");
    const other = site.requests.filter((r) => r.server === "other");
    expect(other.length).toBeGreaterThanOrEqual(2);
    for (const request of other) expect(request.headers.authorization).toBeUndefined();
    expect(site.requests.find((r) => r.server === "main" && r.path === "/basic")?.headers.authorization).toMatch(
      /^Basic /,
    );
  });

  it("waits for late values and loads lazy panels by scrolling", async () => {
    const job = await createJob({
      capture: {
        steps: [
          { type: "navigate", url: `${site.url}/late` },
          { type: "waitForText", text: "Report ready", timeoutMs: 5000 },
          { type: "extract", as: "late", selector: "#late-value", pattern: "ready: (\\d+)", parse: "number" },
          { type: "navigate", url: `${site.url}/scroll` },
          { type: "scroll" },
          { type: "extract", as: "last", selector: "#panel-4" },
          { type: "extract", as: "bottom", selector: "#bottom-marker" },
          { type: "scroll", selector: "#panel-1" },
          { type: "navigate", url: `${site.url}/slow?ms=1500`, timeoutMs: 10000 },
          { type: "extract", as: "slow", selector: "#slow-value" },
          { type: "navigate", url: `${site.url}/table` },
          { type: "extract", as: "revenue", selector: "#revenue", parse: "number" },
          { type: "extract", as: "growth", selector: "#growth", parse: "number" },
          { type: "extract", as: "orders", selector: "#orders", attribute: "data-value", parse: "number" },
        ],
      },
    });
    const { end } = await postStream(server.admin, `/api/spaces/default/jobs/${job.id}/run`);
    expect(end.error).toBeNull();
    expect(end.variables).toEqual({
      late: 99,
      last: "Panel 4 loaded",
      bottom: "bottom reached",
      slow: "slow-ok",
      revenue: 12345.67,
      growth: 3.4,
      orders: 777,
    });
  });

  it("branches with if/else and ends skipped on break, delivering nothing", async () => {
    const job = await createJob({
      capture: {
        steps: [
          { type: "navigate", url: `${site.url}/table` },
          { type: "extract", as: "orders", selector: "#orders", attribute: "data-value", parse: "number" },
          {
            type: "if",
            condition: "orders > 1000",
            then: [{ type: "calculate", as: "level", expression: "'high'" }],
            else: [
              { type: "calculate", as: "level", expression: "'low'" },
              { type: "if", condition: "level == 'low'", then: [{ type: "break", reason: "below threshold" }] },
            ],
          },
          { type: "snapshot", as: "never" },
        ],
      },
    });
    const stream = await postStream(server.admin, `/api/spaces/default/jobs/${job.id}/run`);
    expect(stream.end).toMatchObject({
      ok: true,
      state: "skipped",
      error: null,
      variables: { orders: 777, level: "low" },
    });
    const finalStates = stream.events
      .filter((e) => e.event === "step" && e.data.state !== "started")
      .map((e) => [e.data.type, e.data.state]);
    expect(finalStates).toContainEqual(["calculate", "skipped"]);
    expect(finalStates).toContainEqual(["snapshot", "skipped"]);
    expect(finalStates).toContainEqual(["break", "done"]);
    expect(stream.events.some((e) => e.event === "log" && /below threshold/.test(e.data.message))).toBe(true);
  });

  it("fails a step after its timeout, naming the step", async () => {
    const job = await createJob({
      capture: {
        steps: [
          { type: "navigate", url: `${site.url}/hang`, waitUntil: "domcontentloaded" },
          { type: "extract", as: "dom", selector: "#hang-value" },
          { type: "click", label: "Press the missing button", selector: "#does-not-exist", timeoutMs: 700 },
          { type: "snapshot", as: "after" },
        ],
      },
    });
    const { end } = await postStream(server.admin, `/api/spaces/default/jobs/${job.id}/run`);
    expect(end).toMatchObject({ ok: false, state: "failed", variables: { dom: "dom-ready" } });
    expect(end.error.stepId).toBe(job.capture.steps[2].id);
    expect(end.error.message).toMatch(/Press the missing button.*click "#does-not-exist".*700/);

    const hanging = await createJob({
      capture: { steps: [{ type: "navigate", url: `${site.url}/hang`, waitUntil: "load", timeoutMs: 1000 }] },
    });
    const timedOut = (await postStream(server.admin, `/api/spaces/default/jobs/${hanging.id}/run`)).end;
    expect(timedOut.error.message).toMatch(/navigate .*\/hang.*1000/);
  });

  it("keeps cookies apart between two jobs run at the same time", async () => {
    const cookieJob = () =>
      createJob({
        capture: {
          steps: [
            { type: "navigate", url: `${site.url}/cookies` },
            { type: "reload" },
            { type: "extract", as: "cookies", selector: "#cookies" },
            { type: "extract", as: "visit", selector: "#visit" },
          ],
        },
      });
    const [a, b] = await Promise.all([cookieJob(), cookieJob()]);
    const [ra, rb] = await Promise.all([
      postStream(server.admin, `/api/spaces/default/jobs/${a.id}/run`),
      postStream(server.admin, `/api/spaces/default/jobs/${b.id}/run`),
    ]);
    expect(ra.end.state).toBe("success");
    expect(rb.end.state).toBe("success");
    // Each context saw only its own visit cookie.
    expect(ra.end.variables.cookies).toBe(`visit=${ra.end.variables.visit}`);
    expect(rb.end.variables.cookies).toBe(`visit=${rb.end.variables.visit}`);
    expect(ra.end.variables.visit).not.toBe(rb.end.variables.visit);
    // A later run of the same job starts with no cookie at all.
    const again = await postStream(server.admin, `/api/spaces/default/jobs/${a.id}/run`);
    expect(again.end.variables.visit).not.toBe(ra.end.variables.visit);
    expect(server.ctx.pool.launches).toBe(1);
  });
});
