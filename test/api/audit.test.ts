import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobBody, userWithAccess, webhookInterface } from "../helpers/factories.js";
import { DIALECTS, startTestServer, type TestServer } from "../helpers/server.js";

describe.each(DIALECTS)("the audit log on %s", (dialect) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(dialect);
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
  });

  const entries = async (query = "") => (await server.admin.get(`/ui-api/admin/audit${query}`)).body.items;

  it("records who created, changed and deleted a job, with the change, and no password", async () => {
    const created = await server.admin.post(
      "/api/spaces/default/jobs",
      jobBody({
        name: "Audited job",
        capture: {
          steps: [
            { type: "navigate", url: "https://dash.example.com/login" },
            { type: "type", selector: "#password", text: "hunter2-very-secret", sensitive: true },
          ],
        },
      }),
    );
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect(
      (await server.admin.put(`/api/spaces/default/jobs/${id}`, { ...created.body, name: "Audited job, renamed" }))
        .status,
    ).toBe(200);
    expect((await server.admin.delete(`/api/spaces/default/jobs/${id}`)).status).toBe(204);

    const log = await entries(`?type=job&targetId=${id}`);
    expect(log.map((e: { action: string }) => e.action)).toEqual(["delete", "update", "create"]);
    expect(log[0]).toMatchObject({ space: "default", actor: { username: "admin" }, target: { type: "job", id } });
    expect(log[1].changes).toEqual({ fields: { name: { from: "Audited job", to: "Audited job, renamed" } } });
    expect(log[2].changes.after.name).toBe("Audited job");
    expect(JSON.stringify(log)).not.toContain("hunter2-very-secret");
  });

  it("records interfaces without their secrets, users without passwords, members and settings", async () => {
    const secret = "https://hooks.example.com/T9/very-secret-path";
    const hook = await webhookInterface(server, "default", secret);
    const user = await server.admin.post("/ui-api/admin/users", {
      username: "audited-user",
      password: "password-1234",
      systemRole: "user",
    });
    await server.admin.put(`/ui-api/admin/users/${user.body.id}`, { password: "another-password-5678" });
    await server.admin.put(`/ui-api/admin/spaces/default/members/${user.body.id}`, { access: "rw" });
    const text = JSON.stringify(await entries("?limit=200"));
    expect(text).not.toContain("very-secret-path");
    expect(text).not.toContain("header-secret");
    expect(text).not.toContain("password-1234");
    expect(text).not.toContain("another-password-5678");
    const [iface] = await entries(`?type=delivery_interface&targetId=${hook.id}`);
    expect(iface).toMatchObject({ action: "create", target: { name: expect.stringMatching(/^Webhook/) } });
    const [passwordChange] = await entries(`?type=user&targetId=${user.body.id}`);
    expect(passwordChange.changes.fields.password).toEqual({ from: null, to: "(changed)" });
    const [member] = await entries(`?type=member&targetId=${user.body.id}`);
    expect(member).toMatchObject({ action: "create", space: "default", changes: { after: { access: "rw" } } });
  });

  it("shows space admins their space only; others are refused", async () => {
    await server.admin.post("/ui-api/admin/spaces", { id: "audit-other", name: "Other" });
    await server.admin.post("/api/spaces/audit-other/jobs", jobBody({ name: "In the other space" }));
    const spaceAdmin = await userWithAccess(server, "admin");
    const own = (await spaceAdmin.client.get("/ui-api/spaces/default/audit?limit=200")).body.items;
    expect(own.length).toBeGreaterThan(0);
    expect(own.every((e: { space: string }) => e.space === "default")).toBe(true);
    expect((await spaceAdmin.client.get("/ui-api/spaces/audit-other/audit")).status).toBe(403);
    expect((await spaceAdmin.client.get("/ui-api/admin/audit")).status).toBe(403);
    const rw = await userWithAccess(server, "rw");
    expect((await rw.client.get("/ui-api/spaces/default/audit")).status).toBe(403);
    // System users read any space's, or all.
    const other = await entries("?space=audit-other");
    expect(other.map((e: { target: { name: string } }) => e.target.name)).toContain("In the other space");
  });

  it("pages newest first with a cursor, and refuses a bad one", async () => {
    const first = (await server.admin.get("/ui-api/admin/audit?limit=2")).body;
    expect(first.items).toHaveLength(2);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = (await server.admin.get(`/ui-api/admin/audit?limit=2&cursor=${first.nextCursor}`)).body;
    expect(second.items[0].at <= first.items[1].at).toBe(true);
    expect(second.items.map((e: { id: string }) => e.id)).not.toContain(first.items[1].id);
    expect((await server.admin.get("/ui-api/admin/audit?cursor=nonsense")).status).toBe(400);
    expect((await server.admin.get("/ui-api/admin/audit?type=nothing")).status).toBe(400);
  });

  it("forgets entries past the retention", async () => {
    const before = (await entries("?limit=200")).length;
    expect(await server.ctx.audit.deleteBefore(new Date(Date.now() + 60_000))).toBe(before);
    expect(await entries()).toEqual([]);
  });
});
