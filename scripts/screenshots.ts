/**
 * Screenshots of the web app for the README and reviews: the jobs list, a run page and the job
 * editor, on a desktop and a 360 px phone, light and dark. Starts its own server (a temporary
 * database) and the test site, makes a few jobs and runs one, then photographs the pages.
 *
 *   node --import tsx scripts/screenshots.ts [--out docs/screenshots]
 */
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { startTestSite } from "../test/fixtures/test-site.js";
import { ADMIN, startTestServer } from "../test/helpers/server.js";
import { postStream } from "../test/helpers/sse.js";
import { buildUi, launchBrowser, openPage, signIn, tableJob } from "../test/ui/ui-helpers.js";

const { values } = parseArgs({ options: { out: { type: "string", default: "docs/screenshots" } } });
const out = path.resolve(values.out ?? "docs/screenshots");
fs.mkdirSync(out, { recursive: true });

console.log("building the web app …");
buildUi();
const [server, site] = await Promise.all([startTestServer("sqlite"), startTestSite()]);
const browser = await launchBrowser();
try {
  const api = server.admin;
  const job = (await api.post("/api/spaces/default/jobs", tableJob(site, "Orders table"))).body;
  await api.post("/api/spaces/default/jobs", {
    ...tableJob(site, "Weekly revenue"),
    description: "Revenue, Mondays at 8",
    cron: "0 8 * * 1",
    timezone: "UTC",
  });
  await api.post("/api/spaces/default/jobs", {
    ...tableJob(site, "Status check (on demand)"),
    description: "Runs only when asked",
    cron: null,
    enabled: false,
  });
  const broken = (
    await api.post("/api/spaces/default/jobs", {
      ...tableJob(site, "Late dashboard"),
      description: "Waits for a panel that never comes",
      capture: {
        steps: [
          { type: "navigate", url: `${site.url}/late` },
          { type: "waitFor", selector: "#never-there", timeoutMs: 1000 },
        ],
      },
      report: undefined,
    })
  ).body;
  const stream = await postStream(api, `/api/spaces/default/jobs/${job.id}/run`);
  await postStream(api, `/api/spaces/default/jobs/${broken.id}/run`);
  const runId = stream.end.runId as string;

  for (const scheme of ["light", "dark"] as const) {
    for (const [device, width, height] of [
      ["desktop", 1280, 800],
      ["phone", 360, 740],
    ] as const) {
      const { context, page, errors } = await openPage(browser, { width, height, colorScheme: scheme });
      await signIn(page, server.url, ADMIN.username, ADMIN.password);
      await page.locator('[data-state="success"]').first().waitFor();
      await page.screenshot({ path: path.join(out, `jobs-${device}-${scheme}.png`), fullPage: true });
      await page.goto(`${server.url}/s/default/runs/${runId}`);
      await page.getByRole("img", { name: "Snapshot table" }).waitFor();
      await page.waitForLoadState("networkidle");
      await page.screenshot({ path: path.join(out, `run-${device}-${scheme}.png`), fullPage: true });
      await page.goto(`${server.url}/s/default/jobs/${job.id}`);
      await page.getByRole("tab", { name: "Capture" }).click();
      await page.getByRole("region", { name: /^Step 1/ }).waitFor();
      await page.screenshot({ path: path.join(out, `editor-${device}-${scheme}.png`), fullPage: true });
      await page.getByRole("tab", { name: "Composer" }).click();
      await page.getByRole("region", { name: "Page 1" }).waitFor();
      await page.screenshot({ path: path.join(out, `composer-${device}-${scheme}.png`), fullPage: true });
      if (errors.length) console.warn(`console errors (${device}, ${scheme}):\n${errors.join("\n")}`);
      await context.close();
    }
  }
  console.log(`screenshots in ${path.relative(process.cwd(), out)}/`);
} finally {
  await browser.close();
  await server.stop();
  await site.stop();
}
