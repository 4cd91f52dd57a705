import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestSite, type TestSite } from "../fixtures/test-site.js";
import { jobBody, userWithAccess, webhookInterface } from "../helpers/factories.js";
import { ADMIN, DIALECTS, startTestServer, type TestServer } from "../helpers/server.js";
import { postStream } from "../helpers/sse.js";

const SECRET_URL = "https://hooks.example.com/T1/restore-secret-path";

describe.each(DIALECTS)("export and import on %s", (dialect) => {
  let server: TestServer;
  let site: TestSite;
  // biome-ignore lint/suspicious/noExplicitAny: an export document is inspected field by field
  let exported: any;
  let snapshot: Record<string, unknown>;
  let hookId: string;

  const state = async () => ({
    jobs: (await server.admin.get("/api/spaces/default/jobs")).body,
    blueprints: (await server.admin.get("/api/spaces/default/blueprints")).body,
    interfaces: (await server.admin.get("/api/spaces/default/delivery-interfaces")).body,
    providers: (await server.admin.get("/api/spaces/default/ai-providers")).body,
    users: (await server.admin.get("/ui-api/admin/users")).body,
    members: (await server.admin.get("/ui-api/admin/spaces/default/members")).body,
    alerts: (await server.admin.get("/ui-api/admin/settings/health-alerts")).body,
  });

  beforeAll(async () => {
    [server, site] = await Promise.all([startTestServer(dialect), startTestSite()]);
    hookId = (await webhookInterface(server, "default", SECRET_URL)).id;
    const job = await server.admin.post(
      "/api/spaces/default/jobs",
      jobBody({
        name: "Kept in the backup",
        capture: { steps: [{ type: "navigate", url: `${site.url}/table` }] },
        deliveries: [{ interfaceId: hookId, message: "hi" }],
      }),
    );
    expect(job.status).toBe(201);
    await server.admin.post("/ui-api/spaces/default/ai-providers", {
      name: "Model",
      vendor: "openai-compatible",
      endpoint: "https://models.example.com/v1",
      model: "m",
      apiKey: "sk-restore-secret-key",
    });
    await server.admin.post("/api/spaces/default/blueprints", {
      name: "Own template",
      description: "made by a test",
      job: jobBody({ name: "From the template" }),
    });
    await userWithAccess(server, "rw");
    await postStream(server.admin, `/api/spaces/default/jobs/${job.body.id}/run`);
    snapshot = await state();
  }, 90_000);

  afterAll(async () => {
    await server?.stop();
    await site?.stop();
  });

  it("exports everything but files, secrets still sealed, run history on request", async () => {
    const answer = await server.admin.get("/ui-api/admin/export");
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-disposition")).toMatch(/attachment; filename="pagewright-export-.*\.json"/);
    exported = answer.body;
    expect(exported).toMatchObject({ format: "pagewright-export", version: 1, includesRuns: false });
    expect(Object.keys(exported.tables)).toEqual(
      expect.arrayContaining([
        "users",
        "spaces",
        "space_members",
        "jobs",
        "blueprints",
        "delivery_interfaces",
        "ai_providers",
        "settings",
      ]),
    );
    expect(exported.tables.runs).toBeUndefined();
    expect(answer.text).not.toContain("restore-secret-path");
    expect(answer.text).not.toContain("sk-restore-secret-key");
    expect(exported.tables.sessions).toBeUndefined();
    const withRuns = (await server.admin.get("/ui-api/admin/export?runs=true")).body;
    expect(withRuns.tables.runs.length).toBeGreaterThanOrEqual(1);
  });

  it("restores the exported state over later changes, in one go, and ends the sessions", async () => {
    // Later changes: a job deleted, another made, a member added.
    const jobs = snapshot.jobs as { items: { id: string }[] };
    await server.admin.delete(`/api/spaces/default/jobs/${jobs.items[0].id}`);
    await server.admin.post("/api/spaces/default/jobs", jobBody({ name: "Made after the export" }));
    await userWithAccess(server, "ro");
    const member = await userWithAccess(server, "rw");

    const runsBefore = (await server.admin.get("/api/spaces/default/runs")).body.items;
    const imported = await server.admin.post("/ui-api/admin/import", exported);
    expect(imported.status).toBe(200);
    expect(imported.body.imported).toMatchObject({
      jobs: 1,
      users: (snapshot.users as { items: unknown[] }).items.length,
    });
    // Sessions ended: sign in again.
    expect((await server.admin.get("/api/agent/context")).status).toBe(401);
    expect((await member.client.get("/api/agent/context")).status).toBe(401);
    await server.admin.login(ADMIN.username, ADMIN.password);
    expect(await state()).toEqual(snapshot);
    // The sealed secrets open with this instance's key.
    const hook = await server.ctx.interfaces.getWithSecrets("default", hookId);
    expect(hook?.secrets.url).toBe(SECRET_URL);
    // Run history was not in this file: the runs table is left as it was.
    expect((await server.admin.get("/api/spaces/default/runs")).body.items).toEqual(runsBefore);
  });

  it("checks the whole file first and names every problem; nothing changes", async () => {
    const before = await state();
    const broken = structuredClone(exported);
    broken.tables.jobs[0].name = 42;
    broken.tables.jobs[0].colour = "red";
    broken.tables.space_members[0].space_id = "no-such-space";
    delete broken.tables.users[0].username;
    const refused = await server.admin.post("/ui-api/admin/import", broken);
    expect(refused.status).toBe(400);
    const paths = refused.body.issues.map((i: { path: (string | number)[] }) => i.path.join("."));
    expect(paths).toEqual(
      expect.arrayContaining(["tables.jobs.0.name", "tables.jobs.0.colour", "tables.users.0.username"]),
    );
    expect(await state()).toEqual(before);

    const references = structuredClone(exported);
    references.tables.space_members[0].space_id = "no-such-space";
    const unknownSpace = await server.admin.post("/ui-api/admin/import", references);
    expect(unknownSpace.body.issues[0]).toMatchObject({
      path: ["tables", "space_members", 0, "space_id"],
      message: "names a space that is not in the file",
    });
    for (const [change, path] of [
      [{ format: "something-else" }, "format"],
      [{ version: 99 }, "version"],
      [{ schema: "9999-future" }, "schema"],
      [{ keyCheck: "not-sealed" }, "keyCheck"],
    ] as const) {
      const answer = await server.admin.post("/ui-api/admin/import", { ...exported, ...change });
      expect(answer.status).toBe(400);
      expect(answer.body.issues.map((i: { path: string[] }) => i.path[0])).toContain(path);
    }
    expect(await state()).toEqual(before);
  });

  it("upgrades a file of an older version on the way in", async () => {
    const older = structuredClone((await server.admin.get("/ui-api/admin/export?runs=true")).body);
    older.schema = "0005-job-secrets";
    delete older.tables.observer_keys;
    delete older.tables.audit_log;
    for (const run of older.tables.runs) delete run.scheduled_for;
    const answer = await server.admin.post("/ui-api/admin/import", older);
    expect(answer.status).toBe(200);
    await server.admin.login(ADMIN.username, ADMIN.password);
    expect((await server.admin.get("/api/spaces/default/runs")).body.items.length).toBe(older.tables.runs.length);
  });

  it("refuses a second import while one runs, a file of another SECRET_KEY, and non-system users", async () => {
    await server.ctx.storage.db
      .insertInto("settings")
      .values({ key: "import.running", value: JSON.stringify(new Date().toISOString()) })
      .execute();
    const busy = await server.admin.post("/ui-api/admin/import", exported);
    expect(busy.status).toBe(409);
    await server.ctx.storage.db.deleteFrom("settings").where("key", "=", "import.running").execute();

    const other = await startTestServer(dialect, { SECRET_KEY: "another-secret-key-0123456789abc" });
    try {
      const foreign = (await other.admin.get("/ui-api/admin/export")).body;
      const refused = await server.admin.post("/ui-api/admin/import", foreign);
      expect(refused.status).toBe(400);
      expect(refused.body.issues[0].message).toMatch(/another SECRET_KEY/);
    } finally {
      await other.stop();
    }
    const rw = await userWithAccess(server, "admin");
    expect((await rw.client.get("/ui-api/admin/export")).status).toBe(403);
    expect((await rw.client.post("/ui-api/admin/import", exported)).status).toBe(403);
  });
});

