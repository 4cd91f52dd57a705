import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { userWithAccess } from "../helpers/factories.js";
import { DIALECTS, startTestServer, type TestServer } from "../helpers/server.js";

describe.each(DIALECTS)("accounts, spaces and context on %s", (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server?.stop());

  it("creates the admin and the space default on the first start", async () => {
    const context = await server.admin.get("/api/agent/context");
    expect(context.status).toBe(200);
    expect(context.body).toMatchObject({
      user: { username: "admin", systemRole: "system" },
      spaces: [{ id: "default", name: "Default", access: "admin" }],
      limits: { edition: "unlimited", jobs: null, deliveryInterfaces: null, aiProviders: null, captureSteps: 500 },
      guide: "/llms.txt",
    });
    expect(context.body.version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("shows a user only the spaces they are a member of, with their access", async () => {
    await server.admin.post("/ui-api/admin/spaces", { id: "marketing", name: "Marketing" });
    const member = await userWithAccess(server, "rw", "marketing");
    const context = await member.client.get("/api/agent/context");
    expect(context.body.spaces).toEqual([{ id: "marketing", name: "Marketing", access: "rw" }]);
    expect(Object.keys(context.body.usage)).toEqual(["marketing"]);
    expect(context.body.user.systemRole).toBe("user");
  });

  it("manages users: create, conflict, update with a new password, delete; only system users may", async () => {
    const created = await server.admin.post("/ui-api/admin/users", {
      username: "carla",
      password: "first-password",
      email: "carla@example.com",
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ username: "carla", systemRole: "user", email: "carla@example.com" });
    expect(created.text).not.toContain("first-password");
    expect(created.text).not.toContain("scrypt");
    expect(
      (await server.admin.post("/ui-api/admin/users", { username: "carla", password: "another-pass" })).status,
    ).toBe(409);
    const short = await server.admin.post("/ui-api/admin/users", { username: "x y", password: "short" });
    expect(short.body.issues.map((i: { path: string[] }) => i.path[0]).sort()).toEqual(["password", "username"]);

    const carla = server.client();
    await carla.login("carla", "first-password");
    expect((await carla.get("/ui-api/admin/users")).status).toBe(403);
    expect((await carla.post("/ui-api/admin/spaces", { id: "mine", name: "Mine" })).status).toBe(403);

    const stored = await server.ctx.storage.db
      .selectFrom("users")
      .select("password_hash")
      .where("username", "=", "carla")
      .executeTakeFirstOrThrow();
    expect(stored.password_hash).toMatch(/^scrypt\$/);

    const updated = await server.admin.put(`/ui-api/admin/users/${created.body.id}`, {
      password: "second-password",
      systemRole: "system",
    });
    expect(updated.status).toBe(200);
    expect(updated.body.systemRole).toBe("system");
    // A new password ends the user's sessions.
    expect((await carla.get("/api/agent/context")).status).toBe(401);
    await carla.login("carla", "second-password");
    expect((await carla.get("/ui-api/admin/users")).status).toBe(200);

    expect((await server.admin.delete(`/ui-api/admin/users/${created.body.id}`)).status).toBe(204);
    expect((await carla.get("/api/agent/context")).status).toBe(401);
    expect((await server.admin.delete(`/ui-api/admin/users/${created.body.id}`)).status).toBe(404);
    expect((await server.admin.put(`/ui-api/admin/users/${crypto.randomUUID()}`, {})).status).toBe(404);
  });

  it("never removes or demotes the last system user", async () => {
    const me = (await server.admin.get("/api/agent/context")).body.user;
    const demote = await server.admin.put(`/ui-api/admin/users/${me.id}`, { systemRole: "user" });
    expect(demote.status).toBe(409);
    expect((await server.admin.delete(`/ui-api/admin/users/${me.id}`)).status).toBe(409);
  });

  it("manages spaces and members; access levels take effect at once", async () => {
    const bad = await server.admin.post("/ui-api/admin/spaces", { id: "Bad Id!", name: "" });
    expect(bad.body.issues.map((i: { path: string[] }) => i.path[0]).sort()).toEqual(["id", "name"]);
    expect((await server.admin.post("/ui-api/admin/spaces", { id: "finance", name: "Finance" })).status).toBe(201);
    expect((await server.admin.post("/ui-api/admin/spaces", { id: "finance", name: "Again" })).status).toBe(409);
    const spaces = await server.admin.get("/ui-api/admin/spaces");
    expect(spaces.body.items.map((s: { id: string }) => s.id)).toContain("finance");

    const user = await userWithAccess(server, "ro", "finance");
    expect((await user.client.get("/api/spaces/finance/jobs")).status).toBe(200);
    expect((await user.client.post("/api/spaces/finance/jobs", {})).status).toBe(403);
    await server.admin.put(`/ui-api/admin/spaces/finance/members/${user.id}`, { access: "rw" });
    expect((await user.client.post("/api/spaces/finance/jobs", {})).status).toBe(400);
    const members = await server.admin.get("/ui-api/admin/spaces/finance/members");
    expect(members.body.items).toEqual([{ userId: user.id, username: user.username, access: "rw" }]);
    expect(
      (await server.admin.put(`/ui-api/admin/spaces/finance/members/${user.id}`, { access: "owner" })).status,
    ).toBe(400);
    expect((await server.admin.delete(`/ui-api/admin/spaces/finance/members/${user.id}`)).status).toBe(204);
    expect((await user.client.get("/api/spaces/finance/jobs")).status).toBe(403);
    expect((await server.admin.put(`/ui-api/admin/spaces/nowhere/members/${user.id}`, { access: "ro" })).status).toBe(
      404,
    );
  });

  it("answers unknown paths with 404 JSON and never a stack trace", async () => {
    const answer = await server.admin.get("/api/nothing-here");
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ error: "not_found" });
  });
});
