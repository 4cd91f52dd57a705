import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BUILTIN_BLUEPRINTS,
  PLACEHOLDER_INTERFACE_ID,
  PLACEHOLDER_PROVIDER_ID,
} from "../../src/blueprints/builtin-blueprints.js";
import { jobBody, userWithAccess, webhookInterface } from "../helpers/factories.js";
import { DIALECTS, startTestServer, type TestServer } from "../helpers/server.js";

describe.each(DIALECTS)("blueprints API on %s", (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server?.stop());

  it("lists the built-in blueprints to every member, and each becomes a job once its placeholders are filled", async () => {
    const ro = await userWithAccess(server, "ro");
    const list = await ro.client.get("/api/spaces/default/blueprints");
    expect(list.status).toBe(200);
    const builtIns = list.body.items.filter((b: { builtIn: boolean }) => b.builtIn);
    expect(builtIns.length).toBeGreaterThanOrEqual(4);
    const names = builtIns.map((b: { name: string }) => b.name).join(" | ");
    for (const kind of [/snapshot.*e-mail/i, /threshold.*webhook/i, /digest/i, /AI summary/i])
      expect(names).toMatch(kind);

    const webhook = await webhookInterface(server);
    const provider = await server.admin.post("/ui-api/spaces/default/ai-providers", {
      name: "Local model",
      vendor: "openai-compatible",
      endpoint: "http://127.0.0.1:9/v1",
      model: "m",
      apiKey: "sk-test",
    });
    for (const blueprint of builtIns) {
      const one = await ro.client.get(`/api/spaces/default/blueprints/${blueprint.id}`);
      expect(one.body).toEqual(blueprint);
      expect(blueprint.placeholders.length).toBeGreaterThan(0);
      // Unfilled placeholders are refused with the field named.
      const unfilled = await server.admin.post("/api/spaces/default/jobs", blueprint.job);
      expect(unfilled.status).toBe(400);
      expect(unfilled.body.issues.some((i: { path: string[] }) => i.path.includes("interfaceId"))).toBe(true);
      const filled = JSON.parse(
        JSON.stringify(blueprint.job)
          .replaceAll(PLACEHOLDER_INTERFACE_ID, webhook.id)
          .replaceAll(PLACEHOLDER_PROVIDER_ID, provider.body.id),
      );
      const made = await server.admin.post("/api/spaces/default/jobs", filled);
      expect(made.status, `${blueprint.name}: ${made.text}`).toBe(201);
    }
    expect(BUILTIN_BLUEPRINTS.length).toBe(builtIns.length);
  });

  it("lets space admins create, replace and delete own blueprints; rw and ro may only read", async () => {
    const body = {
      name: "Our template",
      description: "team standard",
      job: jobBody({ id: crypto.randomUUID() }),
      placeholders: [],
    };
    const rw = await userWithAccess(server, "rw");
    expect((await rw.client.post("/api/spaces/default/blueprints", body)).status).toBe(403);

    const spaceAdmin = await userWithAccess(server, "admin");
    const created = await spaceAdmin.client.post("/api/spaces/default/blueprints", body);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "Our template", builtIn: false, space: "default" });
    expect(created.body.job.id).toBeUndefined();
    const id = created.body.id;

    expect((await rw.client.get(`/api/spaces/default/blueprints/${id}`)).status).toBe(200);
    expect((await rw.client.put(`/api/spaces/default/blueprints/${id}`, body)).status).toBe(403);
    expect((await rw.client.delete(`/api/spaces/default/blueprints/${id}`)).status).toBe(403);

    const replaced = await spaceAdmin.client.put(`/api/spaces/default/blueprints/${id}`, {
      ...created.body,
      name: "Renamed",
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body.name).toBe("Renamed");
    const listed = await rw.client.get("/api/spaces/default/blueprints");
    expect(listed.body.items.map((b: { name: string }) => b.name)).toContain("Renamed");

    expect((await spaceAdmin.client.delete(`/api/spaces/default/blueprints/${id}`)).status).toBe(204);
    expect((await rw.client.get(`/api/spaces/default/blueprints/${id}`)).status).toBe(404);
  });

  it("keeps built-ins read-only and validates the job inside a blueprint with paths under job", async () => {
    const builtInId = BUILTIN_BLUEPRINTS[0].id;
    const put = await server.admin.put(`/api/spaces/default/blueprints/${builtInId}`, { name: "x", job: jobBody() });
    expect(put.status).toBe(403);
    expect((await server.admin.delete(`/api/spaces/default/blueprints/${builtInId}`)).status).toBe(403);

    const invalid = await server.admin.post("/api/spaces/default/blueprints", {
      name: "",
      job: { ...jobBody(), cron: "99 * * * *" },
      placeholders: [{ path: "" }],
    });
    expect(invalid.status).toBe(400);
    const found = invalid.body.issues.map((i: { path: (string | number)[] }) => i.path.join("."));
    expect(found).toEqual(
      expect.arrayContaining(["name", "job.cron", "placeholders.0.path", "placeholders.0.description"]),
    );
    const missing = await server.admin.post("/api/spaces/default/blueprints", { name: "no job" });
    expect(missing.body.issues.map((i: { path: string[] }) => i.path.join("."))).toEqual(["job"]);
  });

  it("keeps blueprints to their space", async () => {
    await userWithAccess(server, "admin", "elsewhere");
    const created = await server.admin.post("/api/spaces/elsewhere/blueprints", { name: "Local", job: jobBody() });
    expect(created.status).toBe(201);
    expect((await server.admin.get(`/api/spaces/default/blueprints/${created.body.id}`)).status).toBe(404);
    const member = await userWithAccess(server, "ro");
    expect((await member.client.get("/api/spaces/elsewhere/blueprints")).status).toBe(403);
  });
});
