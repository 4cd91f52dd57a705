import type { Logger } from "pino";
import type { Browser, BrowserContext, BrowserContextOptions } from "playwright-core";
import { CHROMIUM_INSTALL_HINT, findChromium } from "./chromium.js";

/**
 * One Chromium per process, launched on first use and again if it dies; every run gets a fresh
 * context of it (own cookies, storage and cache), which costs milliseconds where a browser launch
 * costs a second.
 */
export type BrowserPool = {
  newContext(options: BrowserContextOptions): Promise<BrowserContext>;
  /** How many times a browser was launched (1 in a healthy process). */
  readonly launches: number;
  /** Closes the current browser as a crash would; the next run launches a new one. */
  restartBrowser(): Promise<void>;
  close(): Promise<void>;
};

// Flags for a server without a display or a network beyond what the job visits: no sandbox
// (containers run as one user), no GPU, no background connections to Google's services.
const ARGS = [
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
];

export class ChromiumMissingError extends Error {}

export function createBrowserPool(options: { chromiumPath: string | undefined; log: Logger }): BrowserPool {
  let browser: Promise<Browser> | undefined;
  let launches = 0;
  let closed = false;

  const launch = async (): Promise<Browser> => {
    const executablePath = findChromium(options.chromiumPath);
    if (!executablePath) throw new ChromiumMissingError(`Chromium not found: ${CHROMIUM_INSTALL_HINT}`);
    const { chromium } = await import("playwright-core");
    launches++;
    const started = await chromium.launch({ executablePath, headless: true, args: ARGS });
    started.on("disconnected", () => {
      // The next run launches a new one; runs in the dead one fail with the browser's error.
      if (!closed) options.log.warn("Chromium exited; it will be launched again for the next run");
      browser = undefined;
    });
    options.log.info(`Chromium launched (${executablePath}, version ${started.version()})`);
    return started;
  };

  return {
    async newContext(contextOptions) {
      if (closed) throw new Error("the browser pool is closed");
      browser ??= launch().catch((error) => {
        browser = undefined;
        throw error;
      });
      return (await browser).newContext(contextOptions);
    },
    get launches() {
      return launches;
    },
    async restartBrowser() {
      const current = browser;
      browser = undefined;
      if (current) await (await current.catch(() => undefined))?.close();
    },
    async close() {
      closed = true;
      const current = browser;
      browser = undefined;
      if (current) await (await current.catch(() => undefined))?.close();
    },
  };
}
