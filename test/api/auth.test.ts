import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../helpers/client.js";
import { jobBody } from "../helpers/factories.js";
import { ADMIN, DIALECTS, startTestServer, type TestServer } from "../helpers/server.js";

describe.each(DIALECTS)("auth on %s", (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server?.stop());

  it("logs in with the right password: 200 {user} and an HttpOnly SameSite=Lax cookie", async () => {
    const response = await fetch(`${server.url}/auth/login-local`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(ADMIN),
    });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.user).toMatchObject({ username: "admin", systemRole: "system" });
    expect(body.user.passwordHash).toBeUndefined();
    const cookie = response.headers.getSetCookie().find((c) => c.startsWith("pagewright_session="));
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).not.toMatch(/Secure/i);
  });

  it("refuses a wrong password and an unknown user with 401", async () => {
    const client = server.client();
    expect((await client.post("/auth/login-local", { username: "admin", password: "nope-nope" })).status).toBe(401);
    expect((await client.post("/auth/login-local", { username: "ghost", password: "nope-nope" })).status).toBe(401);
  });

  it("answers 400 with issues for a malformed login body", async () => {
    const answer = await server.client().post("/auth/login-local", { username: 3 });
    expect(answer.status).toBe(400);
    expect(answer.body.issues.map((i: { path: string[] }) => i.path[0]).sort()).toEqual(["password", "username"]);
  });

  it("answers 401 without a session on every agent API path", async () => {
    const anonymous = server.client();
    const id = "3f0c1a52-5b7e-4c1e-9a53-0d3f3e1b2c44";
    for (const [method, path] of [
      ["GET", "/api/agent/context"],
      ["GET", "/api/spaces/default/jobs"],
      ["POST", "/api/spaces/default/jobs"],
      ["GET", `/api/spaces/default/jobs/${id}`],
      ["PUT", `/api/spaces/default/jobs/${id}`],
      ["DELETE", `/api/spaces/default/jobs/${id}`],
      ["GET", "/api/spaces/default/blueprints"],
      ["POST", "/api/spaces/default/blueprints"],
      ["GET", `/api/spaces/default/blueprints/${id}`],
      ["GET", "/api/spaces/default/delivery-interfaces"],
      ["GET", "/api/spaces/default/ai-providers"],
      ["GET", "/ui-api/admin/users"],
    ]) {
      const answer = await anonymous.request(method, path, method === "GET" || method === "DELETE" ? undefined : {});
      expect(answer.status, `${method} ${path}`).toBe(401);
      expect(answer.body).toEqual({ error: "unauthorized" });
    }
  });

  it("logs out: the session stops working", async () => {
    const client = server.client();
    await client.login(ADMIN.username, ADMIN.password);
    expect((await client.get("/api/agent/context")).status).toBe(200);
    const before = client.hasSession;
    expect(before).toBe(true);
    const cookieClient = new Client(server.url);
    await cookieClient.login(ADMIN.username, ADMIN.password);
    expect((await cookieClient.post("/auth/logout")).status).toBe(204);
    expect((await cookieClient.get("/api/agent/context")).status).toBe(401);
  });

  it("refuses cross-origin writes with 403 cross_origin, even with the session cookie", async () => {
    const admin = server.admin;
    const body = jobBody();
    const foreign = await admin.post("/api/spaces/default/jobs", body, { origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toEqual({ error: "cross_origin" });
    const crossSite = await admin.post("/api/spaces/default/jobs", body, { "sec-fetch-site": "cross-site" });
    expect(crossSite.status).toBe(403);
    const sameSite = await admin.request(
      "DELETE",
      "/api/spaces/default/jobs/3f0c1a52-5b7e-4c1e-9a53-0d3f3e1b2c44",
      undefined,
      {
        "sec-fetch-site": "same-site",
      },
    );
    expect(sameSite.status).toBe(403);
    const nullOrigin = await admin.put("/api/spaces/default/jobs/3f0c1a52-5b7e-4c1e-9a53-0d3f3e1b2c44", body, {
      origin: "null",
    });
    expect(nullOrigin.status).toBe(403);
    // Nothing was created by the refused requests.
    expect(
      (await admin.get("/api/spaces/default/jobs")).body.items.filter((j: { name: string }) => j.name === body.name),
    ).toEqual([]);
    // Same origin and header-less clients are allowed.
    const same = await admin.post("/api/spaces/default/jobs", body, {
      origin: server.url,
      "sec-fetch-site": "same-origin",
    });
    expect(same.status).toBe(201);
    expect((await admin.post("/api/spaces/default/jobs", jobBody())).status).toBe(201);
    // A cross-origin login is refused too (login CSRF).
    const login = await server.client().post("/auth/login-local", ADMIN, { origin: "https://evil.example" });
    expect(login.status).toBe(403);
  });
});

describe("failed-login limit", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer("sqlite");
  });
  afterAll(() => server?.stop());

  it("after 10 failures for a user name from one address, refuses even the right password with 429 and Retry-After", async () => {
    const client = server.client();
    const created = await server.admin.post("/ui-api/admin/users", { username: "victim", password: "right-password" });
    expect(created.status).toBe(201);
    for (let i = 0; i < 10; i++) {
      expect((await client.post("/auth/login-local", { username: "victim", password: `wrong-${i}` })).status).toBe(401);
    }
    const blocked = await client.post("/auth/login-local", { username: "victim", password: "right-password" });
    expect(blocked.status).toBe(429);
    const retryAfter = Number(blocked.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(800);
    expect(retryAfter).toBeLessThanOrEqual(900);
    // Another user from the same address is not blocked by this user's failures.
    expect((await client.post("/auth/login-local", ADMIN)).status).toBe(200);
  });

  it("after 100 failures from one address (unknown names count), refuses every name", async () => {
    const client = server.client();
    const attempts = Array.from({ length: 100 }, (_, i) =>
      client.post("/auth/login-local", { username: `nobody-${i}`, password: "wrong-password" }),
    );
    const statuses = (await Promise.all(attempts)).map((a) => a.status);
    expect(statuses.filter((s) => s === 401).length).toBeGreaterThan(0);
    const blocked = await client.post("/auth/login-local", ADMIN);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});
