import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "../helpers/client.js";
import { userWithAccess } from "../helpers/factories.js";
import { DIALECTS, type Dialect, startTestServer, type TestServer } from "../helpers/server.js";
import { type BuiltCase, buildCase, type FuzzCase, planCases } from "./fuzz-cases.js";
import { createSender, type FuzzAnswer, problemsOf } from "./fuzz-http.js";
import { type FuzzRoute, fuzzRoutes, openApiKey, registeredRoutes } from "./fuzz-routes.js";
import { type FuzzFixtures, fuzzJob, invalidSeeds, seedOf } from "./fuzz-seeds.js";

/**
 * Issue 7: thousands of malformed and hostile requests to every route the server has (the agent
 * API from /llms/openapi.json, the web app's /ui-api, auth, files, guide, health), built from the
 * OpenAPI description and the zod schemas: wrong types, huge strings, deep nesting, odd Unicode,
 * path traversal in ids, bodies over the limit. No answer may be a 5xx, carry a stack trace, break
 * the error contract or hang; afterwards the server still answers health checks and requests.
 *
 * FUZZ_SEED=<n> replays a run, FUZZ_REQUESTS=<n> changes its size, FUZZ_ONLY=3,17 sends only
 * those cases (of the same plan).
 */

const SEED = Number(process.env.FUZZ_SEED ?? crypto.randomInt(2 ** 31));
const REQUESTS: Record<Dialect, number> = {
  sqlite: Number(process.env.FUZZ_REQUESTS ?? 4000),
  // The same plan, smaller: PostgreSQL runs second, on the same two cores.
  postgres: Number(process.env.FUZZ_REQUESTS ?? 1500),
};
const ONLY = process.env.FUZZ_ONLY?.split(",").map(Number);
const CONCURRENCY = 16;
const MIN_PER_ROUTE = 30;
const SECRETS = {
  url: `fuzz-url-secret-${crypto.randomBytes(6).toString("hex")}`,
  header: `fuzz-header-secret-${crypto.randomBytes(6).toString("hex")}`,
  apiKey: `fuzz-api-key-${crypto.randomBytes(6).toString("hex")}`,
};

type Failure = { c: FuzzCase; built: BuiltCase; answer: FuzzAnswer; problems: string[] };

