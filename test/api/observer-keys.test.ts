import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { basic } from "../health/health-fixtures.js";
import { jobBody, userWithAccess } from "../helpers/factories.js";
import { ADMIN, DIALECTS, startTestServer, type TestServer } from "../helpers/server.js";

/**
 * Observer keys (DESIGN.md "Operations endpoints") on a real server: made by system users, shown
 * once, stored as a hash, read the full health listing and /metrics with `Authorization: Bearer`
 * and nothing else, refused once revoked, ignored in a query string.
 */
describe.each(DIALECTS)("observer keys on %s", (dialect) => {
  let server: TestServer;
  const JOB_NAME = `Observed ${crypto.randomBytes(3).toString("hex")}`;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    const job = await server.admin.post("/api/spaces/default/jobs", jobBody({ name: JOB_NAME }));
    expect(job.status, job.text).toBe(201);
  });
  afterAll(async () => {
    await server?.stop();
  });

  const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
  const anonymous = () => server.client();
  const create = async (name: string) => {
    const answer = await server.admin.post("/ui-api/admin/observer-keys", { name });
    expect(answer.status, answer.text).toBe(201);
    return answer.body as { id: string; name: string; key: string };
  };
  const health = (headers: Record<string, string> = {}, query = "") =>
    anonymous().request("GET", `/guest/api/health${query}`, undefined, headers);
  const metrics = (headers: Record<string, string> = {}, query = "") =>
    anonymous().request("GET", `/metrics${query}`, undefined, headers);
  const hasFullListing = (body: { jobs: { name?: string }[] }) => body.jobs.some((j) => j.name === JOB_NAME);

  it("creates a key shown once, listed afterwards without it", async () => {
    const answer = await server.admin.post("/ui-api/admin/observer-keys", { name: "  Prometheus  " });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.headers.get("cache-control")).toBe("no-store");
    expect(Object.keys(answer.body).sort()).toEqual(["id", "key", "name"]);
    expect(answer.body.name).toBe("Prometheus");
    // pwo_ and 32 random bytes in base64url: 256 bits.
    expect(answer.body.key).toMatch(/^pwo_[A-Za-z0-9_-]{43}$/);
    expect((await create("Prometheus")).key).not.toBe(answer.body.key);

    const list = await server.admin.get("/ui-api/admin/observer-keys");
    expect(list.status).toBe(200);
    const entry = list.body.items.find((k: { id: string }) => k.id === answer.body.id);
    expect(entry).toEqual({ id: answer.body.id, name: "Prometheus", createdAt: expect.any(String), lastUsedAt: null });
    expect(entry.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(list.text).not.toContain(answer.body.key);
    expect(list.text).not.toContain("key_hash");
  });

  it("stores only the key's SHA-256, never the key", async () => {
    const { id, key } = await create("Stored");
    const rows = await server.ctx.storage.db.selectFrom("observer_keys").selectAll().execute();
    const row = rows.find((r) => r.id === id);
    expect(row?.key_hash).toBe(crypto.createHash("sha256").update(key).digest("hex"));
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(key);
    expect(stored).not.toContain(key.slice(4));
  });

  it("reads the full health listing and /metrics with Bearer, and records the last use", async () => {
    const { id, key } = await create("Monitor");
    const anon = await health();
    expect(anon.status).toBe(200);
    expect(hasFullListing(anon.body)).toBe(false);

    const full = await health(bearer(key));
    expect(full.status, full.text).toBe(200);
    expect(hasFullListing(full.body)).toBe(true);

    const scraped = await metrics(bearer(key));
    expect(scraped.status, scraped.text).toBe(200);
    expect(scraped.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(scraped.text).toContain("# TYPE pagewright_runs_total counter");

    const listed = (await server.admin.get("/ui-api/admin/observer-keys")).body.items.find(
      (k: { id: string }) => k.id === id,
    );
    expect(listed.lastUsedAt).not.toBeNull();
    expect(Date.now() - Date.parse(listed.lastUsedAt)).toBeLessThan(60_000);
  });

  it("opens nothing else: other routes treat a Bearer key as no credential", async () => {
    const { key } = await create("Narrow");
    expect((await anonymous().request("GET", "/api/agent/context", undefined, bearer(key))).status).toBe(401);
    expect((await anonymous().request("GET", "/ui-api/admin/observer-keys", undefined, bearer(key))).status).toBe(401);
    expect((await anonymous().request("GET", "/api/spaces/default/jobs", undefined, bearer(key))).status).toBe(401);
  });

  it("refuses a wrong key with 401 on both endpoints", async () => {
    const wrong = `pwo_${crypto.randomBytes(32).toString("base64url")}`;
    for (const headers of [bearer(wrong), bearer("not-a-key"), { authorization: "Bearer" }]) {
      const h = await health(headers);
      expect(h.status, JSON.stringify(headers)).toBe(401);
      expect(h.headers.get("www-authenticate")).toContain('Bearer realm="Pagewright"');
      expect((await metrics(headers)).status).toBe(401);
    }
  });

  it("ignores a key in the query string: the caller is anonymous", async () => {
    const { key } = await create("Query");
    for (const name of ["key", "token", "access_token"]) {
      const h = await health({}, `?${name}=${encodeURIComponent(key)}`);
      expect(h.status).toBe(200);
      expect(hasFullListing(h.body)).toBe(false);
      expect((await metrics({}, `?${name}=${encodeURIComponent(key)}`)).status).toBe(401);
    }
  });

  it("revokes a key at once: 204, then 401 with it, 404 for a second delete", async () => {
    const { id, key } = await create("Revoked");
    expect((await health(bearer(key))).status).toBe(200);
    const removed = await server.admin.delete(`/ui-api/admin/observer-keys/${id}`);
    expect(removed.status, removed.text).toBe(204);
    expect((await health(bearer(key))).status).toBe(401);
    expect((await metrics(bearer(key))).status).toBe(401);
    const list = (await server.admin.get("/ui-api/admin/observer-keys")).body.items;
    expect(list.some((k: { id: string }) => k.id === id)).toBe(false);
    expect((await server.admin.delete(`/ui-api/admin/observer-keys/${id}`)).status).toBe(404);
    expect((await server.admin.delete("/ui-api/admin/observer-keys/not-an-id")).status).toBe(404);
  });

  it("validates the name: 1 to 100 characters, nothing else in the body", async () => {
    for (const body of [{}, { name: "" }, { name: "   " }, { name: "x".repeat(101) }, { name: "a", key: "pwo_x" }]) {
      const answer = await server.admin.post("/ui-api/admin/observer-keys", body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
    }
    expect((await server.admin.post("/ui-api/admin/observer-keys", { name: "x".repeat(100) })).status).toBe(201);
  });

  it("is for system users only: 401 without a session, 403 for other users", async () => {
    const { id } = await create("Guarded");
    const user = (await userWithAccess(server, "admin")).client;
    expect((await user.get("/ui-api/admin/observer-keys")).status).toBe(403);
    expect((await user.post("/ui-api/admin/observer-keys", { name: "Mine" })).status).toBe(403);
    expect((await user.delete(`/ui-api/admin/observer-keys/${id}`)).status).toBe(403);
    expect((await anonymous().get("/ui-api/admin/observer-keys")).status).toBe(401);
    expect((await anonymous().post("/ui-api/admin/observer-keys", { name: "Anon" })).status).toBe(401);
    // Basic credentials of the system user do not make keys either: sessions only.
    const viaBasic = await anonymous().request("GET", "/ui-api/admin/observer-keys", undefined, {
      authorization: basic(ADMIN.username, ADMIN.password),
    });
    expect(viaBasic.status).toBe(401);
    expect(
      (await server.admin.get("/ui-api/admin/observer-keys")).body.items.some((k: { id: string }) => k.id === id),
    ).toBe(true);
  });
});