describe("pagewright export and import on the command line", () => {
  it("writes a file that import reads back, and names the problems of a bad one", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "pagewright-cli-export-"));
    try {
      const server = await startTestServer("sqlite", {}, { dataDir });
      await server.admin.post("/api/spaces/default/jobs", jobBody({ name: "On the command line" }));
      await server.stop();
      const env = {
        PATH: process.env.PATH ?? "",
        DATA_DIR: dataDir,
        SECRET_KEY: "test-secret-key-0123456789abcdef",
        LOG_LEVEL: "silent",
      };
      const cli = (...args: string[]) =>
        spawnSync(process.execPath, ["--import", "tsx", "src/main.ts", ...args], { env, encoding: "utf8" });
      const file = path.join(dataDir, "backup.json");
      const exported = cli("export", "--out", file);
      expect(exported.status).toBe(0);
      expect(JSON.parse(fs.readFileSync(file, "utf8")).tables.jobs[0].name).toBe("On the command line");
      const imported = cli("import", "--file", file);
      expect(imported.stderr).toBe("");
      expect(imported.stdout).toMatch(/^jobs: 1 row$/m);
      const document = JSON.parse(fs.readFileSync(file, "utf8"));
      document.tables.jobs[0].enabled = "yes";
      fs.writeFileSync(file, JSON.stringify(document));
      const refused = cli("import", "--file", file);
      expect(refused.status).toBe(2);
      expect(refused.stderr).toMatch(/tables\.jobs\.0\.enabled: must be a number/);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
