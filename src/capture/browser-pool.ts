import type { Logger } from "pino";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { Metrics } from "../metrics/metrics.js";
import { CHROMIUM_INSTALL_HINT, findChromium } from "./chromium.js";

/**
 * One Chromium per process, launched on first use and again if it dies; every run gets a fresh
 * context of it (own cookies, storage and cache), which costs milliseconds where a browser launch
 * costs a second. The first page of a new context costs a renderer process (about 100 ms here),
 * so the pool keeps one unused context with an open blank page in reserve and prepares the next
 * while a run uses it: a run never waits for that start-up, and never shares a context.
 */
export type CapturePage = { context: BrowserContext; page: Page };

export type BrowserPool = {
  /** A fresh context (never used by anything else) with one blank page of this viewport. */
  acquire(viewport: { width: number; height: number }): Promise<CapturePage>;
  /** How many times a browser was launched (1 in a healthy process). */
  readonly launches: number;
  /** Closes the current browser as a crash would; the next run launches a new one. */
  restartBrowser(): Promise<void>;
  close(): Promise<void>;
};

// Flags for a server without a display or a network beyond what the job visits: no sandbox
// (containers run as one user), no GPU, no background connections to Google's services.
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-quic",
  "--no-first-run",
  "--hide-scrollbars",
  "--mute-audio",
  // Dashboards live on private networks. A page that the capture fetched itself (basic auth is
  // added that way) counts as "public" to Chromium's local-network checks, which would then
  // block its images and frames on private addresses; the job, not the browser, decides here.
  "--disable-features=LocalNetworkAccessChecks,BlockInsecurePrivateNetworkRequests,PrivateNetworkAccessSendPreflights",
];

export class ChromiumMissingError extends Error {}

export function createBrowserPool(options: {
  chromiumPath: string | undefined;
  log: Logger;
  /** Counts launches and crashes; none in tools that run no server. */
  metrics?: Metrics;
}): BrowserPool {
  let browser: Promise<Browser> | undefined;
  let spare: Promise<CapturePage> | undefined;
  let launches = 0;
  let closed = false;

  const launch = async (): Promise<Browser> => {
    const executablePath = findChromium(options.chromiumPath);
    if (!executablePath) throw new ChromiumMissingError(`Chromium not found: ${CHROMIUM_INSTALL_HINT}`);
    const { chromium } = await import("playwright-core");
    launches++;
    const started = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
    options.metrics?.browserLaunches.inc();
    started.on("disconnected", () => {
      // The next run launches a new one; runs in the dead one fail with the browser's error.
      if (!closed) options.log.warn("Chromium exited; it will be launched again for the next run");
      if (current === started) {
        // Still the pool's browser: nobody here closed it (close and restartBrowser let go first).
        if (!closed) options.metrics?.browserCrashes.inc();
        browser = undefined;
        spare = undefined;
      }
    });
    current = started;
    options.log.info(`Chromium launched (${executablePath}, version ${started.version()})`);
    return started;
  };
  let current: Browser | undefined;

  const getBrowser = () => {
    browser ??= launch().catch((error) => {
      browser = undefined;
      throw error;
    });
    return browser;
  };

  const prepare = async (): Promise<CapturePage> => {
    const context = await (await getBrowser()).newContext({
      viewport: { width: 1440, height: 900 },
      acceptDownloads: false,
      serviceWorkers: "block",
    });
    return { context, page: await context.newPage() };
  };

  const discard = (prepared: Promise<CapturePage> | undefined) => {
    void prepared?.then(({ context }) => context.close()).catch(() => undefined);
  };

  return {
    async acquire(viewport) {
      if (closed) throw new Error("the browser pool is closed");
      let taken = spare ?? prepare();
      spare = undefined;
      let prepared = await taken.catch(() => undefined);
      if (!prepared || prepared.page.isClosed()) {
        // The reserve died with its browser: start from a fresh one.
        taken = prepare();
        prepared = await taken;
      }
      if (!closed)
        spare = prepare().catch((error) => {
          spare = undefined;
          throw error;
        });
      spare?.catch(() => undefined);
      await prepared.page.setViewportSize(viewport);
      return prepared;
    },
    get launches() {
      return launches;
    },
    async restartBrowser() {
      const old = browser;
      discard(spare);
      browser = undefined;
      spare = undefined;
      current = undefined;
      if (old) await (await old.catch(() => undefined))?.close();
    },
    async close() {
      closed = true;
      discard(spare);
      spare = undefined;
      const old = browser;
      browser = undefined;
      if (old) await (await old.catch(() => undefined))?.close();
    },
  };
}
