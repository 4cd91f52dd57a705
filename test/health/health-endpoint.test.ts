import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HealthSchema } from "../../src/schemas/health.js";
import { jobBody, userWithAccess } from "../helpers/factories.js";
import { ADMIN, DIALECTS, startTestServer, type TestServer } from "../helpers/server.js";
import { basic, daysAgo, insertDelivery, insertRun, insertRuns, minutesAgo } from "./health-fixtures.js";

/**
 * GET /guest/api/health on a real server: every colour case of jobs and interfaces, the order
 * and counts, the full listing for system users (session or HTTP Basic) and the summary for
 * everyone else, and 401 for wrong credentials.
 */

type Colour = "green" | "yellow" | "red" | "gray";
type JobEntry = {
  id: string;
  name: string;
  description: string;
  cron: string | null;
  healthStatus: Colour;
  recentRuns: { runAt: string; state: string }[];
};
type InterfaceEntry = {
  id: string;
  name: string;
  type: string;
  healthStatus: Colour;
  summary24Hours: {
    totalCount: number;
    errorCount: number;
    errors: { at: string; runId: string; jobId: string; message: string }[];
  };
};
type FullHealth = {
  status: Colour;
  counts: Record<Colour, number>;
  jobs: JobEntry[];
  deliveryInterfaces: InterfaceEntry[];
};

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
/** In every name, description and error text: the anonymous answer must contain none of it. */
const MARK = "Zq7-captured";

