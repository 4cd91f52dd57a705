import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestSite, type TestSite } from "../fixtures/test-site.js";
import { userWithAccess } from "../helpers/factories.js";
import { ADMIN, startTestServer, type TestServer } from "../helpers/server.js";
import { buildUi, launchBrowser, runScenario, see, signIn, tableJob } from "./ui-helpers.js";

/**
 * The web app in a real browser: built as users get it (npm run build:ui), served by a real
 * server, driven by headless Chromium. UI_TESTS=0 skips it (the build takes about 10 s).
 */
const skip = process.env.UI_TESTS === "0";
if (skip) console.warn("UI browser tests skipped: UI_TESTS=0");

describe.skipIf(skip)("the web app in Chromium", () => {
  let server: TestServer;
  let site: TestSite;
  let browser: Browser;
  let jobName: string;
  let runUrl: string;
  let readOnly: { username: string; password: string };

  beforeAll(async () => {
    buildUi();
    [server, site, browser] = await Promise.all([startTestServer("sqlite"), startTestSite(), launchBrowser()]);
    jobName = "Orders table";
    const created = await server.admin.post("/api/spaces/default/jobs", tableJob(site, jobName));
    expect(created.status).toBe(201);
    readOnly = await userWithAccess(server, "ro");
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await site?.stop();
  });

  const scenario = (
    name: string,
    fn: (page: Page) => Promise<void>,
    options: { width?: number; allowed?: RegExp } = {},
  ) => runScenario(browser, name, fn, options);

  it("signs in, lists the jobs, links the guide", async () => {
    await scenario("jobs-list", async (page) => {
      await signIn(page, server.url, ADMIN.username, ADMIN.password);
      const row = page.locator(`[data-job="${jobName}"]`);
      await see(row.getByRole("link", { name: jobName }));
      await see(row.getByText("At 09:00, Monday through Friday"));
      await see(row.getByText("Never run"));
      expect(await page.locator('link[rel="alternate"][type="text/markdown"]').getAttribute("href")).toBe("/llms.txt");
      await see(page.getByRole("link", { name: /llms\.txt/ }).first());
      // The space switcher names the access.
      expect(await page.getByRole("textbox", { name: "Space" }).inputValue()).toMatch(/\(admin\)$/);
    });
  });

  it("creates a webhook delivery interface and an AI provider through the UI", async () => {
    await scenario(
      "webhook-create",
      async (page) => {
        await signIn(page, server.url, ADMIN.username, ADMIN.password);
        await page.getByRole("link", { name: "Delivery interfaces" }).click();
        await page.getByRole("button", { name: "New interface" }).click();
        const dialog = page.getByRole("dialog");
        await dialog.getByLabel("Name").fill("Team hook");
        // An invalid URL first: the server's issue shows at the field.
        await dialog.getByLabel("URL").fill("ftp://hooks.example.com/x");
        await dialog.getByRole("button", { name: "Save", exact: true }).click();
        await see(dialog.getByText("must be an http:// or https:// URL"));
        await dialog.getByLabel("URL").fill("https://hooks.example.com/T0/secret-path");
        await dialog.getByRole("button", { name: "Save", exact: true }).click();
        await dialog.waitFor({ state: "hidden" });
        const row = page.locator('tr[data-interface="Team hook"]');
        await see(row.getByText("hooks.example.com"));
        // The secret URL never reaches the page.
        expect(await page.content()).not.toContain("secret-path");
        // An AI provider: its key is write-only too.
        await page.getByRole("link", { name: "AI providers" }).click();
        await page.getByRole("button", { name: "New provider" }).click();
        const form = page.getByRole("dialog");
        await form.getByRole("textbox", { name: "Name" }).fill("Local model");
        await form.getByRole("textbox", { name: "Model" }).fill("small-model");
        await form.locator('input[type="password"]').fill("sk-secret-key-123");
        await form.getByRole("button", { name: "Save", exact: true }).click();
        await see(page.getByRole("table", { name: "AI providers" }).getByText("small-model"));
        expect(await page.content()).not.toContain("sk-secret-key-123");
      },
      { allowed: /status of 400.*\/ui-api\/spaces\/default\/delivery-interfaces\)$/ },
    );
    const list = await server.admin.get("/api/spaces/default/delivery-interfaces");
    expect(list.body.items).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: "Team hook", type: "webhook" })]),
    );
  });

  it("runs a job with Run now, streams it to success and opens the run with its snapshot", async () => {
    await scenario("run-now", async (page) => {
      await signIn(page, server.url, ADMIN.username, ADMIN.password);
      await page.getByRole("button", { name: `Run now: ${jobName}` }).click();
      const dialog = page.getByRole("dialog");
      await see(dialog.getByText("Finished"), 45_000);
      await see(dialog.locator('[data-state="success"]').first());
      await dialog.getByRole("link", { name: "Open the run" }).click();
      await see(page.getByRole("heading", { name: jobName }));
      runUrl = page.url();
      const snapshot = page.getByRole("img", { name: "Snapshot table" });
      await see(snapshot);
      await expect.poll(() => snapshot.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(10);
      const variables = page.getByRole("table", { name: "Variables" });
      await see(variables.getByText("777"));
      expect(await page.getByRole("table", { name: "Steps" }).locator('[data-state="done"]').count()).toBe(4);
      await see(page.locator('iframe[title="Report (HTML)"]'));
    });
  }, 90_000);

  it("shows the runs list with the run, and the jobs list with its last run", async () => {
    await scenario(
      "runs-list",
      async (page) => {
        await signIn(page, server.url, ADMIN.username, ADMIN.password);
        const row = page.locator(`[data-job="${jobName}"]`);
        await see(row.locator('[data-state="success"]'));
        // 360 px wide: the navigation opens from the menu button.
        await page.getByRole("button", { name: "Menu" }).click();
        await page.getByRole("navigation", { name: "Pages of the space" }).getByRole("link", { name: "Runs" }).click();
        const runs = page.getByRole("table", { name: "Runs" });
        await see(runs.getByRole("link", { name: jobName }));
        await see(runs.getByText("manual"));
      },
      { width: 360 },
    );
  });

  it("creates a job in the editor, tests it, and shows the field the server refused", async () => {
    await scenario(
      "job-editor",
      async (page) => {
        await signIn(page, server.url, ADMIN.username, ADMIN.password);
        await page.getByRole("link", { name: "New job" }).click();
        await page.getByRole("textbox", { name: "Name", exact: true }).fill("Made in the editor");
        await page.getByText("Cron", { exact: true }).click();
        await page.getByLabel("Schedule (cron)").fill("30 7 * * *");
        await see(page.getByText("At 07:30"));
        await page.getByRole("tab", { name: "Capture" }).click();
        const first = page.getByRole("region", { name: /^Step 1/ });
        // A URL the server refuses: Save names the field, on its tab.
        await first.getByLabel("URL").fill("ftp://example.com/");
        await page.getByRole("tab", { name: "General" }).click();
        await page.getByRole("button", { name: "Save", exact: true }).click();
        await see(page.getByRole("alert").filter({ hasText: "capture.steps.0.url" }));
        expect(await page.getByRole("tab", { name: /Capture/ }).getAttribute("aria-selected")).toBe("true");
        await see(first.getByText("must be an http:// or https:// URL"));
        await first.getByLabel("URL").fill(`${site.url}/table`);
        // A second step: a snapshot of the table.
        await page.getByRole("button", { name: "Add", exact: true }).click();
        const second = page.getByRole("region", { name: /^Step 2/ });
        await see(second);
        await second.getByRole("button", { name: "Remove Step 2" }).click();
        await page.getByRole("textbox", { name: "Add a step" }).click();
        await page.getByRole("option", { name: /Snapshot \(snapshot\)/ }).click();
        await page.getByRole("button", { name: "Add", exact: true }).click();
        await page
          .getByRole("region", { name: /^Step 2: Snapshot/ })
          .getByLabel("Snapshot name")
          .fill("table");
        // The composer: a text block with an unknown Liquid filter is refused at its field.
        await page.getByRole("tab", { name: "Composer" }).click();
        await page.getByRole("switch", { name: "Own report layout" }).check();
        await page.getByRole("button", { name: "Add block" }).click();
        const text = page.getByRole("region", { name: "Block: Text" }).getByRole("textbox");
        await text.fill("## {{ 'x' | no_such_filter }}");
        await page.getByRole("button", { name: "Save", exact: true }).click();
        await see(page.getByRole("alert").filter({ hasText: "report.pages.0.rows.0.cells.0.blocks.1.content" }));
        await text.fill("## The table");
        // Test streams the run of the unsaved form.
        await page.getByRole("button", { name: "Test" }).click();
        const dialog = page.getByRole("dialog", { name: "Test the job" });
        await see(dialog.getByText("Finished"), 45_000);
        await see(dialog.getByRole("img", { name: "Snapshot table" }));
        await dialog.getByRole("button", { name: "Close" }).click();
        await page.getByRole("button", { name: "Save", exact: true }).click();
        await see(page.getByText(/^Saved at/));
        expect(page.url()).toMatch(/\/jobs\/[0-9a-f-]{36}$/);
        // Leaving with changes not saved asks first.
        await page.getByRole("tab", { name: "General" }).click();
        await page.getByRole("textbox", { name: "Name", exact: true }).fill("Made in the editor, changed");
        await page.getByRole("link", { name: "← Jobs" }).click();
        const leave = page.getByRole("dialog", { name: "Leave without saving?" });
        await leave.getByRole("button", { name: "Leave" }).click();
        await see(page.getByRole("heading", { name: "Jobs" }));
      },
      // The save refused, and the live preview of the text with the unknown filter while it was there.
      { allowed: /status of 400.*(\/api\/spaces\/default\/jobs|\/report-preview)\)$/ },
    );
    const jobs = await server.admin.get("/api/spaces/default/jobs");
    const made = jobs.body.items.find((j: { name: string }) => j.name === "Made in the editor");
    expect(made).toMatchObject({
      cron: "30 7 * * *",
      capture: { steps: [{ type: "navigate" }, { type: "snapshot", as: "table" }] },
    });
  }, 90_000);

  it("lets a system user manage users, members and health alerts, and read the health", async () => {
    await scenario(
      "settings",
      async (page) => {
        await signIn(page, server.url, ADMIN.username, ADMIN.password);
        const settings = page.getByRole("navigation", { name: "Settings" });
        await settings.getByRole("link", { name: "Users" }).click();
        await page.getByRole("button", { name: "New user" }).click();
        const dialog = page.getByRole("dialog");
        await dialog.getByRole("textbox", { name: "User name" }).fill("carol");
        await dialog.locator('input[type="password"]').fill("password-1234");
        await dialog.getByRole("button", { name: "Save", exact: true }).click();
        await see(page.getByRole("table", { name: "Users" }).getByText("carol"));

        await settings.getByRole("link", { name: "Spaces and members" }).click();
        await page.getByRole("textbox", { name: "Add a user" }).click();
        await page.getByRole("option", { name: "carol" }).click();
        await page.getByRole("button", { name: "Add", exact: true }).click();
        await see(page.getByRole("table", { name: "Members" }).getByText("carol"));

        await settings.getByRole("link", { name: "Health alerts" }).click();
        await page.getByRole("switch", { name: "Enable health alerts" }).check();
        await page.getByRole("button", { name: "Save", exact: true }).click();
        await see(page.getByText("choose the delivery interface that sends the alerts"));

        await settings.getByRole("link", { name: "Health", exact: true }).click();
        await see(page.getByRole("table", { name: "Job health" }).getByText(jobName));

        await page
          .getByRole("navigation", { name: "Pages of the space" })
          .getByRole("link", { name: "Templates" })
          .click();
        await see(page.getByRole("table", { name: "Templates" }).getByRole("link", { name: "Use" }));
      },
      { allowed: /status of 400.*\/ui-api\/admin\/settings\/health-alerts\)$/ },
    );
    const members = await server.admin.get("/ui-api/admin/spaces/default/members");
    expect(members.body.items).toEqual(
      expect.arrayContaining([expect.objectContaining({ username: "carol", access: "ro" })]),
    );
  });

  it("gives a read-only member no Run, Delete or set-up", async () => {
    await scenario("read-only", async (page) => {
      await signIn(page, server.url, readOnly.username, readOnly.password);
      await see(page.getByRole("link", { name: jobName }));
      expect(await page.getByRole("textbox", { name: "Space" }).inputValue()).toMatch(/\(read only\)$/);
      expect(await page.getByRole("button", { name: /Run now/ }).count()).toBe(0);
      expect(await page.getByRole("button", { name: /More actions/ }).count()).toBe(0);
      expect(await page.getByRole("link", { name: "New job" }).count()).toBe(0);
      expect(await page.getByRole("link", { name: "Delivery interfaces" }).count()).toBe(0);
      expect(await page.getByRole("navigation", { name: "Settings" }).count()).toBe(0);
      expect(await page.getByRole("switch", { name: `Enabled: ${jobName}` }).isDisabled()).toBe(true);
      // The run page opens for reading.
      await page.goto(runUrl);
      await see(page.getByRole("img", { name: "Snapshot table" }));
    });
  });

  it("says in words why a login failed", async () => {
    await scenario(
      "login-failed",
      async (page) => {
        await page.goto(`${server.url}/login`);
        await page.getByLabel("User name").fill(ADMIN.username);
        await page.locator('input[name="password"]').fill("not-the-password");
        await page.getByRole("button", { name: "Sign in" }).click();
        await see(page.getByRole("alert").filter({ hasText: "Wrong user name or password." }));
        // Ten failures for a name lock it for a while: the page says how long.
        for (let i = 0; i < 10; i++)
          await server.client().post("/auth/login-local", { username: "locked", password: "x" });
        await page.getByLabel("User name").fill("locked");
        await page.getByRole("button", { name: "Sign in" }).click();
        await see(page.getByRole("alert").filter({ hasText: /Too many failed sign-ins.*Try again in \d+ minutes/ }));
      },
      // The browser logs the 401 and 429 of the refused logins itself.
      { allowed: /status of 4(01|29).*\/auth\/login-local/ },
    );
  });

  it("sends a signed-out visitor to the login and back after signing in", async () => {
    await scenario(
      "redirect",
      async (page) => {
        await page.goto(`${server.url}/s/default/runs`);
        await see(page.getByRole("button", { name: "Sign in" }));
        expect(new URL(page.url()).searchParams.get("next")).toBe("/s/default/runs");
        await page.getByLabel("User name").fill(ADMIN.username);
        await page.locator('input[name="password"]').fill(ADMIN.password);
        await page.getByRole("button", { name: "Sign in" }).click();
        await see(page.getByRole("heading", { name: "Runs" }));
        // Sign out from the account menu.
        await page.getByRole("button", { name: `Account of ${ADMIN.username}` }).click();
        await page.getByRole("menuitem", { name: "Sign out" }).click();
        await see(page.getByRole("button", { name: "Sign in" }));
      },
      { allowed: /status of 401.*\/api\/agent\/context/ },
    );
  });
});
