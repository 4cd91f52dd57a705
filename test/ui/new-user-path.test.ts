import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHttpReceiver } from "../fixtures/receivers.js";
import { startTestSite, type TestSite } from "../fixtures/test-site.js";
import { userWithAccess } from "../helpers/factories.js";
import { ADMIN, startTestServer, type TestServer } from "../helpers/server.js";
import { buildUi, launchBrowser, runScenario, see, signIn } from "./ui-helpers.js";

/**
 * The main path of a new user, in one browser session as they would walk it: a webhook interface,
 * a job from a template against the local test site with a step added, Test, Save, Run now, the
 * run and its PDF, the job green on the Health page, a bad cron refused at its field; then an
 * `ro` member who finds no way to edit. UI_TESTS=0 skips it.
 */
const skip = process.env.UI_TESTS === "0";

/** Picks `option` in the Mantine Select labelled `label` inside `scope`. */
async function choose(page: Page, scope: Locator | Page, label: string | RegExp, option: string | RegExp) {
  await scope.getByRole("textbox", { name: label, exact: true }).click();
  await page.getByRole("option", { name: option }).click();
}

describe.skipIf(skip)("a new user's main path in Chromium", () => {
  let server: TestServer;
  let site: TestSite;
  let hook: Awaited<ReturnType<typeof startHttpReceiver>>;
  let browser: Browser;

  beforeAll(async () => {
    buildUi();
    [server, site, hook, browser] = await Promise.all([
      startTestServer("sqlite"),
      startTestSite(),
      startHttpReceiver(),
      launchBrowser(),
    ]);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await site?.stop();
    await hook?.stop();
  });

  const scenario = (name: string, fn: (page: Page) => Promise<void>, allowed?: RegExp) =>
    runScenario(browser, name, fn, { allowed, timeoutMs: 15_000 });

  const JOB = "Revenue alert";

  it("builds a job from a template, tests, saves, runs it and finds it green on the Health page", async () => {
    await scenario(
      "new-user-path",
      async (page) => {
        await signIn(page, server.url, ADMIN.username, ADMIN.password);

        // A webhook interface to the local receiver.
        await page.getByRole("link", { name: "Delivery interfaces" }).click();
        await page.getByRole("button", { name: "New interface" }).click();
        const form = page.getByRole("dialog");
        await form.getByLabel("Name").fill("Ops hook");
        await form.getByLabel("URL").fill(`${hook.url}/alerts`);
        await form.getByRole("button", { name: "Save", exact: true }).click();
        await form.waitFor({ state: "hidden" });
        await see(page.locator('tr[data-interface="Ops hook"]'));

        // A job from the threshold template, pointed at the test site's revenue table.
        await page.getByRole("link", { name: "Jobs", exact: true }).first().click();
        await page.getByRole("button", { name: "New from a template" }).click();
        await page.getByRole("dialog").getByRole("link", { name: "Value threshold alert to a webhook" }).click();
        await see(page.getByText("Fill in the template"));
        await page.getByRole("textbox", { name: "Name", exact: true }).fill(JOB);
        await page.getByRole("tab", { name: "Capture" }).click();
        await page
          .getByRole("region", { name: /^Step 1:/ })
          .getByLabel("URL")
          .fill(`${site.url}/table`);
        await page
          .getByRole("region", { name: /^Step 2:/ })
          .getByRole("textbox", { name: "Selector" })
          .fill("#revenue");
        await page
          .getByRole("region", { name: /^Step 3:/ })
          .getByRole("textbox", { name: "Selector" })
          .fill("#revenue");
        await page
          .getByRole("region", { name: /^Step 6:/ })
          .getByRole("textbox", { name: "Selector" })
          .fill("#revenue-table");
        // Add a step: the orders count, read from an attribute.
        await choose(page, page, "Add a step", /Extract a value \(extract\)/);
        await page.getByRole("button", { name: "Add", exact: true }).last().click();
        const added = page.getByRole("region", { name: /^Step 7:/ });
        await added.getByRole("textbox", { name: "Selector" }).fill("#orders");
        await added.getByLabel("Store as (variable name)").fill("orders");
        await added.getByLabel("Attribute (instead of the text)").fill("data-value");
        // Deliver to the new interface.
        await page.getByRole("tab", { name: "Delivery" }).click();
        await choose(page, page.getByRole("region", { name: "Delivery 1" }), "Interface", "Ops hook (webhook)");

        // Test: steps, the snapshot, the variables and the report preview stream in.
        await page.getByRole("button", { name: "Test" }).click();
        const test = page.getByRole("dialog", { name: "Test the job" });
        await see(test.getByText("Finished"), 60_000);
        await see(test.getByRole("img", { name: "Snapshot panel" }));
        const variables = test.getByLabel("Variables");
        await expect.poll(() => variables.textContent()).toContain('"orders": "777"');
        await expect.poll(() => variables.textContent()).toContain('"value": 12345.67');
        expect(await test.locator('[data-state="done"]').count()).toBeGreaterThanOrEqual(7);
        await see(test.locator('iframe[title="Report preview"]'));
        await test.getByRole("button", { name: "Close" }).click();

        // The composer previews the report from the test's data.
        await page.getByRole("tab", { name: "Composer" }).click();
        const preview = page.frameLocator('iframe[title="Report preview"]');
        await see(preview.getByText("12345.67").or(preview.getByText("12,345.67")), 20_000);

        await page.getByRole("button", { name: "Save", exact: true }).click();
        await see(page.getByText(/^Saved at/));
        const jobId = page.url().split("/").pop() ?? "";
        expect(jobId).toMatch(/^[0-9a-f-]{36}$/);

        // Run now from the jobs list, then the run and its PDF.
        await page.getByRole("link", { name: "← Jobs" }).click();
        await page.getByRole("button", { name: `Run now: ${JOB}` }).click();
        const run = page.getByRole("dialog");
        await see(run.getByText("Finished"), 60_000);
        await run.getByRole("link", { name: "Open the run" }).click();
        await see(page.getByRole("heading", { name: JOB }));
        await see(page.getByRole("img", { name: "Snapshot panel" }));
        const pdfHref = await page.getByRole("link", { name: "Open PDF" }).getAttribute("href");
        expect(pdfHref).toBeTruthy();
        const pdf = await page.request.get(`${server.url}${pdfHref}`);
        expect(pdf.status()).toBe(200);
        expect(pdf.headers()["content-type"]).toContain("application/pdf");
        expect((await pdf.body()).subarray(0, 5).toString()).toBe("%PDF-");
        // The webhook got the alert.
        await expect.poll(() => hook.calls.length, { timeout: 20_000 }).toBeGreaterThanOrEqual(1);
        expect(hook.calls.at(-1)?.body.toString()).toContain("Value is 12345.67");

        // Health: the job is green.
        await page
          .getByRole("navigation", { name: "Settings" })
          .getByRole("link", { name: "Health", exact: true })
          .click();
        const row = page.getByRole("table", { name: "Job health" }).getByRole("row").filter({ hasText: JOB });
        await see(row.locator('[data-health="green"]'));

        // A bad cron: the server's 400 is shown at the cron field.
        await page.goto(`${server.url}/s/default/jobs/${jobId}`);
        await page.getByText("Cron", { exact: true }).click();
        await page.getByLabel("Schedule (cron)").fill("61 9 * * *");
        await page.getByRole("button", { name: "Save", exact: true }).click();
        const cronField = page.getByLabel("Schedule (cron)");
        await expect.poll(() => cronField.getAttribute("aria-invalid")).toBe("true");
        const describedBy = (await cronField.getAttribute("aria-describedby")) ?? "";
        const errorId = describedBy.split(" ").find((id) => id.endsWith("-error")) ?? "";
        expect(await page.locator(`[id="${errorId}"]`).textContent()).toMatch(/cron|minute|schedule/i);
      },
      /status of 400.*\/api\/spaces\/default\/jobs\/[0-9a-f-]{36}\)$/,
    );
  }, 240_000);

  it("gives an ro member the job to read and no way to change it", async () => {
    const ro = await userWithAccess(server, "ro");
    const jobs = await server.admin.get("/api/spaces/default/jobs");
    const job = jobs.body.items.find((j: { name: string }) => j.name === JOB);
    await scenario("new-user-ro", async (page) => {
      await signIn(page, server.url, ro.username, ro.password);
      await see(page.getByRole("link", { name: JOB }));
      expect(await page.getByRole("button", { name: /Run now/ }).count()).toBe(0);
      await page.getByRole("link", { name: JOB }).click();
      await see(page.getByText("You can read this job"));
      for (const name of ["Save", "Test", "Delete", "Save as template"]) {
        expect(await page.getByRole("button", { name, exact: true }).count()).toBe(0);
      }
      expect(await page.getByRole("textbox", { name: "Name", exact: true }).isDisabled()).toBe(true);
      await page.getByRole("tab", { name: "Capture" }).click();
      expect(await page.getByRole("button", { name: /^Remove Step/ }).count()).toBe(0);
      expect(
        await page
          .getByRole("region", { name: /^Step 1:/ })
          .getByLabel("URL")
          .isDisabled(),
      ).toBe(true);
      await page.goto(`${server.url}/s/default/runs?jobId=${job.id}`);
      await see(page.getByRole("table", { name: "Runs" }));
      expect(await page.getByRole("checkbox").count()).toBe(0);
    });
  });
});
