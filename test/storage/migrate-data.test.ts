import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestSite, type TestSite } from "../fixtures/test-site.js";
import { jobBody, userWithAccess, webhookInterface } from "../helpers/factories.js";
import { scratchDatabase } from "../helpers/processes.js";
import { notePostgresSkip, startTestServer, TEST_DATABASE_URL, type TestServer } from "../helpers/server.js";
import { postStream } from "../helpers/sse.js";

notePostgresSkip();

/** `pagewright migrate-data`: from the embedded SQLite to a new PostgreSQL, as an operator moves. */
describe.skipIf(!TEST_DATABASE_URL)("pagewright migrate-data", () => {
  let site: TestSite;
  let scratch: Awaited<ReturnType<typeof scratchDatabase>>;
  let before: TestServer;
  let member: { username: string; password: string };
  const seen: Record<string, unknown> = {};
  let dataDir: string;

  beforeAll(async () => {
    [site, scratch] = await Promise.all([startTestSite(), scratchDatabase(TEST_DATABASE_URL ?? "", "pw_move")]);
    // A folder of the test's own: the helper removes the folders it made itself on stop.
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "pagewright-move-"));
    before = await startTestServer("sqlite", {}, { dataDir });
    const hook = await webhookInterface(before);
    const job = await before.admin.post(
      "/api/spaces/default/jobs",
      jobBody({
        name: "Moves to PostgreSQL",
        capture: {
          steps: [
            { type: "navigate", url: `${site.url}/table` },
            { type: "snapshot", as: "table", selector: "table" },
          ],
        },
        deliveries: [{ interfaceId: hook.id, message: "hi" }],
      }),
    );
    const run = await postStream(before.admin, `/api/spaces/default/jobs/${job.body.id}/run`);
    member = await userWithAccess(before, "ro");
    seen.jobs = (await before.admin.get("/api/spaces/default/jobs")).body;
    seen.runs = (await before.admin.get("/api/spaces/default/runs")).body;
    seen.interfaces = (await before.admin.get("/api/spaces/default/delivery-interfaces")).body;
    seen.snapshot = run.end.snapshots[0].url;
    await before.stop();
  }, 120_000);

  afterAll(async () => {
    await site?.stop();
    await scratch?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const cli = (args: string[]) =>
    spawnSync(process.execPath, ["--import", "tsx", "src/main.ts", "migrate-data", ...args], {
      env: {
        PATH: process.env.PATH ?? "",
        DATA_DIR: dataDir,
        SECRET_KEY: "test-secret-key-0123456789abcdef",
        LOG_LEVEL: "silent",
      },
      encoding: "utf8",
    });

  it("copies every row; the PostgreSQL server then shows the same jobs, runs, interfaces and users", async () => {
    const moved = cli(["--to", scratch.url]);
    expect(moved.stderr).toBe("");
    expect(moved.status).toBe(0);
    expect(moved.stdout).toMatch(/^jobs: 1 row$/m);
    expect(moved.stdout).toMatch(/^runs: 1 row$/m);
    expect(moved.stdout).toMatch(/^done: \d+ rows/m);

    const after = await startTestServer("sqlite", { DATABASE_URL: scratch.url }, { dataDir });
    try {
      expect(after.ctx.storage.dialect).toBe("postgres");
      expect((await after.admin.get("/api/spaces/default/jobs")).body).toEqual(seen.jobs);
      expect((await after.admin.get("/api/spaces/default/runs")).body).toEqual(seen.runs);
      expect((await after.admin.get("/api/spaces/default/delivery-interfaces")).body).toEqual(seen.interfaces);
      // Passwords and sealed secrets came along: the member signs in; the files are where they were.
      await after.client().login(member.username, member.password);
      expect((await fetch(`${after.url}${seen.snapshot}`)).status).toBe(200);
    } finally {
      await after.stop();
    }
  }, 120_000);

  it("refuses a database that already holds rows, and says why", () => {
    const again = cli(["--to", scratch.url]);
    expect(again.status).toBe(2);
    expect(again.stderr).toMatch(/not empty \(users has \d+ rows\)/);
    const missing = cli([]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/needs --to postgres/);
  });
});
