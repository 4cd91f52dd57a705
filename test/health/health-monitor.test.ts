import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHealthMonitor, type HealthMonitor } from "../../src/health/health-monitor.js";
import { startHttpReceiver, startSmtpReceiver } from "../fixtures/receivers.js";
import { jobBody } from "../helpers/factories.js";
import { DIALECTS, startTestServer, type TestServer } from "../helpers/server.js";
import { insertRun } from "./health-fixtures.js";

/**
 * The health alert monitor against real receivers: a local HTTP server as webhook and a local
 * SMTP server. Each check is started with checkNow(); the monitor's clock is moved by hand to
 * cross minIntervalMinutes without waiting.
 */

const MINUTE = 60_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An HTTP receiver that never answers: a stalled webhook. */
async function startStalledReceiver() {
  let requests = 0;
  const server = http.createServer(() => {
    requests++;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => requests,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe.each(DIALECTS)("health alert monitor on %s", (dialect) => {
  let server: TestServer;
  let hook: Awaited<ReturnType<typeof startHttpReceiver>>;
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
  let stalled: Awaited<ReturnType<typeof startStalledReceiver>>;
  let webhookId: string;
  let clock: number;
  let monitor: HealthMonitor;
  const jobs: Record<"a" | "b" | "c", { id: string; name: string }> = {} as never;

  const newMonitor = (options: { timeoutMs?: number; tickMs?: number } = {}) =>
    createHealthMonitor(server.ctx, { now: () => new Date(clock), timeoutMs: 5000, ...options });
  const advance = (minutes: number) => {
    clock += minutes * MINUTE;
  };
  const setAlerts = async (settings: Record<string, unknown>) => {
    const answer = await server.admin.put("/ui-api/admin/settings/health-alerts", settings);
    expect(answer.status, answer.text).toBe(200);
  };
  const iface = async (body: Record<string, unknown>) => {
    const answer = await server.admin.post("/ui-api/spaces/default/delivery-interfaces", body);
    expect(answer.status, answer.text).toBe(201);
    return answer.body.id as string;
  };
  const webhook = (url: string) =>
    iface({
      name: `Alerts ${url}`,
      type: "webhook",
      config: { url, bodyType: "json", bodyTemplate: '{"text":"$MESSAGE"}' },
    });
  /** Newest runs decide: five of a state make a job green (success) or red (failed); one failure after successes, yellow. */
  const runs = async (jobId: string, states: ("success" | "failed")[]) => {
    for (const state of states) {
      await insertRun(server, { jobId, state, finishedAt: new Date().toISOString() });
      await sleep(2);
    }
  };
  const green = (key: keyof typeof jobs) => runs(jobs[key].id, ["success", "success", "success", "success", "success"]);
  const red = (key: keyof typeof jobs) => runs(jobs[key].id, ["failed", "failed", "failed", "failed", "failed"]);
  const messages = () => hook.calls.map((call) => JSON.parse(call.body.toString()).text as string);
  const link = (key: keyof typeof jobs) => `${server.ctx.config.publicUrl}/jobs/${jobs[key].id}`;

  beforeAll(async () => {
    [server, hook, smtp, stalled] = await Promise.all([
      startTestServer(dialect, {}, { worker: false }),
      startHttpReceiver(),
      startSmtpReceiver(),
      startStalledReceiver(),
    ]);
    clock = Date.now();
    for (const key of ["a", "b", "c"] as const) {
      const answer = await server.admin.post("/api/spaces/default/jobs", jobBody({ name: `Job ${key.toUpperCase()}` }));
      jobs[key] = { id: answer.body.id, name: answer.body.name };
      await green(key);
    }
    webhookId = await webhook(`${hook.url}/alerts`);
    monitor = newMonitor();
  });
  afterAll(async () => {
    await monitor?.stop();
    await server?.stop();
    await Promise.all([hook?.stop(), smtp?.stop(), stalled?.stop()]);
  });

  it("does nothing while alerts are disabled", async () => {
    expect((await monitor.checkNow()).outcome).toBe("disabled");
    expect(hook.calls).toHaveLength(0);
  });

  it("records a baseline first, then sends one message per change, exactly once", async () => {
    await setAlerts({ enabled: true, deliveryInterfaceId: webhookId, checkEveryMinutes: 5 });
    expect((await monitor.checkNow()).outcome).toBe("baseline");
    expect(hook.calls).toHaveLength(0);

    await red("a");
    const sent = await monitor.checkNow();
    expect(sent.outcome).toBe("sent");
    expect(sent.changes).toEqual([{ id: jobs.a.id, name: "Job A", from: "green", to: "red" }]);
    expect(messages()).toHaveLength(1);
    expect(messages()[0]).toMatch(/^Pagewright health: 1 job changed\n/);
    expect(messages()[0]).toContain("Job A: green → red");
    expect(messages()[0]).toContain(link("a"));

    // No change since: no message, however often it checks.
    expect((await monitor.checkNow()).outcome).toBe("unchanged");
    expect((await monitor.checkNow()).outcome).toBe("unchanged");
    expect(messages()).toHaveLength(1);
  });

  it("lists every job that changed in one message, worst first; ignores new gray jobs and deleted ones", async () => {
    await red("b");
    await runs(jobs.c.id, ["failed"]);
    const fresh = await server.admin.post("/api/spaces/default/jobs", jobBody({ name: "Job new" }));
    const result = await monitor.checkNow();
    expect(result.outcome).toBe("sent");
    expect(messages()).toHaveLength(2);
    const text = messages()[1];
    expect(text).toMatch(/^Pagewright health: 2 jobs changed\n/);
    expect(text.indexOf("Job B: green → red")).toBeGreaterThan(0);
    expect(text.indexOf("Job C: green → yellow")).toBeGreaterThan(text.indexOf("Job B: green → red"));
    expect(text).toContain(link("b"));
    expect(text).toContain(link("c"));
    expect(text).not.toContain("Job new");

    await server.admin.delete(`/api/spaces/default/jobs/${fresh.body.id}`);
    expect((await monitor.checkNow()).outcome).toBe("unchanged");
    expect(messages()).toHaveLength(2);
  });

  it("remembers the colours across a restart: a new monitor does not alert again", async () => {
    const restarted = newMonitor();
    expect((await restarted.checkNow()).outcome).toBe("unchanged");
    expect(messages()).toHaveLength(2);
  });

  it("sends at most once per minIntervalMinutes; changes wait with their original colour", async () => {
    await setAlerts({ enabled: true, deliveryInterfaceId: webhookId, minIntervalMinutes: 30 });
    // The last alert went out just now (on the monitor's clock): A's recovery waits.
    await green("a");
    const quiet = await monitor.checkNow();
    expect(quiet.outcome).toBe("quiet");
    expect(quiet.changes).toEqual([{ id: jobs.a.id, name: "Job A", from: "red", to: "green" }]);
    // Still quiet: A fails again (red → green → yellow is "red → yellow"), B recovers and fails again (no change).
    advance(10);
    await runs(jobs.a.id, ["failed"]);
    await green("b");
    expect((await monitor.checkNow()).outcome).toBe("quiet");
    await red("b");
    expect((await monitor.checkNow()).outcome).toBe("quiet");
    expect(messages()).toHaveLength(2);

    advance(21);
    const sent = await monitor.checkNow();
    expect(sent.outcome).toBe("sent");
    expect(sent.changes).toEqual([{ id: jobs.a.id, name: "Job A", from: "red", to: "yellow" }]);
    expect(messages()).toHaveLength(3);
    expect(messages()[2]).toContain("Job A: red → yellow");
    expect(messages()[2]).not.toContain("Job B");
  });

  it("retries a failed send at the next check and does not count it as sent", async () => {
    advance(31);
    hook.answerWith(() => ({ status: 500, body: "down for maintenance" }));
    await green("c");
    const failed = await monitor.checkNow();
    expect(failed.outcome).toBe("failed");
    expect(failed.error).toContain("HTTP 500");
    expect(hook.calls).toHaveLength(4);

    // No clock change: had the failure counted as sent, minIntervalMinutes would hold this back.
    hook.answerWith(() => ({ status: 200, body: "ok" }));
    const retried = await monitor.checkNow();
    expect(retried.outcome).toBe("sent");
    expect(retried.changes).toEqual([{ id: jobs.c.id, name: "Job C", from: "yellow", to: "green" }]);
    expect(hook.calls).toHaveLength(5);
    expect(messages()[4]).toContain("Job C: yellow → green");
    expect((await monitor.checkNow()).outcome).toBe("unchanged");
    expect(hook.calls).toHaveLength(5);
  });

  it("abandons a stalled check after its time limit; the next check still runs and sends", async () => {
    const stalledId = await webhook(`${stalled.url}/never`);
    await setAlerts({ enabled: true, deliveryInterfaceId: stalledId });
    const impatient = newMonitor({ timeoutMs: 500 });
    await red("c");
    const started = Date.now();
    const result = await impatient.checkNow();
    expect(result.outcome).toBe("timeout");
    expect(Date.now() - started).toBeLessThan(3000);
    expect(stalled.requests()).toBe(1);

    await setAlerts({ enabled: true, deliveryInterfaceId: webhookId });
    const next = await impatient.checkNow();
    expect(next.outcome).toBe("sent");
    expect(next.changes).toEqual([{ id: jobs.c.id, name: "Job C", from: "green", to: "red" }]);
    expect(messages().at(-1)).toContain("Job C: green → red");
  });

  it("e-mails the recipient through an SMTP interface", async () => {
    const smtpId = await iface({
      name: "Mail",
      type: "smtp",
      config: { host: "127.0.0.1", port: smtp.port, security: "none", from: "pagewright@example.com" },
    });
    await setAlerts({ enabled: true, deliveryInterfaceId: smtpId, recipient: "ops@example.com" });
    await green("b");
    await green("c");
    const result = await monitor.checkNow();
    expect(result.outcome, result.error).toBe("sent");
    expect(smtp.messages).toHaveLength(1);
    const mail = smtp.messages[0];
    expect(mail.envelopeTo).toEqual(["ops@example.com"]);
    expect(mail.subject).toBe("Pagewright health: 2 jobs changed");
    expect(mail.text).toContain("Job B: red → green");
    expect(mail.text).toContain("Job C: red → green");
    expect(mail.text).toContain(link("b"));
    expect(mail.text).toContain(link("c"));
  });

  it("sends one alert when two processes' monitors check at once", async () => {
    await setAlerts({ enabled: true, deliveryInterfaceId: webhookId });
    const before = hook.calls.length;
    const other = newMonitor();
    await red("b");
    const outcomes = (await Promise.all([monitor.checkNow(), other.checkNow()])).map((r) => r.outcome).sort();
    expect(outcomes.filter((o) => o === "sent")).toHaveLength(1);
    expect(outcomes.every((o) => ["sent", "busy", "unchanged"].includes(o))).toBe(true);
    expect(hook.calls).toHaveLength(before + 1);
  });

  it("checks on its own every checkEveryMinutes once started, and stops when stopped", async () => {
    await setAlerts({ enabled: true, deliveryInterfaceId: webhookId, checkEveryMinutes: 2 });
    const ticking = newMonitor({ tickMs: 30 });
    const before = hook.calls.length;
    try {
      ticking.start();
      await green("b");
      // The last check was just now on the monitor's clock: nothing is due yet.
      await sleep(300);
      expect(hook.calls).toHaveLength(before);
      advance(2);
      for (let i = 0; i < 100 && hook.calls.length === before; i++) await sleep(30);
      expect(hook.calls).toHaveLength(before + 1);
      expect(messages().at(-1)).toContain("Job B: red → green");
    } finally {
      await ticking.stop();
    }
    await red("b");
    advance(5);
    await sleep(300);
    expect(hook.calls).toHaveLength(before + 1);
  });
});
