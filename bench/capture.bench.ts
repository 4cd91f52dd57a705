/**
 * Capture throughput: N one-page snapshot runs
 *   (a) through Pagewright (HTTP API, queue, worker with WORKER_COUNT slots, one warm browser,
 *       a fresh context per run, PNG stored, run recorded),
 *   (b) the usual hand-written baseline: a browser launched per capture,
 *   (c) the floor: bare screenshots in one warm browser context,
 *   (d) a fresh context per capture in a warm browser: what run isolation costs by itself,
 * each with the same concurrency, same page and same snapshot. Prints runs per minute, p50/p95
 * per-run time and peak memory (this process plus its Chromium processes), and the ratios.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { chromium } from "playwright-core";
import { CHROMIUM_ARGS } from "../src/capture/browser-pool.js";
import { findChromium } from "../src/capture/chromium.js";
import { loadConfig } from "../src/config/config.js";
import { startServer } from "../src/server.js";
import { startTestSite } from "../test/fixtures/test-site.js";
import { Client } from "../test/helpers/client.js";
import { postStream } from "../test/helpers/sse.js";

export type CaptureFigures = {
  name: string;
  runs: number;
  seconds: number;
  runsPerMinute: number;
  p50: number;
  p95: number;
  peakMemoryMb: number;
};

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

/** RSS of this process and every process below it (Chromium's), sampled every 100 ms. */
function sampleMemory() {
  let peak = 0;
  const rssOfTree = () => {
    const children = new Map<number, number[]>();
    const rss = new Map<number, number>();
    for (const entry of fs.readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        const ppid = Number(fields[1]);
        rss.set(Number(entry), Number(fields[21]) * 4096);
        children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
      } catch {
        // the process ended while we looked
      }
    }
    let total = 0;
    const stack = [process.pid];
    while (stack.length) {
      const pid = stack.pop() as number;
      total += rss.get(pid) ?? 0;
      stack.push(...(children.get(pid) ?? []));
    }
    return total;
  };
  const timer = setInterval(() => {
    peak = Math.max(peak, rssOfTree());
  }, 100);
  return {
    stop() {
      clearInterval(timer);
      return Math.round(peak / 1024 / 1024);
    },
  };
}

async function measure(name: string, runs: number, fn: () => Promise<number[]>): Promise<CaptureFigures> {
  const memory = sampleMemory();
  const started = performance.now();
  const times = await fn();
  const seconds = (performance.now() - started) / 1000;
  return {
    name,
    runs,
    seconds: Math.round(seconds * 10) / 10,
    runsPerMinute: Math.round((runs / seconds) * 60),
    p50: Math.round(percentile(times, 50)),
    p95: Math.round(percentile(times, 95)),
    peakMemoryMb: memory.stop(),
  };
}

/** Runs `count` tasks, `concurrency` at a time; answers each task's milliseconds. */
async function pool(count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<number[]> {
  const times: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const t0 = performance.now();
        await task(i);
        times.push(performance.now() - t0);
      }
    }),
  );
  return times;
}

