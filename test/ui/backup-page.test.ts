import fs from "node:fs";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobBody } from "../helpers/factories.js";
import { ADMIN, startTestServer, type TestServer } from "../helpers/server.js";
import { buildUi, launchBrowser, runScenario, see, signIn } from "./ui-helpers.js";

/** Settings → Backup in the browser: download an export, restore it, see a bad file refused. */
describe.skipIf(process.env.UI_TESTS === "0")("the backup page in Chromium", () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    buildUi();
    [server, browser] = await Promise.all([startTestServer("sqlite"), launchBrowser()]);
    await server.admin.post("/api/spaces/default/jobs", jobBody({ name: "Backed up" }));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("downloads an export and restores it; a broken file is refused with its problems", async () => {
    await runScenario(
      browser,
      "backup",
      async (page) => {
        await signIn(page, server.url, ADMIN.username, ADMIN.password);
        await page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Backup" }).click();
        const [download] = await Promise.all([
          page.waitForEvent("download"),
          page.getByRole("link", { name: "Download an export" }).click(),
        ]);
        expect(download.suggestedFilename()).toMatch(/^pagewright-export-\d{4}-\d{2}-\d{2}\.json$/);
        const file = await download.path();
        const document = JSON.parse(fs.readFileSync(file, "utf8"));
        expect(document.tables.jobs.map((j: { name: string }) => j.name)).toContain("Backed up");

        // A job made after the export is gone after the restore.
        await server.admin.post("/api/spaces/default/jobs", jobBody({ name: "Made later" }));
        await page.locator('input[type="file"]').setInputFiles(file);
        const confirm = page.getByRole("dialog", { name: "Replace everything with this file?" });
        await confirm.getByRole("button", { name: "Restore" }).click();
        await see(page.getByRole("status").filter({ hasText: "Restored" }));
        await server.admin.login(ADMIN.username, ADMIN.password);
        const names = (await server.admin.get("/api/spaces/default/jobs")).body.items.map(
          (j: { name: string }) => j.name,
        );
        expect(names).toEqual(["Backed up"]);

        // Signed out by the restore: sign in again, then a broken file.
        await signIn(page, server.url, ADMIN.username, ADMIN.password);
        await page.goto(`${server.url}/settings/backup`);
        document.tables.jobs[0].enabled = "yes";
        await page.locator('input[type="file"]').setInputFiles({
          name: "broken.json",
          mimeType: "application/json",
          buffer: Buffer.from(JSON.stringify(document)),
        });
        await page.getByRole("dialog").getByRole("button", { name: "Restore" }).click();
        await see(page.getByRole("alert").filter({ hasText: "tables.jobs.0.enabled: must be a number" }));
      },
      { allowed: /status of 40[01]/ },
    );
  }, 90_000);
});