describe.each(DIALECTS)("fuzz: hostile requests to every route (%s)", (dialect) => {
  let server: TestServer;
  let ro: Client;
  let fixtures: FuzzFixtures;
  let routes: FuzzRoute[];
  let openapi: { paths: Record<string, Record<string, object>> };
  const serverErrors: string[] = [];

  beforeAll(async () => {
    server = await startTestServer(
      dialect,
      {},
      {
        onLog: (line) => {
          if (Number(line.level) >= 50) {
            const err = line.err as { stack?: string } | undefined;
            serverErrors.push(`${line.msg}: ${err?.stack?.split("\n").slice(0, 3).join(" | ") ?? ""}`);
          }
        },
      },
    );
    const admin = server.admin;
    ro = (await userWithAccess(server, "ro")).client;
    const victim = await userWithAccess(server, null);
    const created = async (path: string, body: unknown) => {
      const answer = await admin.post(path, body);
      expect(answer.status, `${path}: ${answer.text}`).toBe(201);
      return answer.body.id as string;
    };
    await created("/ui-api/admin/spaces", { id: "fuzz-spare", name: "Spare" });
    const interfaceId = await created("/ui-api/spaces/default/delivery-interfaces", {
      name: "Dead hook",
      type: "webhook",
      config: { url: `http://127.0.0.1:1/hook?token=${SECRETS.url}`, headers: { "X-Key": SECRETS.header } },
    });
    const providerId = await created("/ui-api/spaces/default/ai-providers", {
      name: "Dead AI",
      vendor: "openai-compatible",
      endpoint: "http://127.0.0.1:1/v1",
      model: "m",
      apiKey: SECRETS.apiKey,
    });
    fixtures = {
      space: "default",
      spareSpace: "fuzz-spare",
      interfaceId,
      providerId,
      victimUserId: victim.id,
      jobId: "",
      blueprintId: "",
    };
    // The seeds are valid bodies: a mutation then breaks one thing at a time.
    fixtures.jobId = await created("/api/spaces/default/jobs", fuzzJob(fixtures));
    fixtures.blueprintId = await created("/api/spaces/default/blueprints", seedOf("Blueprint", fixtures));
    openapi = (await admin.get("/llms/openapi.json")).body;
    routes = fuzzRoutes(server.app, openapi);
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
  });

  it("attacks every route Fastify knows, the agent API's as documented, from valid seeds", () => {
    const known = new Set(routes.map((r) => `${r.method} ${r.url}`));
    // The tree printRoutes draws is read correctly: Fastify finds every route read from it.
    for (const { method, url } of registeredRoutes(server.app)) {
      expect(server.app.hasRoute({ method: method as "GET", url }), `${method} ${url}`).toBe(true);
    }
    for (const [path, item] of Object.entries(openapi.paths)) {
      for (const method of Object.keys(item).filter((m) => m !== "parameters")) {
        expect(known, `documented but not served: ${method} ${path}`).toContain(openApiKey(method, path));
      }
    }
    for (const area of ["/api/", "/ui-api/", "/auth/", "/files/", "/llms/", "/guest/"]) {
      expect(
        routes.some((r) => r.url.startsWith(area)),
        area,
      ).toBe(true);
    }
    expect(invalidSeeds(fixtures), "seeds their own schema refuses").toEqual([]);
    const generic = routes.filter((r) => r.bodyKind === "Unknown").map((r) => `${r.method} ${r.url}`);
    if (generic.length > 0)
      console.warn(`fuzzed with generic bodies (no schema known to the fuzz): ${generic.join(", ")}`);
  });

  it("answers every hostile request below 500, without a stack trace, in time", async () => {
    const plan = planCases(routes, SEED, REQUESTS[dialect], MIN_PER_ROUTE);
    const cases = ONLY ? plan.filter((c) => ONLY.includes(c.index)) : plan;
    // Said first, so that a run that hangs or crashes can still be replayed.
    console.log(`fuzz ${dialect}: FUZZ_SEED=${SEED}, ${cases.length} requests, ${CONCURRENCY} at a time`);
    const sender = createSender(server.url, CONCURRENCY);
    const callers = { admin: server.admin.cookieHeader ?? "", ro: ro.cookieHeader ?? "" };
    const failures: Failure[] = [];
    const statuses = new Map<number, number>();
    const perRoute = new Map<string, number>();
    const msPerRoute = new Map<string, number>();
    let streams = 0;
    let slowest = 0;
    const started = performance.now();
    let next = 0;
    const worker = async () => {
      while (next < cases.length) {
        const c = cases[next++];
        const built = buildCase(c, fixtures, callers);
        const answer = await sender.send(built.request);
        const problems = problemsOf(answer, built.expectStatus, Object.values(SECRETS));
        const key = `${c.route.method} ${c.route.url}`;
        perRoute.set(key, (perRoute.get(key) ?? 0) + 1);
        msPerRoute.set(key, (msPerRoute.get(key) ?? 0) + answer.ms);
        slowest = Math.max(slowest, answer.ms);
        if ("status" in answer) {
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          if (answer.streamed) streams++;
        }
        if (problems.length > 0) failures.push({ c, built, answer, problems });
      }
    };
    try {
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    } finally {
      sender.close();
    }
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(
      `fuzz ${dialect}: seed ${SEED}, ${cases.length} requests to ${perRoute.size} routes in ${seconds} s ` +
        `(slowest ${slowest} ms, ${streams} event streams); statuses ${JSON.stringify(Object.fromEntries(statuses))}; ` +
        `most time: ${[...msPerRoute]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 4)
          .map(([route, ms]) => `${route} ${(ms / 1000).toFixed(1)} s`)
          .join(", ")}`,
    );
    if (!ONLY) {
      for (const route of routes) {
        expect(perRoute.get(`${route.method} ${route.url}`) ?? 0, route.url).toBeGreaterThanOrEqual(MIN_PER_ROUTE);
      }
    }
    expect(failures.length, describeFailures(failures, serverErrors)).toBe(0);
  }, 240_000);

  it("still answers health checks and normal requests afterwards", async () => {
    const anonymous = server.client();
    expect((await anonymous.get("/guest/api/health")).status).toBe(200);
    expect((await anonymous.get("/healthz")).status).toBe(200);
    const jobs = await server.admin.get("/api/spaces/default/jobs");
    expect(jobs.status).toBe(200);
    expect(jobs.body.items.some((j: { id: string }) => j.id === fixtures.jobId)).toBe(true);
    expect((await ro.get("/api/spaces/default/runs?limit=5")).status).toBe(200);
    expect((await server.admin.post("/api/spaces/default/jobs", { ...fuzzJob(fixtures), name: "after" })).status).toBe(
      201,
    );
    expect(server.app.server.listening).toBe(true);
  });
});

function describeFailures(failures: Failure[], serverErrors: string[]): string {
  if (failures.length === 0) return "";
  const lines = failures
    .sort((a, b) => a.c.index - b.c.index)
    .slice(0, 20)
    .map(({ c, built, answer, problems }) => {
      const body = built.request.body === undefined ? "" : String(built.request.body).slice(0, 160);
      const text = "text" in answer ? answer.text.slice(0, 300) : "";
      return [
        `#${c.index} ${built.request.method} ${built.request.path.slice(0, 200)} as ${built.who}: ${problems.join("; ")}`,
        `    headers: ${JSON.stringify(built.request.headers).slice(0, 300)}`,
        `    body (${built.note}): ${JSON.stringify(body)}`,
        `    answer: ${"status" in answer ? answer.status : "-"} ${JSON.stringify(text)}`,
      ].join("\n");
    });
  const kinds = new Map<string, number>();
  for (const { problems } of failures) {
    for (const problem of problems) {
      const kind = problem.replace(/\d+/g, "N");
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    }
  }
  const summary = [...kinds].map(([kind, n]) => `${n}× ${kind}`).join("; ");
  const logs = serverErrors.slice(0, 5).map((line) => `    server log: ${line.slice(0, 400)}`);
  return [
    `${failures.length} bad answers (FUZZ_SEED=${SEED}; FUZZ_ONLY=<#> replays one): ${summary}`,
    ...lines,
    ...logs,
  ].join("\n");
}
