import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, startTestServer, type TestServer } from "../helpers/server.js";
import { buildUi, launchBrowser, openPage } from "./ui-helpers.js";

/** Settings → Observer keys in Chromium: create (the key shown once), list, revoke with confirmation. */
describe("the observer keys page", () => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    buildUi();
    [server, browser] = await Promise.all([startTestServer("sqlite"), launchBrowser()]);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("creates a key shown once, lists it, and revokes it after asking", async () => {
    const { page, errors } = await openPage(browser);
    await page.goto(`${server.url}/login`);
    await page.getByLabel("User name").fill(ADMIN.username);
    await page.getByLabel("Password").fill(ADMIN.password);
    await page.getByRole("button", { name: /sign in/i }).click();
    await page.waitForURL(/\/s\//);
    await page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Observer keys" }).click();
    await page.getByRole("button", { name: "New key" }).click();
    await page.getByLabel("Name").fill("Prometheus");
    await page.getByRole("button", { name: "Create" }).click();
    const key = await page.getByRole("textbox", { name: "Key", exact: true }).inputValue();
    expect(key).toMatch(/^pwo_[A-Za-z0-9_-]{43}$/);
    await expect(page.getByText("It is shown this once").isVisible()).resolves.toBe(true);
    await page.getByRole("button", { name: "Done" }).click();

    const table = page.getByRole("table", { name: "Observer keys" });
    await table.getByText("Prometheus").waitFor();
    expect(await table.textContent()).not.toContain(key);
    await page.getByRole("button", { name: "Revoke Prometheus" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Revoke" }).click();
    await page.getByText("No observer keys yet.").waitFor();
    const health = await fetch(`${server.url}/guest/api/health`, { headers: { authorization: `Bearer ${key}` } });
    expect(health.status).toBe(401);
    expect(errors).toEqual([]);
  });
});
