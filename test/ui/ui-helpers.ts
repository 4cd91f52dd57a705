import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from "playwright-core";
import { findChromium } from "../../src/capture/chromium.js";
import { UI_DIR } from "../../src/ui-serving/ui.routes.js";
import type { TestSite } from "../fixtures/test-site.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

const ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
  "--disable-sync",
];

const newest = (dir: string): number =>
  fs.readdirSync(dir, { withFileTypes: true }).reduce((latest, entry) => {
    const file = path.join(dir, entry.name);
    return Math.max(latest, entry.isDirectory() ? newest(file) : fs.statSync(file).mtimeMs);
  }, 0);

/**
 * Builds the web app into dist/ui (about 10 s) unless the build is newer than every source of
 * it (ui/, the schemas it takes its types from, package.json): the tests drive the app as users
 * get it, built from the current sources.
 */
export function buildUi() {
  const index = path.join(UI_DIR, "index.html");
  const built = fs.existsSync(index) ? fs.statSync(index).mtimeMs : 0;
  const sources = Math.max(
    newest(path.join(ROOT, "ui")),
    newest(path.join(ROOT, "src", "schemas")),
    fs.statSync(path.join(ROOT, "package.json")).mtimeMs,
  );
  if (built > sources) return;
  const result = spawnSync("npm", ["run", "build:ui", "--silent"], { cwd: ROOT, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`npm run build:ui failed:\n${result.stdout}\n${result.stderr}`);
  if (!fs.existsSync(path.join(UI_DIR, "index.html"))) throw new Error(`the build left no ${UI_DIR}/index.html`);
}

export async function launchBrowser(): Promise<Browser> {
  const executablePath = findChromium(process.env.CHROMIUM_PATH) ?? "/usr/bin/chromium";
  return chromium.launch({ executablePath, headless: true, args: ARGS });
}

/**
 * A page that records console errors and page errors, so a test can fail on any. Failed loads
 * of resources the test provokes itself (a 401 of a wrong login) are told apart by the caller.
 */
export async function openPage(
  browser: Browser,
  options: { width?: number; height?: number; colorScheme?: "light" | "dark" } = {},
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
    colorScheme: options.colorScheme ?? "light",
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(`console: ${message.text()} (${message.location().url})`);
  });
  page.on("pageerror", (error) => errors.push(`page error: ${error.message}`));
  return { context, page, errors };
}

const RESULTS = path.join(ROOT, "test-results");

/** Waits until the locator shows (Playwright's auto-wait; vitest's expect has no such matcher). */
export const see = (locator: Locator, timeout = 10_000) => locator.first().waitFor({ state: "visible", timeout });

/**
 * Runs a scenario on a fresh page of its own context. Any console or page error fails it, except
 * those `allowed` names (a 4xx the test provokes, which the browser logs itself); a failure saves
 * a full-page screenshot to test-results/ui-<name>.png.
 */
export async function runScenario(
  browser: Browser,
  name: string,
  fn: (page: Page) => Promise<void>,
  options: { width?: number; height?: number; allowed?: RegExp; timeoutMs?: number } = {},
) {
  const { context, page, errors } = await openPage(browser, { width: options.width, height: options.height });
  context.setDefaultTimeout(options.timeoutMs ?? 10_000);
  try {
    await fn(page);
    const unexpected = errors.filter((e) => !options.allowed?.test(e));
    if (unexpected.length > 0) throw new Error(`the page logged errors:\n${unexpected.join("\n")}`);
  } catch (error) {
    fs.mkdirSync(RESULTS, { recursive: true });
    await page.screenshot({ path: path.join(RESULTS, `ui-${name}.png`), fullPage: true }).catch(() => {});
    throw error;
  } finally {
    await context.close();
  }
}

/** Signs in through the login form and waits for the jobs list. */
export async function signIn(page: Page, baseUrl: string, username: string, password: string) {
  await page.goto(`${baseUrl}/login`);
  await page.getByLabel("User name").fill(username);
  await page.locator('input[name="password"]').fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Jobs" }).waitFor();
}

/** A job that captures the test site's table: a variable, a snapshot and a report. */
export function tableJob(site: TestSite, name: string) {
  return {
    name,
    description: "Orders table of the test site",
    cron: "0 9 * * 1-5",
    timezone: "Europe/Rome",
    capture: {
      viewport: { width: 1024, height: 700 },
      steps: [
        { type: "navigate", url: `${site.url}/table` },
        { type: "extract", as: "orders", selector: "#orders", attribute: "data-value", parse: "number" },
        { type: "extract", as: "revenue", selector: "#revenue" },
        { type: "snapshot", as: "table", selector: "table" },
      ],
    },
    report: {
      title: "Orders on {{ now | date: '%Y-%m-%d' }}",
      pages: [
        {
          rows: [
            { cells: [{ blocks: [{ type: "text", content: "## {{ orders }} orders, {{ revenue }}" }] }] },
            { cells: [{ blocks: [{ type: "snapshot", ref: "table", caption: "The revenue table" }] }] },
          ],
        },
      ],
    },
  };
}
