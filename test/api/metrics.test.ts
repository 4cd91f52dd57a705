import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHttpReceiver } from "../fixtures/receivers.js";
import { startTestSite, type TestSite } from "../fixtures/test-site.js";
import { basic } from "../health/health-fixtures.js";
import { jobBody } from "../helpers/factories.js";
import { ADMIN, DIALECTS, startTestServer, type TestServer } from "../helpers/server.js";
import { postStream } from "../helpers/sse.js";

/**
 * GET /metrics on real servers: what a real run (capture, report, webhook delivery) leaves in the
 * Prometheus text, HTTP requests counted by route pattern, the queue read from the database,
 * process metrics, one registry per server, and who may read it (observer key or METRICS_ALLOW).
 */

/** The value of one sample line, by its exact name and labels as prom-client prints them. */
const sample = (text: string, series: string): number | undefined => {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe.each(DIALECTS)("metrics after a real run, on %s", (dialect) => {
  let server: TestServer;
  let site: TestSite;
  let receiver: Awaited<ReturnType<typeof startHttpReceiver>>;
  let text: string;
  let jobId: string;
  let runId: string;

  beforeAll(async () => {
    [server, site, receiver] = await Promise.all([
      startTestServer(dialect, { METRICS_ALLOW: "127.0.0.1" }),
      startTestSite(),
      startHttpReceiver(),
    ]);
    const hook = await server.admin.post("/ui-api/spaces/default/delivery-interfaces", {
      name: "Metrics hook",
      type: "webhook",
      config: { url: `${receiver.url}/hook` },
    });
    expect(hook.status, hook.text).toBe(201);
    const job = await server.admin.post(
      "/api/spaces/default/jobs",
      jobBody({
        cron: null,
        capture: {
          steps: [
            { type: "navigate", url: `${site.url}/table` },
            { type: "extract", as: "orders", selector: "#orders", attribute: "data-value", parse: "number" },
            { type: "snapshot", as: "table", selector: "table" },
          ],
        },
        deliveries: [{ interfaceId: hook.body.id, message: "Orders: {{ orders }}" }],
      }),
    );
    expect(job.status, job.text).toBe(201);
    jobId = job.body.id;
    const stream = await postStream(server.admin, `/api/spaces/default/jobs/${jobId}/run`);
    expect(stream.end.state, JSON.stringify(stream.end.error)).toBe("success");
    runId = stream.end.runId;
    expect((await server.admin.get(`/api/spaces/default/runs/${runId}`)).status).toBe(200);
    // A retry waiting for its delay: queued, not due, so no worker takes it during the test.
    await server.ctx.runs.create({
      space: "default",
      jobId,
      jobName: job.body.name,
      trigger: "retry",
      attempt: 2,
      retryOf: runId,
      notBefore: new Date(Date.now() + 60 * 60_000),
    });
    const scraped = await server.client().get("/metrics");
    expect(scraped.status, scraped.text).toBe(200);
    text = scraped.text;
  });
  afterAll(async () => {
    await server?.stop();
    await Promise.all([site?.stop(), receiver?.stop()]);
  });

  it("answers the Prometheus text format", async () => {
    const scraped = await server.client().get("/metrics");
    expect(scraped.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(scraped.headers.get("cache-control")).toBe("no-store");
  });

  it("counts the run by state and trigger, with its time", () => {
    expect(text).toContain("# TYPE pagewright_runs_total counter");
    expect(sample(text, 'pagewright_runs_total{state="success",trigger="manual"}')).toBe(1);
    expect(text).toContain("# TYPE pagewright_run_duration_seconds histogram");
    expect(sample(text, 'pagewright_run_duration_seconds_bucket{le="+Inf"}')).toBe(1);
    expect(sample(text, "pagewright_run_duration_seconds_count")).toBe(1);
    expect(sample(text, "pagewright_run_duration_seconds_sum")).toBeGreaterThan(0);
  });

  it("times each step by type", () => {
    expect(text).toContain("# TYPE pagewright_step_duration_seconds histogram");
    for (const type of ["navigate", "extract", "snapshot"]) {
      expect(sample(text, `pagewright_step_duration_seconds_bucket{le="+Inf",type="${type}"}`), type).toBe(1);
      expect(sample(text, `pagewright_step_duration_seconds_count{type="${type}"}`), type).toBe(1);
    }
  });

  it("reads the queue depth from the runs table at each scrape, and times the wait for a worker", () => {
    expect(text).toContain("# TYPE pagewright_queue_depth gauge");
    expect(sample(text, "pagewright_queue_depth")).toBe(1);
    expect(sample(text, "pagewright_queue_wait_seconds_count")).toBe(1);
    expect(sample(text, 'pagewright_queue_wait_seconds_bucket{le="+Inf"}')).toBe(1);
  });

  it("counts deliveries by type and state, and browser launches", () => {
    expect(sample(text, 'pagewright_deliveries_total{type="webhook",state="sent"}')).toBe(1);
    expect(sample(text, "pagewright_browser_launches_total")).toBe(1);
    expect(sample(text, "pagewright_browser_crashes_total")).toBe(0);
  });

  it("counts HTTP requests by route pattern and status, never by raw URL", async () => {
    expect(
      sample(text, 'pagewright_http_requests_total{route="/api/spaces/:space/jobs/:jobId/run",status="200"}'),
    ).toBe(1);
    expect(sample(text, 'pagewright_http_requests_total{route="/api/spaces/:space/jobs",status="201"}')).toBe(1);
    expect(text).toMatch(
      /^pagewright_http_requests_total\{route="\/api\/spaces\/:space\/runs\/:runId",status="200"\} 1$/m,
    );
    expect(text).toMatch(
      /^pagewright_http_request_duration_seconds_bucket\{le="\+Inf",route="\/auth\/login-local",status="200"\} 1$/m,
    );
    expect(text).not.toContain(jobId);
    expect(text).not.toContain(runId);
    // Unknown paths share one series (the web app's catch-all route), whatever they are.
    const secret = crypto.randomBytes(6).toString("hex");
    expect((await server.admin.get(`/api/${secret}`)).status).toBe(404);
    expect((await server.admin.get(`/nothing/${secret}?x=${secret}`)).status).toBe(404);
    const after = (await server.client().get("/metrics")).text;
    expect(after).not.toContain(secret);
    expect(after).toMatch(/^pagewright_http_requests_total\{route="\/\*",status="404"\} 2$/m);
    // The scrape before this one is counted too.
    expect(sample(after, 'pagewright_http_requests_total{route="/metrics",status="200"}')).toBeGreaterThanOrEqual(2);
  });

  it("includes the default process metrics", () => {
    for (const name of [
      "process_cpu_user_seconds_total",
      "process_resident_memory_bytes",
      "process_start_time_seconds",
      "nodejs_heap_size_used_bytes",
      "nodejs_eventloop_lag_seconds",
    ]) {
      expect(text, name).toMatch(new RegExp(`^${name} `, "m"));
    }
  });

  it("keeps one registry per server: another server in this process counted nothing of this run", async () => {
    const other = await startTestServer("sqlite", { METRICS_ALLOW: "127.0.0.1" });
    try {
      const otherText = (await other.client().get("/metrics")).text;
      expect(otherText).toContain("# TYPE pagewright_runs_total counter");
      expect(otherText).not.toMatch(/^pagewright_runs_total\{/m);
      expect(sample(otherText, "pagewright_run_duration_seconds_count")).toBe(0);
      expect(sample(otherText, "pagewright_queue_depth")).toBe(0);
    } finally {
      await other.stop();
    }
  });
});

describe("metrics access", () => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
  });
  const start = async (env: Record<string, string> = {}) => {
    const server = await startTestServer("sqlite", env);
    servers.push(server);
    return server;
  };
  const get = (server: TestServer, headers: Record<string, string> = {}) =>
    server.client().request("GET", "/metrics", undefined, headers);

  it("without METRICS_ALLOW, refuses anything but an observer key with 401", async () => {
    const server = await start();
    const none = await get(server);
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer realm="Pagewright"/);
    expect(none.body.error).toBe("unauthorized");
    // Metrics are for scrapers: a system user's session or password is not a credential here.
    expect((await server.admin.get("/metrics")).status).toBe(401);
    expect((await get(server, { authorization: basic(ADMIN.username, ADMIN.password) })).status).toBe(401);
    const key = (await server.admin.post("/ui-api/admin/observer-keys", { name: "Prometheus" })).body.key;
    const withKey = await get(server, { authorization: `Bearer ${key}` });
    expect(withKey.status).toBe(200);
    expect(withKey.text).toContain("pagewright_queue_depth 0");
  });

  it("with METRICS_ALLOW, admits listed addresses without a key, and nobody else", async () => {
    const loopback = await start({ METRICS_ALLOW: "127.0.0.1" });
    expect((await get(loopback)).status).toBe(200);
    // A wrong key is refused even from an allowed address, so that a scraper notices it.
    const wrong = `pwo_${crypto.randomBytes(32).toString("base64url")}`;
    expect((await get(loopback, { authorization: `Bearer ${wrong}` })).status).toBe(401);

    const elsewhere = await start({ METRICS_ALLOW: "10.0.0.0/8, 192.168.1.7" });
    expect((await get(elsewhere)).status).toBe(401);
    // X-Forwarded-For is believed only from TRUSTED_PROXIES.
    expect((await get(elsewhere, { "x-forwarded-for": "10.1.2.3" })).status).toBe(401);
  });

  it("uses the client address a trusted proxy forwards", async () => {
    const proxied = await start({ METRICS_ALLOW: "10.0.0.0/8", TRUSTED_PROXIES: "127.0.0.1" });
    expect((await get(proxied, { "x-forwarded-for": "10.1.2.3" })).status).toBe(200);
    expect((await get(proxied, { "x-forwarded-for": "203.0.113.9" })).status).toBe(401);
    expect((await get(proxied)).status).toBe(401);
  });
});
