import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "../helpers/client.js";
import { jobBody, userWithAccess } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { STACK_TRACE } from "./security-helpers.js";

/**
 * Attacks on the access model (DESIGN.md "Access model", "UI API"), on bodies ("Bounds") and on
 * secrets at rest: every route without a session, without access, at too low a level, from
 * another origin; sessions after logout and after the user is deleted; huge, deep and
 * prototype-polluting bodies; stack traces in answers; secret bytes in the database file.
 */

type Level = "ro" | "rw" | "admin" | "system" | "user";
type Route = { method: "GET" | "POST" | "PUT" | "DELETE"; path: string; level: Level; body?: unknown };

describe("security: access, origins, sessions, bodies, secrets at rest (sqlite)", () => {
  let server: TestServer;
  let ro: Client;
  let rw: Client;
  let spaceAdmin: Client;
  let outsider: Client;
  let ids: { job: string; blueprint: string; iface: string; provider: string; user: string };
  const INTERFACE_SECRET = `iface-secret-${crypto.randomBytes(8).toString("hex")}`;
  const HEADER_SECRET = `header-secret-${crypto.randomBytes(8).toString("hex")}`;
  const API_KEY = `sk-at-rest-${crypto.randomBytes(8).toString("hex")}`;
  const SMTP_PASSWORD = `smtp-pw-${crypto.randomBytes(8).toString("hex")}`;

  beforeAll(async () => {
    server = await startTestServer("sqlite", {}, { worker: false });
    ro = (await userWithAccess(server, "ro")).client;
    rw = (await userWithAccess(server, "rw")).client;
    spaceAdmin = (await userWithAccess(server, "admin")).client;
    const out = await userWithAccess(server, null);
    outsider = out.client;
    const job = await server.admin.post("/api/spaces/default/jobs", jobBody({ cron: null }));
    const blueprint = await server.admin.post("/api/spaces/default/blueprints", {
      name: "BP",
      description: "d",
      job: jobBody({ cron: null }),
    });
    const iface = await server.admin.post("/ui-api/spaces/default/delivery-interfaces", {
      name: "Hook",
      type: "webhook",
      config: { url: `https://hooks.example.com/x?token=${INTERFACE_SECRET}`, headers: { "X-Key": HEADER_SECRET } },
    });
    const provider = await server.admin.post("/ui-api/spaces/default/ai-providers", {
      name: "AI",
      vendor: "openai-compatible",
      endpoint: "https://ai.example.com/v1",
      model: "m",
      apiKey: API_KEY,
    });
    await server.admin.post("/ui-api/spaces/default/delivery-interfaces", {
      name: "Mail",
      type: "smtp",
      config: { host: "smtp.example.com", username: "u", password: SMTP_PASSWORD, from: "a@example.com" },
    });
    for (const a of [job, blueprint, iface, provider]) expect(a.status, a.text).toBe(201);
    ids = {
      job: job.body.id,
      blueprint: blueprint.body.id,
      iface: iface.body.id,
      provider: provider.body.id,
      user: out.id,
    };
  });
  afterAll(async () => {
    await server?.stop();
  });

  const routes = (space = "default"): Route[] => {
    const s = `/api/spaces/${space}`;
    const u = `/ui-api/spaces/${space}`;
    const job = jobBody({ cron: null });
    const bp = { name: "BP2", description: "", job: jobBody({ cron: null }) };
    const hook = { name: "H", type: "webhook", config: { url: "https://hooks.example.com/y" } };
    const ai = { name: "A", vendor: "openai", model: "m", apiKey: "k" };
    return [
      { method: "GET", path: `${s}/jobs`, level: "ro" },
      { method: "GET", path: `${s}/jobs/${ids.job}`, level: "ro" },
      { method: "GET", path: `${s}/runs`, level: "ro" },
      { method: "GET", path: `${s}/runs/${crypto.randomUUID()}`, level: "ro" },
      { method: "GET", path: `${s}/blueprints`, level: "ro" },
      { method: "GET", path: `${s}/blueprints/${ids.blueprint}`, level: "ro" },
      { method: "GET", path: `${s}/delivery-interfaces`, level: "ro" },
      { method: "GET", path: `${s}/ai-providers`, level: "ro" },
      { method: "POST", path: `${s}/jobs`, level: "rw", body: job },
      { method: "PUT", path: `${s}/jobs/${ids.job}`, level: "rw", body: job },
      { method: "POST", path: `${s}/jobs/${ids.job}/run`, level: "rw", body: {} },
      { method: "POST", path: `${s}/jobs/test`, level: "rw", body: job },
      { method: "POST", path: `${s}/jobs/preview`, level: "rw", body: job },
      { method: "DELETE", path: `${s}/jobs/${ids.job}`, level: "rw" },
      { method: "POST", path: `${s}/blueprints`, level: "admin", body: bp },
      { method: "PUT", path: `${s}/blueprints/${ids.blueprint}`, level: "admin", body: bp },
      { method: "DELETE", path: `${s}/blueprints/${ids.blueprint}`, level: "admin" },
      { method: "POST", path: `${u}/delivery-interfaces`, level: "admin", body: hook },
      { method: "PUT", path: `${u}/delivery-interfaces/${ids.iface}`, level: "admin", body: hook },
      { method: "POST", path: `${u}/delivery-interfaces/${ids.iface}/test`, level: "admin", body: {} },
      { method: "DELETE", path: `${u}/delivery-interfaces/${ids.iface}`, level: "admin" },
      { method: "POST", path: `${u}/ai-providers`, level: "admin", body: ai },
      { method: "PUT", path: `${u}/ai-providers/${ids.provider}`, level: "admin", body: ai },
      { method: "DELETE", path: `${u}/ai-providers/${ids.provider}`, level: "admin" },
    ];
  };
  const adminRoutes = (): Route[] => [
    { method: "GET", path: "/ui-api/admin/users", level: "system" },
    {
      method: "POST",
      path: "/ui-api/admin/users",
      level: "system",
      body: { username: "mallory", password: "mallory-pass-1", systemRole: "system" },
    },
    {
      method: "PUT",
      path: `/ui-api/admin/users/${ids.user}`,
      level: "system",
      body: { username: "outsider-x", password: "new-pass-1234", systemRole: "system" },
    },
    { method: "DELETE", path: `/ui-api/admin/users/${ids.user}`, level: "system" },
    { method: "GET", path: "/ui-api/admin/spaces", level: "system" },
    { method: "POST", path: "/ui-api/admin/spaces", level: "system", body: { id: "evil", name: "evil" } },
    { method: "GET", path: "/ui-api/admin/spaces/default/members", level: "system" },
    {
      method: "PUT",
      path: `/ui-api/admin/spaces/default/members/${ids.user}`,
      level: "system",
      body: { access: "admin" },
    },
    { method: "DELETE", path: `/ui-api/admin/spaces/default/members/${ids.user}`, level: "system" },
    { method: "GET", path: "/ui-api/admin/settings/health-alerts", level: "system" },
    {
      method: "PUT",
      path: "/ui-api/admin/settings/health-alerts",
      level: "system",
      body: {
        enabled: false,
        deliveryInterfaceId: null,
        recipient: null,
        checkEveryMinutes: 5,
        minIntervalMinutes: null,
      },
    },
  ];
  const call = (client: Client, r: Route) => client.request(r.method, r.path, r.body);

  it("answers 401 without a session on every /api and /ui-api route", async () => {
    const anonymous = server.client();
    for (const r of [
      ...routes(),
      ...adminRoutes(),
      { method: "GET", path: "/api/agent/context", level: "user" } as Route,
    ]) {
      const answer = await call(anonymous, r);
      expect(answer.status, `${r.method} ${r.path}`).toBe(401);
      expect(answer.body).toMatchObject({ error: "unauthorized" });
    }
  });

  it("answers 401 for a forged or malformed session cookie", async () => {
    for (const cookie of ["pagewright_session=forged", "pagewright_session=", `pagewright_session=${"A".repeat(43)}`]) {
      const answer = await fetch(`${server.url}/api/agent/context`, { headers: { cookie } });
      expect(answer.status).toBe(401);
    }
  });

  it("answers 403 (never 404) to a user without access, for an existing and an unknown space", async () => {
    for (const space of ["default", "no-such-space", "x%2fdefault", "DEFAULT", "default%00", "-bad"]) {
      for (const r of routes(space)) {
        const answer = await call(outsider, r);
        expect(answer.status, `${r.method} ${r.path}`).toBe(403);
        expect(answer.body).toMatchObject({ error: "forbidden" });
      }
    }
    // A system user has admin on every space that exists, but an unknown space is 403 too.
    for (const r of routes("no-such-space").filter((x) => x.method === "GET")) {
      expect((await call(server.admin, r)).status, r.path).toBe(403);
    }
  });

  it("refuses every write to ro, and admin-only writes to rw, with 403; nothing changes", async () => {
    for (const r of routes()) {
      const asRo = await call(ro, r);
      if (r.level === "ro") expect([200, 404], `ro ${r.method} ${r.path}`).toContain(asRo.status);
      else expect(asRo.status, `ro ${r.method} ${r.path}`).toBe(403);
      if (r.level === "admin") {
        const asRw = await call(rw, r);
        expect(asRw.status, `rw ${r.method} ${r.path}`).toBe(403);
      }
    }
    // The targets are all still there.
    expect((await server.admin.get(`/api/spaces/default/jobs/${ids.job}`)).status).toBe(200);
    expect((await server.admin.get(`/api/spaces/default/blueprints/${ids.blueprint}`)).status).toBe(200);
    const interfaces = (await server.admin.get("/api/spaces/default/delivery-interfaces")).body.items;
    expect(interfaces.map((i: { id: string }) => i.id)).toContain(ids.iface);
    const providers = (await server.admin.get("/api/spaces/default/ai-providers")).body.items;
    expect(providers.map((p: { id: string }) => p.id)).toContain(ids.provider);
    expect((await server.admin.get("/api/spaces/default/jobs")).body.items).toHaveLength(1);
  });

  it("refuses /ui-api/admin/* to every non-system user, space admins included", async () => {
    for (const client of [ro, rw, spaceAdmin, outsider]) {
      for (const r of adminRoutes()) {
        const answer = await call(client, r);
        expect(answer.status, `${r.method} ${r.path}`).toBe(403);
      }
    }
    const users = (await server.admin.get("/ui-api/admin/users")).body.items;
    expect(users.some((u: { username: string }) => u.username === "mallory")).toBe(false);
    expect(users.find((u: { id: string }) => u.id === ids.user)?.systemRole).toBe("user");
    expect(
      (await server.admin.get("/ui-api/admin/spaces")).body.items.some((s: { id: string }) => s.id === "evil"),
    ).toBe(false);
  });

  it("refuses cross-origin POST/PUT/DELETE on /api, /ui-api and /auth with 403 cross_origin", async () => {
    const before = (await server.admin.get("/api/spaces/default/jobs")).body.items.length;
    const foreign: Record<string, string>[] = [
      { origin: "http://evil.example" },
      { origin: "null" },
      { origin: server.url.replace("http://", "https://") },
      { origin: server.url.replace(/:(\d+)$/, (_m, p) => `:${Number(p) + 1}`) },
      { origin: `${server.url}.evil.example` },
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site" },
      { "sec-fetch-site": "same-origin", origin: "http://evil.example" },
    ];
    const targets: Route[] = [
      { method: "POST", path: "/api/spaces/default/jobs", level: "rw", body: jobBody({ cron: null }) },
      { method: "PUT", path: `/api/spaces/default/jobs/${ids.job}`, level: "rw", body: jobBody({ cron: null }) },
      { method: "DELETE", path: `/api/spaces/default/jobs/${ids.job}`, level: "rw" },
      { method: "POST", path: "/api/spaces/default/jobs/preview", level: "rw", body: jobBody({ cron: null }) },
      { method: "DELETE", path: `/ui-api/spaces/default/delivery-interfaces/${ids.iface}`, level: "admin" },
      {
        method: "POST",
        path: "/ui-api/admin/users",
        level: "system",
        body: { username: "csrf-user", password: "csrf-pass-1234", systemRole: "system" },
      },
      { method: "POST", path: "/auth/login-local", level: "user", body: { username: "admin", password: "x" } },
      { method: "POST", path: "/auth/logout", level: "user", body: {} },
    ];
    for (const headers of foreign) {
      for (const r of targets) {
        const answer = await server.admin.request(r.method, r.path, r.body, headers);
        expect(answer.status, `${r.method} ${r.path} ${JSON.stringify(headers)}`).toBe(403);
        expect(answer.body).toEqual({ error: "cross_origin" });
      }
    }
    // Nothing happened: the session still works, the job and the interface are still there.
    expect((await server.admin.get("/api/spaces/default/jobs")).body.items.length).toBe(before);
    expect((await server.admin.get(`/api/spaces/default/jobs/${ids.job}`)).status).toBe(200);
    const users = (await server.admin.get("/ui-api/admin/users")).body.items;
    expect(users.some((u: { username: string }) => u.username === "csrf-user")).toBe(false);
    // Same origin and scripts without the headers are allowed.
    const same = await server.admin.post("/api/spaces/default/jobs/preview", { bad: true }, { origin: server.url });
    expect(same.status).toBe(400);
  });

  it("sets an HttpOnly, SameSite=Lax session cookie (not Secure over plain http)", async () => {
    const answer = await fetch(`${server.url}/auth/login-local`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "admin", password: "admin-password-1" }),
    });
    const cookie = answer.headers.getSetCookie().find((c) => c.startsWith("pagewright_session="));
    expect(cookie).toBeDefined();
    expect(cookie).toMatch(/;\s*HttpOnly/i);
    expect(cookie).toMatch(/;\s*SameSite=Lax/i);
    expect(cookie).toMatch(/;\s*Path=\//i);
    // A spoofed X-Forwarded-Proto from an untrusted client does not change the answer's scheme.
    const token = cookie?.split(";")[0].split("=")[1] ?? "";
    expect(token.length).toBeGreaterThanOrEqual(32);
    // The token is not stored in the clear: only its hash is in the database file.
    const db = fs.readFileSync(path.join(server.dataDir, "pagewright.db"));
    const wal = path.join(server.dataDir, "pagewright.db-wal");
    const bytes = Buffer.concat([db, fs.existsSync(wal) ? fs.readFileSync(wal) : Buffer.alloc(0)]);
    expect(bytes.includes(Buffer.from(token))).toBe(false);
  });

  it("ends the session at logout: the old cookie no longer works", async () => {
    const user = await userWithAccess(server, "rw");
    const stolen = user.client.cookieHeader ?? "";
    expect((await user.client.get("/api/agent/context")).status).toBe(200);
    expect((await user.client.post("/auth/logout")).status).toBe(204);
    const replay = await fetch(`${server.url}/api/agent/context`, { headers: { cookie: stolen } });
    expect(replay.status).toBe(401);
  });

  it("ends the sessions of a deleted user, a demoted member and a user whose password changed", async () => {
    const doomed = await userWithAccess(server, "admin");
    expect((await doomed.client.get("/api/spaces/default/jobs")).status).toBe(200);
    expect((await server.admin.delete(`/ui-api/admin/users/${doomed.id}`)).status).toBe(204);
    expect((await doomed.client.get("/api/agent/context")).status).toBe(401);
    expect((await doomed.client.get("/api/spaces/default/jobs")).status).toBe(401);

    const member = await userWithAccess(server, "rw");
    expect((await server.admin.delete(`/ui-api/admin/spaces/default/members/${member.id}`)).status).toBe(204);
    expect((await member.client.get("/api/spaces/default/jobs")).status).toBe(403);

    const reset = await userWithAccess(server, "rw");
    const put = await server.admin.put(`/ui-api/admin/users/${reset.id}`, { password: "another-pass-99" });
    expect(put.status).toBe(200);
    expect((await reset.client.get("/api/agent/context")).status).toBe(401);
  });

  it("answers 413 to a body over 5 MB, on authenticated and anonymous routes", async () => {
    const big = JSON.stringify({ name: "x", description: "y".repeat(5 * 1024 * 1024 + 10) });
    for (const p of ["/api/spaces/default/jobs", "/auth/login-local", "/ui-api/admin/users"]) {
      const answer = await server.admin.request("POST", p, big, { "content-type": "application/json" });
      expect(answer.status, p).toBe(413);
      expect(answer.text).not.toMatch(STACK_TRACE);
    }
  });

  it("answers 400 (not 500, no crash) to deeply nested JSON", async () => {
    const depth = 200_000;
    const deepArray = `${"[".repeat(depth)}${"]".repeat(depth)}`;
    const deepObject = `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
    const deepSteps = (() => {
      let steps: unknown = [{ type: "wait", ms: 1 }];
      for (let i = 0; i < 2000; i++) steps = [{ type: "if", condition: "1 > 0", then: steps }];
      return JSON.stringify({ ...jobBody({ cron: null }), capture: { steps } });
    })();
    for (const body of [deepArray, deepObject, deepSteps]) {
      for (const p of ["/api/spaces/default/jobs", "/api/spaces/default/jobs/preview", "/auth/login-local"]) {
        const answer = await server.admin.request("POST", p, body, { "content-type": "application/json" });
        expect(answer.status, `${p} ${body.slice(0, 20)}`).toBeGreaterThanOrEqual(400);
        expect(answer.status, `${p} ${body.slice(0, 20)}`).toBeLessThan(500);
        expect(answer.text).not.toMatch(STACK_TRACE);
      }
    }
    expect((await server.admin.get("/api/agent/context")).status).toBe(200);
  });

  it("refuses prototype-pollution keys in job bodies, variable names and webhook headers", async () => {
    const bodies = [
      `{"__proto__":{"polluted":"yes"},"name":"p","capture":{"steps":[{"type":"wait","ms":1}]}}`,
      `{"name":"p","constructor":{"prototype":{"polluted":"yes"}},"capture":{"steps":[{"type":"wait","ms":1}]}}`,
      `{"name":"p","capture":{"steps":[{"type":"wait","ms":1,"__proto__":{"polluted":"yes"}}]}}`,
    ];
    for (const body of bodies) {
      const answer = await server.admin.request("POST", "/api/spaces/default/jobs", body, {
        "content-type": "application/json",
      });
      expect(answer.status, body).toBe(400);
      expect(answer.text).not.toMatch(STACK_TRACE);
    }
    const hooks = [
      `{"name":"h","type":"webhook","config":{"url":"https://h.example.com/","headers":{"__proto__":{"polluted":"yes"}}}}`,
      `{"name":"h","type":"webhook","config":{"url":"https://h.example.com/","headers":{"constructor":{"prototype":{"polluted":"yes"}}}}}`,
    ];
    for (const body of hooks) {
      const answer = await server.admin.request("POST", "/ui-api/spaces/default/delivery-interfaces", body, {
        "content-type": "application/json",
      });
      expect(answer.status, body).toBe(400);
    }
    // Variable names that are Object.prototype's own names: stored as data, never as prototypes.
    const job = jobBody({
      cron: null,
      capture: {
        steps: [
          { type: "navigate", url: "https://dash.example.com/" },
          { type: "extract", as: "__proto__", selector: "#a" },
          { type: "extract", as: "constructor", selector: "#b" },
          { type: "calculate", as: "hasOwnProperty", expression: "1 + 1" },
        ],
      },
      report: {
        pages: [
          {
            rows: [{ cells: [{ blocks: [{ type: "text", content: "{{ constructor.prototype }} {{ __proto__ }}" }] }] }],
          },
        ],
      },
    } as never);
    const created = await server.admin.post("/api/spaces/default/jobs", job);
    expect([201, 400]).toContain(created.status);
    expect(created.text).not.toMatch(STACK_TRACE);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty("polluted");
    if (created.status === 201) await server.admin.delete(`/api/spaces/default/jobs/${created.body.id}`);
  });

  it("never answers a stack trace or a source path, whatever is sent", async () => {
    const tries: { method: string; path: string; body?: string; headers?: Record<string, string> }[] = [
      {
        method: "POST",
        path: "/api/spaces/default/jobs",
        body: "{not json",
        headers: { "content-type": "application/json" },
      },
      {
        method: "POST",
        path: "/api/spaces/default/jobs",
        body: "null",
        headers: { "content-type": "application/json" },
      },
      {
        method: "POST",
        path: "/api/spaces/default/jobs",
        body: "[1,2]",
        headers: { "content-type": "application/json" },
      },
      {
        method: "POST",
        path: "/api/spaces/default/jobs",
        body: '"str"',
        headers: { "content-type": "application/json" },
      },
      { method: "POST", path: "/api/spaces/default/jobs", body: "x=1", headers: { "content-type": "text/plain" } },
      { method: "POST", path: "/api/spaces/default/jobs", body: "x", headers: { "content-type": "application/xml" } },
      {
        method: "POST",
        path: "/api/spaces/default/jobs",
        body: "\u0000\uffff",
        headers: { "content-type": "application/json" },
      },
      {
        method: "POST",
        path: "/api/spaces/default/jobs",
        body: '{"name":1e400}',
        headers: { "content-type": "application/json" },
      },
      {
        method: "POST",
        path: "/api/spaces/default/jobs",
        body: JSON.stringify({ ...jobBody(), cron: "99 99 99 99 99", timezone: "Mars/Olympus", id: "../../etc" }),
        headers: { "content-type": "application/json" },
      },
      { method: "GET", path: "/api/spaces/default/runs?cursor=%ff%fe" },
      { method: "GET", path: "/api/spaces/default/runs?cursor=eyJhIjoxfQ" },
      { method: "GET", path: "/api/spaces/default/runs?limit=-1&since=yesterday&until=%00" },
      { method: "GET", path: "/api/spaces/default/runs?limit=1e999&state[]=x&jobId=1" },
      { method: "GET", path: "/api/spaces/default/jobs/%E0%A4%A" },
      { method: "GET", path: "/api/spaces/%E0%A4%A/jobs" },
      { method: "GET", path: `/api/spaces/default/jobs/${"a".repeat(10_000)}` },
      {
        method: "PUT",
        path: `/api/spaces/default/jobs/${crypto.randomUUID()}`,
        body: "{}",
        headers: { "content-type": "application/json" },
      },
      {
        method: "POST",
        path: "/auth/login-local",
        body: '{"username":{"$gt":""},"password":[]}',
        headers: { "content-type": "application/json" },
      },
      {
        method: "POST",
        path: "/ui-api/admin/users",
        body: '{"username":"","password":1,"systemRole":"root"}',
        headers: { "content-type": "application/json" },
      },
      {
        method: "PUT",
        path: "/ui-api/admin/spaces/default/members/not-a-uuid",
        body: '{"access":"god"}',
        headers: { "content-type": "application/json" },
      },
      { method: "GET", path: "/files/runs/x/y" },
      { method: "GET", path: "/llms/schema/..%2f..%2fpackage.json" },
      { method: "GET", path: "/llms/..%2f..%2fpackage.json" },
      { method: "GET", path: "/guest/api/health", headers: { authorization: "Basic !!!" } },
      {
        method: "GET",
        path: "/guest/api/health",
        headers: { authorization: `Basic ${Buffer.from("a").toString("base64")}` },
      },
      {
        method: "DELETE",
        path: "/api/spaces/default/jobs",
        body: "{}",
        headers: { "content-type": "application/json" },
      },
      {
        method: "PATCH",
        path: `/api/spaces/default/jobs/${ids.job}`,
        body: "{}",
        headers: { "content-type": "application/json" },
      },
    ];
    for (const t of tries) {
      const answer = await server.admin.request(t.method, t.path, t.body, t.headers ?? {});
      expect(answer.status, `${t.method} ${t.path}`).toBeLessThan(500);
      expect(answer.text, `${t.method} ${t.path}`).not.toMatch(STACK_TRACE);
      expect(answer.text).not.toContain(server.dataDir);
    }
  });

  it("keeps interface and provider secrets encrypted in the database file", async () => {
    const files = fs.readdirSync(server.dataDir).filter((f) => f.startsWith("pagewright.db"));
    expect(files.length).toBeGreaterThan(0);
    const bytes = Buffer.concat(files.map((f) => fs.readFileSync(path.join(server.dataDir, f))));
    for (const secret of [INTERFACE_SECRET, HEADER_SECRET, API_KEY, SMTP_PASSWORD]) {
      expect(bytes.includes(Buffer.from(secret)), secret).toBe(false);
      // Not base64 of the clear text either.
      expect(bytes.includes(Buffer.from(Buffer.from(secret).toString("base64")))).toBe(false);
    }
  });

  it("never returns a secret through the agent API or the /ui-api reads, at any level", async () => {
    const paths = [
      "/api/spaces/default/delivery-interfaces",
      "/api/spaces/default/ai-providers",
      "/api/agent/context",
      "/api/spaces/default/jobs",
      "/api/spaces/default/blueprints",
      "/guest/api/health",
    ];
    for (const client of [ro, rw, spaceAdmin, server.admin]) {
      for (const p of paths) {
        const answer = await client.get(p);
        for (const secret of [INTERFACE_SECRET, HEADER_SECRET, API_KEY, SMTP_PASSWORD]) {
          expect(answer.text, `${p} ${secret}`).not.toContain(secret);
        }
      }
    }
    // The write answers of /ui-api do not echo the secret either.
    const put = await server.admin.put(`/ui-api/spaces/default/delivery-interfaces/${ids.iface}`, {
      name: "Hook",
      type: "webhook",
      config: { url: `https://hooks.example.com/x?token=${INTERFACE_SECRET}`, headers: { "X-Key": HEADER_SECRET } },
    });
    expect(put.status).toBe(200);
    expect(put.text).not.toContain(INTERFACE_SECRET);
    expect(put.text).not.toContain(HEADER_SECRET);
  });
});
