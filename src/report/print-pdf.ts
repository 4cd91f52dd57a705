import type { Browser, BrowserContext } from "playwright-core";
import type { BrowserPool } from "../capture/browser-pool.js";
import { type Paper, pageSizeMm } from "./report-html.js";

/**
 * Prints the report HTML to PDF in Chromium. The pool's contexts run page scripts (captures
 * need them), and JavaScript can only be switched off when a context is created: so the pool
 * gives its browser, and the report gets a context of its own with JavaScript off and every
 * request other than a data: URL aborted. Nothing in the report can then run, or reach any
 * host, loopback included, while it is printed.
 */
const SET_CONTENT_TIMEOUT_MS = 60_000;

export async function printPdf(html: string, paper: Paper, pool: BrowserPool, signal?: AbortSignal): Promise<Buffer> {
  signal?.throwIfAborted();
  const size = pageSizeMm(paper);
  // A viewport of the paper's width at 96 dpi: what is measured on screen matches the print.
  const viewport = { width: Math.round((size.width / 25.4) * 96), height: Math.round((size.height / 25.4) * 96) };
  const browser = await browserOf(pool, viewport);
  const context: BrowserContext = await browser.newContext({
    viewport,
    javaScriptEnabled: false,
    serviceWorkers: "block",
    acceptDownloads: false,
  });
  const onAbort = () => void context.close().catch(() => undefined);
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    await context.route("**/*", (route) =>
      route.request().url().startsWith("data:") ? route.continue() : route.abort("blockedbyclient"),
    );
    const page = await context.newPage();
    await page.setContent(html, { waitUntil: "load", timeout: SET_CONTENT_TIMEOUT_MS });
    return await page.pdf({
      format: paper.size,
      landscape: paper.orientation === "landscape",
      printBackground: true,
      preferCSSPageSize: true,
    });
  } catch (error) {
    signal?.throwIfAborted();
    throw error;
  } finally {
    signal?.removeEventListener("abort", onAbort);
    await context.close().catch(() => undefined);
  }
}

const browsers = new WeakMap<BrowserPool, Browser>();

/**
 * The pool's browser. The pool hands out contexts, not its browser, so the first report takes
 * a context to learn it; later reports reuse it while it is connected instead of using up the
 * pool's prepared context each time. A browser that died is asked of the pool again, which
 * launches a new one.
 */
async function browserOf(pool: BrowserPool, viewport: { width: number; height: number }): Promise<Browser> {
  const known = browsers.get(pool);
  if (known?.isConnected()) return known;
  const acquired = await pool.acquire(viewport);
  void acquired.context.close().catch(() => undefined);
  const browser = acquired.context.browser();
  if (!browser) throw new Error("the browser pool gave a context without a browser");
  browsers.set(pool, browser);
  return browser;
}