export async function benchCapture(options: { runs: number; workers: number; log: (line: string) => void }) {
  const executablePath = findChromium(process.env.CHROMIUM_PATH);
  if (!executablePath) throw new Error("Chromium not found: apt-get install -y chromium, or set CHROMIUM_PATH");
  const site = await startTestSite();
  const pageUrl = `${site.url}/table`;
  const viewport = { width: 1280, height: 800 };
  const results: CaptureFigures[] = [];
  try {
    // (a) Pagewright, end to end through the API.
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "pagewright-bench-capture-"));
    const config = loadConfig({
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      ADMIN_PASSWORD: "bench-password",
      SECRET_KEY: "bench-secret-key-0123456789",
      WORKER_COUNT: String(options.workers),
      LOG_LEVEL: "silent",
    });
    const server = await startServer(config, pino({ level: "silent" }));
    try {
      const client = new Client(server.url);
      await client.login("admin", "bench-password");
      const job = await client.post("/api/spaces/default/jobs", {
        name: "Bench snapshot",
        capture: {
          viewport,
          steps: [
            { type: "navigate", url: pageUrl },
            { type: "snapshot", as: "page" },
          ],
        },
      });
      if (job.status !== 201) throw new Error(`job create failed: ${job.text}`);
      // Warm-up: the first run launches the browser, as a long-running service has already done.
      await postStream(client, `/api/spaces/default/jobs/${job.body.id}/run`);
      options.log(`  (a) Pagewright: ${options.runs} runs, WORKER_COUNT=${options.workers} …`);
      let runTimes: number[] = [];
      const figures = await measure("(a) Pagewright", options.runs, async () => {
        const ends = await Promise.all(
          Array.from({ length: options.runs }, () =>
            postStream(client, `/api/spaces/default/jobs/${job.body.id}/run`, {}, { timeoutMs: 600_000 }),
          ),
        );
        const failed = ends.filter((e) => e.end?.state !== "success");
        if (failed.length) throw new Error(`${failed.length} runs did not succeed: ${JSON.stringify(failed[0].end)}`);
        const reads = await Promise.all(ends.map((e) => client.get(`/api/spaces/default/runs/${e.end.runId}`)));
        runTimes = reads.map((r) => r.body.durationMs as number);
        return runTimes;
      });
      results.push(figures);
    } finally {
      await server.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }

    // (b) A browser launched per capture.
    options.log(`  (b) browser per capture: ${options.runs} captures, ${options.workers} at a time …`);
    results.push(
      await measure("(b) browser per capture", options.runs, () =>
        pool(options.runs, options.workers, async () => {
          const browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
          const page = await browser.newPage({ viewport });
          await page.goto(pageUrl);
          await page.screenshot({ type: "png" });
          await browser.close();
        }),
      ),
    );

    // (c) The floor: one warm browser and context, a page per capture.
    options.log(`  (c) warm context floor: ${options.runs} captures, ${options.workers} at a time …`);
    const browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
    const context = await browser.newContext({ viewport });
    try {
      await (await context.newPage()).goto(pageUrl);
      results.push(
        await measure("(c) warm context (floor)", options.runs, () =>
          pool(options.runs, options.workers, async () => {
            const page = await context.newPage();
            await page.goto(pageUrl);
            await page.screenshot({ type: "png" });
            await page.close();
          }),
        ),
      );
      // (d) What isolation costs by itself: a fresh context per capture in the warm browser,
      // nothing else (no queue, no records, no files). Pagewright can at best reach this.
      options.log(`  (d) fresh context per capture, warm browser: ${options.runs} captures …`);
      results.push(
        await measure("(d) fresh context, warm browser", options.runs, () =>
          pool(options.runs, options.workers, async () => {
            const fresh = await browser.newContext({ viewport });
            const page = await fresh.newPage();
            await page.goto(pageUrl);
            await page.screenshot({ type: "png" });
            await fresh.close();
          }),
        ),
      );
    } finally {
      await browser.close();
    }
  } finally {
    await site.stop();
  }
  return results;
}

export function printCapture(results: CaptureFigures[], log: (line: string) => void) {
  const [a, b, c, d] = results;
  log("");
  log("| scenario | runs | seconds | runs/min | p50 ms | p95 ms | peak memory MB |");
  log("|---|---|---|---|---|---|---|");
  for (const r of results)
    log(`| ${r.name} | ${r.runs} | ${r.seconds} | ${r.runsPerMinute} | ${r.p50} | ${r.p95} | ${r.peakMemoryMb} |`);
  log("");
  log(`throughput a/b: ${(a.runsPerMinute / b.runsPerMinute).toFixed(2)}× (target ≥ 3×)`);
  log(`throughput a/c: ${(a.runsPerMinute / c.runsPerMinute).toFixed(2)}×`);
  log(`per-run time a/c (p50): ${(a.p50 / c.p50).toFixed(2)}× (target ≤ 1.5×)`);
  log(`per-run time a/b (p50): ${(a.p50 / b.p50).toFixed(2)}×`);
  log(
    `throughput a/d: ${(a.runsPerMinute / d.runsPerMinute).toFixed(2)}× (d: the cost of a fresh context alone, the ceiling for isolated runs)`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const runs = Number(process.env.BENCH_RUNS ?? 50);
  const results = await benchCapture({ runs, workers: 2, log: console.log });
  printCapture(results, console.log);
}
