import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobBody, userWithAccess } from "../helpers/factories.js";
import { ADMIN, startTestServer, type TestServer } from "../helpers/server.js";
import { buildUi, launchBrowser, runScenario, see, signIn } from "./ui-helpers.js";

/** The audit log in the browser: a space admin's view of the space, a system user's of all. */
describe.skipIf(process.env.UI_TESTS === "0")("the audit log page in Chromium", () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    buildUi();
    [server, browser] = await Promise.all([startTestServer("sqlite"), launchBrowser()]);
    const job = await server.admin.post("/api/spaces/default/jobs", jobBody({ name: "Watched job" }));
    await server.admin.put(`/api/spaces/default/jobs/${job.body.id}`, { ...job.body, name: "Watched job, renamed" });
    await server.admin.post("/ui-api/admin/spaces", { id: "elsewhere", name: "Elsewhere" });
    await server.admin.post("/api/spaces/elsewhere/jobs", jobBody({ name: "Job elsewhere" }));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("shows a space admin who changed what in the space, with the change", async () => {
    const spaceAdmin = await userWithAccess(server, "admin");
    await runScenario(browser, "audit-space", async (page) => {
      await signIn(page, server.url, spaceAdmin.username, spaceAdmin.password);
      await page
        .getByRole("navigation", { name: "Pages of the space" })
        .getByRole("link", { name: "Audit log" })
        .click();
      const table = page.getByRole("table", { name: "Audit log" });
      const update = table.getByRole("row").filter({ hasText: "“Watched job, renamed”" }).filter({ hasText: "update" });
      await see(update);
      await see(update.getByText("name"));
      await update.getByRole("button", { name: "Details" }).click();
      await see(update.getByText('"from": "Watched job"'));
      expect(await table.getByText("Job elsewhere").count()).toBe(0);
    });
  });

  it("shows a system user every space's entries", async () => {
    await runScenario(browser, "audit-all", async (page) => {
      await signIn(page, server.url, ADMIN.username, ADMIN.password);
      await page
        .getByRole("navigation", { name: "Settings" })
        .getByRole("link", { name: "Audit log (all spaces)" })
        .click();
      await see(page.getByRole("table", { name: "Audit log" }).getByText(/“Job elsewhere” in elsewhere/));
    });
  });
});