describe.each(DIALECTS)("health endpoint on %s", (dialect) => {
  let server: TestServer;
  let empty: { status: number; body: unknown };
  const jobs: Record<string, string> = {};
  const interfaces: Record<string, string> = {};

  const job = async (key: string, cron: string | null = "0 9 * * 1-5") => {
    const answer = await server.admin.post(
      "/api/spaces/default/jobs",
      jobBody({ name: `${key} ${MARK}`, description: `${key} description ${MARK}`, cron }),
    );
    expect(answer.status, answer.text).toBe(201);
    jobs[key] = answer.body.id;
    return answer.body.id as string;
  };
  const webhook = async (key: string) => {
    const answer = await server.admin.post("/ui-api/spaces/default/delivery-interfaces", {
      name: `${key} ${MARK}`,
      type: "webhook",
      config: { url: "https://hooks.example.com/health-test" },
    });
    expect(answer.status, answer.text).toBe(201);
    interfaces[key] = answer.body.id;
    return answer.body.id as string;
  };
  const full = async (): Promise<FullHealth> => {
    const answer = await server.admin.get("/guest/api/health");
    expect(answer.status, answer.text).toBe(200);
    expect(HealthSchema.safeParse(answer.body).error).toBeUndefined();
    return answer.body;
  };
  const jobEntry = (health: FullHealth, key: string) => {
    const entry = health.jobs.find((j) => j.id === jobs[key]);
    if (!entry) throw new Error(`job ${key} is not listed`);
    return entry;
  };
  const interfaceEntry = (health: FullHealth, key: string) => {
    const entry = health.deliveryInterfaces.find((i) => i.id === interfaces[key]);
    if (!entry) throw new Error(`interface ${key} is not listed`);
    return entry;
  };

  beforeAll(async () => {
    server = await startTestServer(dialect, {}, { worker: false });
    const answer = await server.client().get("/guest/api/health");
    empty = { status: answer.status, body: answer.body };

    await insertRuns(server, await job("green"), ["success", "success", "success", "success", "success"]);
    await insertRuns(server, await job("green-skipped"), ["success", "skipped", "skipped", "success"]);
    await insertRuns(server, await job("yellow-failed"), ["success", "failed", "success"]);
    await insertRuns(server, await job("yellow-partial"), ["partial", "success"]);
    await insertRuns(server, await job("yellow-all-partial"), ["partial", "partial"]);
    await insertRuns(server, await job("red"), ["failed", "failed", "failed"]);
    await job("gray-no-runs", null);
    const old = await job("gray-old-runs");
    await insertRun(server, { jobId: old, state: "failed", finishedAt: daysAgo(31) });
    await insertRun(server, { jobId: old, state: "success", finishedAt: daysAgo(45) });
    await insertRuns(server, await job("gray-test-runs"), ["failed", "failed"], { trigger: "test" });
    const unfinished = await job("gray-unfinished");
    await insertRun(server, { jobId: unfinished, state: "running", finishedAt: null });
    await insertRun(server, { jobId: unfinished, state: "queued", finishedAt: null });
    // Only the last five count: five good ones hide older failures, five failures hide older successes.
    await insertRuns(server, await job("last-five-green"), [
      "success",
      "success",
      "success",
      "success",
      "success",
      "failed",
      "failed",
      "failed",
    ]);
    await insertRuns(server, await job("last-five-red"), [
      "failed",
      "failed",
      "failed",
      "failed",
      "failed",
      "success",
      "success",
      "success",
      "success",
    ]);
    const manual = await job("yellow-manual-retry");
    await insertRun(server, { jobId: manual, state: "success", trigger: "manual", finishedAt: minutesAgo(2) });
    await insertRun(server, { jobId: manual, state: "failed", trigger: "retry", finishedAt: minutesAgo(3) });
    // A failed test run, newer than two good scheduled ones, does not count.
    const tested = await job("green-despite-test");
    await insertRuns(server, tested, ["success", "success"], { startMinutesAgo: 20 });
    await insertRun(server, { jobId: tested, state: "failed", trigger: "test", finishedAt: minutesAgo(1) });

    const sent = await webhook("if-green");
    for (const at of [5, 60, 600])
      await insertDelivery(server, { interfaceId: sent, state: "sent", at: minutesAgo(at) });
    const some = await webhook("if-yellow");
    await insertDelivery(server, { interfaceId: some, state: "sent", at: minutesAgo(10) });
    await insertDelivery(server, {
      interfaceId: some,
      state: "failed",
      at: minutesAgo(5),
      error: `HTTP 500: ${MARK} error text`,
      runId: "11111111-1111-4111-8111-111111111111",
      jobId: "22222222-2222-4222-8222-222222222222",
    });
    const all = await webhook("if-red");
    await insertDelivery(server, { interfaceId: all, state: "failed", at: minutesAgo(30) });
    await insertDelivery(server, { interfaceId: all, state: "failed", at: minutesAgo(20) });
    await webhook("if-gray-none");
    const old24 = await webhook("if-gray-old");
    await insertDelivery(server, { interfaceId: old24, state: "failed", at: minutesAgo(25 * 60) });
    const throttled = await webhook("if-gray-throttled");
    await insertDelivery(server, { interfaceId: throttled, state: "throttled" });
    const throttledSent = await webhook("if-green-throttled");
    await insertDelivery(server, { interfaceId: throttledSent, state: "throttled" });
    await insertDelivery(server, { interfaceId: throttledSent, state: "sent" });
  });
  afterAll(() => server?.stop());

  it("answers gray with nothing listed when there is nothing at all", () => {
    expect(empty).toEqual({
      status: 200,
      body: { status: "gray", counts: { green: 0, yellow: 0, red: 0, gray: 0 }, jobs: [], deliveryInterfaces: [] },
    });
  });

  it("colours each job by its last five finished runs of the last 30 days, tests excluded", async () => {
    const health = await full();
    const colours = Object.fromEntries(Object.keys(jobs).map((key) => [key, jobEntry(health, key).healthStatus]));
    expect(colours).toEqual({
      green: "green",
      "green-skipped": "green",
      "yellow-failed": "yellow",
      "yellow-partial": "yellow",
      "yellow-all-partial": "yellow",
      red: "red",
      "gray-no-runs": "gray",
      "gray-old-runs": "gray",
      "gray-test-runs": "gray",
      "gray-unfinished": "gray",
      "last-five-green": "green",
      "last-five-red": "red",
      "yellow-manual-retry": "yellow",
      "green-despite-test": "green",
    });
  });

  it("lists each job's fields and its recent runs, newest first, with millisecond UTC times", async () => {
    const health = await full();
    const entry = jobEntry(health, "last-five-red");
    expect(Object.keys(entry).sort()).toEqual(["cron", "description", "healthStatus", "id", "name", "recentRuns"]);
    expect(entry).toMatchObject({
      name: `last-five-red ${MARK}`,
      description: `last-five-red description ${MARK}`,
      cron: "0 9 * * 1-5",
    });
    expect(entry.recentRuns).toHaveLength(5);
    expect(entry.recentRuns.every((r) => r.state === "failed" && ISO_MS.test(r.runAt))).toBe(true);
    const times = entry.recentRuns.map((r) => r.runAt);
    expect([...times].sort().reverse()).toEqual(times);
    // The newest run finished a minute before the setup: runAt is the run's finishedAt.
    expect(Date.now() - Date.parse(times[0])).toBeGreaterThan(50_000);

    expect(jobEntry(health, "gray-no-runs")).toMatchObject({ cron: null, recentRuns: [] });
    expect(jobEntry(health, "green-despite-test").recentRuns.map((r) => r.state)).toEqual(["success", "success"]);
    expect(jobEntry(health, "yellow-manual-retry").recentRuns.map((r) => r.state)).toEqual(["success", "failed"]);
  });

  it("colours each interface by its deliveries of the last 24 hours, throttled ones aside", async () => {
    const health = await full();
    const colours = Object.fromEntries(
      Object.keys(interfaces).map((key) => [key, interfaceEntry(health, key).healthStatus]),
    );
    expect(colours).toEqual({
      "if-green": "green",
      "if-yellow": "yellow",
      "if-red": "red",
      "if-gray-none": "gray",
      "if-gray-old": "gray",
      "if-gray-throttled": "gray",
      "if-green-throttled": "green",
    });
    const yellow = interfaceEntry(health, "if-yellow");
    expect(yellow).toMatchObject({ name: `if-yellow ${MARK}`, type: "webhook" });
    expect(yellow.summary24Hours).toEqual({
      totalCount: 2,
      errorCount: 1,
      errors: [
        {
          at: expect.stringMatching(ISO_MS),
          runId: "11111111-1111-4111-8111-111111111111",
          jobId: "22222222-2222-4222-8222-222222222222",
          message: `HTTP 500: ${MARK} error text`,
        },
      ],
    });
    expect(interfaceEntry(health, "if-green").summary24Hours).toEqual({ totalCount: 3, errorCount: 0, errors: [] });
    const red = interfaceEntry(health, "if-red").summary24Hours;
    expect(red.totalCount).toBe(2);
    expect(red.errorCount).toBe(2);
    expect(red.errors[0].at > red.errors[1].at).toBe(true);
    expect(interfaceEntry(health, "if-gray-old").summary24Hours.totalCount).toBe(0);
    expect(interfaceEntry(health, "if-green-throttled").summary24Hours.totalCount).toBe(1);
  });

  it("gives the worst colour as status, counts every entry and sorts worst first, then by name", async () => {
    const health = await full();
    expect(health.status).toBe("red");
    // Jobs 4 green, 4 yellow, 2 red, 4 gray; interfaces 2 green, 1 yellow, 1 red, 3 gray.
    expect(health.counts).toEqual({ green: 6, yellow: 5, red: 3, gray: 7 });
    const rank = { red: 0, yellow: 1, gray: 2, green: 3 };
    for (const list of [health.jobs, health.deliveryInterfaces] as { name: string; healthStatus: Colour }[][]) {
      const sorted = [...list].sort(
        (a, b) => rank[a.healthStatus] - rank[b.healthStatus] || a.name.localeCompare(b.name),
      );
      expect(list.map((e) => e.name)).toEqual(sorted.map((e) => e.name));
    }
    expect(health.jobs.slice(0, 2).map((j) => j.name)).toEqual([`last-five-red ${MARK}`, `red ${MARK}`]);
  });

  it("gives anonymous callers the same status, counts and colours, and no names or error texts", async () => {
    const health = await full();
    const anonymous = await server.client().get("/guest/api/health");
    expect(anonymous.status).toBe(200);
    expect(HealthSchema.safeParse(anonymous.body).error).toBeUndefined();
    expect(anonymous.body).toEqual({
      status: health.status,
      counts: health.counts,
      jobs: health.jobs.map((j) => ({ healthStatus: j.healthStatus })),
      deliveryInterfaces: health.deliveryInterfaces.map((i) => ({ healthStatus: i.healthStatus })),
    });
    expect(anonymous.text).not.toContain(MARK);
    expect(anonymous.text).not.toContain("description");
    for (const id of [...Object.values(jobs), ...Object.values(interfaces)]) expect(anonymous.text).not.toContain(id);
    expect(anonymous.headers.get("cache-control")).toBe("no-store");
  });

  it("gives a signed-in user who is not a system user the anonymous form", async () => {
    const { client } = await userWithAccess(server, "admin");
    const answer = await client.get("/guest/api/health");
    expect(answer.status).toBe(200);
    expect(answer.text).not.toContain(MARK);
    expect(answer.body.jobs.every((j: object) => Object.keys(j).join() === "healthStatus")).toBe(true);
  });

  it("gives the full listing over HTTP Basic with a system user's credentials", async () => {
    const answer = await server
      .client()
      .request("GET", "/guest/api/health", undefined, { authorization: basic(ADMIN.username, ADMIN.password) });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(await full());
    // Verified credentials are remembered for a while: the second answer needs no scrypt.
    const again = await server
      .client()
      .request("GET", "/guest/api/health", undefined, { authorization: basic(ADMIN.username, ADMIN.password) });
    expect(again.body.jobs[0].name).toBeDefined();
  });

  it("refuses wrong credentials with 401: a bad password, an unknown user, a non-system user, another scheme", async () => {
    const user = await userWithAccess(server, "admin");
    const cases = [
      basic(ADMIN.username, "wrong-password"),
      basic("nobody-here", "whatever-1"),
      basic(user.username, user.password),
      `Basic ${Buffer.from("no-colon").toString("base64")}`,
      "Bearer some-token",
    ];
    for (const authorization of cases) {
      const answer = await server.client().request("GET", "/guest/api/health", undefined, { authorization });
      expect(answer.status, authorization).toBe(401);
      expect(answer.body).toEqual({ error: "unauthorized" });
      expect(answer.headers.get("www-authenticate")).toMatch(/^Basic /);
    }
    // The non-system user's right password is refused again when remembered, not let through.
    const remembered = await server
      .client()
      .request("GET", "/guest/api/health", undefined, { authorization: basic(user.username, user.password) });
    expect(remembered.status).toBe(401);
  });

  it("counts failed Basic attempts against the login limit", async () => {
    const username = `monitor-${dialect}-limit`;
    const password = "monitor-password-1";
    const created = await server.admin.post("/ui-api/admin/users", { username, password, systemRole: "system" });
    expect(created.status).toBe(201);
    for (let i = 0; i < 10; i++) {
      const answer = await server
        .client()
        .request("GET", "/guest/api/health", undefined, { authorization: basic(username, `wrong-${i}`) });
      expect(answer.status).toBe(401);
    }
    // At the limit the right password is refused too, over Basic and at the login form alike.
    const blocked = await server
      .client()
      .request("GET", "/guest/api/health", undefined, { authorization: basic(username, password) });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await server.client().post("/auth/login-local", { username, password })).status).toBe(429);
  });

  it("stops accepting remembered Basic credentials once the password changed", async () => {
    const username = `monitor-${dialect}-change`;
    const created = await server.admin.post("/ui-api/admin/users", {
      username,
      password: "first-password-1",
      systemRole: "system",
    });
    const get = (password: string) =>
      server.client().request("GET", "/guest/api/health", undefined, { authorization: basic(username, password) });
    expect((await get("first-password-1")).status).toBe(200);
    expect((await get("first-password-1")).status).toBe(200);
    await server.admin.put(`/ui-api/admin/users/${created.body.id}`, { password: "second-password-2" });
    expect((await get("first-password-1")).status).toBe(401);
    expect((await get("second-password-2")).status).toBe(200);
    await server.admin.put(`/ui-api/admin/users/${created.body.id}`, { systemRole: "user" });
    expect((await get("second-password-2")).status).toBe(401);
  });

  it("follows every write at once: a new job, its runs, its deletion", async () => {
    const id = await job("fresh");
    expect(jobEntry(await full(), "fresh").healthStatus).toBe("gray");
    await insertRun(server, { jobId: id, state: "success" });
    expect(jobEntry(await full(), "fresh").healthStatus).toBe("green");
    await insertRuns(server, id, ["failed", "failed", "failed", "failed", "failed"], {
      startMinutesAgo: 0.1,
      stepMinutes: 0.01,
    });
    expect(jobEntry(await full(), "fresh").healthStatus).toBe("red");
    expect((await server.admin.delete(`/api/spaces/default/jobs/${id}`)).status).toBe(204);
    expect((await full()).jobs.some((j) => j.id === id)).toBe(false);
  });
});

describe.each(DIALECTS)("health endpoint with HEALTH_ANONYMOUS=full on %s", (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect, { HEALTH_ANONYMOUS: "full" }, { worker: false });
  });
  afterAll(() => server?.stop());

  it("gives everyone the full listing, and still refuses wrong credentials", async () => {
    const created = await server.admin.post("/api/spaces/default/jobs", jobBody({ name: "Visible to all" }));
    await insertRun(server, { jobId: created.body.id, state: "partial" });
    const anonymous = await server.client().get("/guest/api/health");
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.jobs).toEqual([
      {
        id: created.body.id,
        name: "Visible to all",
        description: "made by a test",
        cron: "0 9 * * 1-5",
        healthStatus: "yellow",
        recentRuns: [{ runAt: expect.stringMatching(ISO_MS), state: "partial" }],
      },
    ]);
    expect(anonymous.body).toEqual((await server.admin.get("/guest/api/health")).body);
    const wrong = await server
      .client()
      .request("GET", "/guest/api/health", undefined, { authorization: basic(ADMIN.username, "not-it") });
    expect(wrong.status).toBe(401);
  });
});
