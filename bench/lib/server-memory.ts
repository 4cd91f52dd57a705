import fs from "node:fs";

/** A server process's memory and load at one moment, from its /metrics and (Linux) /proc. */
export type MemorySample = {
  /** The Node.js process (process_resident_memory_bytes). */
  rss: number;
  heapUsed: number;
  /** Proportional set size of the server and its child processes (its Chromium); null off Linux. */
  group: number | null;
  queueDepth: number | null;
  /** Milliseconds; prom-client resets this histogram at each scrape, so it covers the time since the last one. */
  loopDelayP99: number | null;
};

/** Reads /metrics, unauthenticated: the server must allow this address (METRICS_ALLOW). */
export async function sampleMemory(baseUrl: string, pid: number): Promise<MemorySample> {
  const response = await fetch(`${baseUrl}/metrics`);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}: ${text.slice(0, 200)}`);
  const value = (name: string) => {
    const match = new RegExp(`^${name} (\\S+)$`, "m").exec(text);
    return match ? Number(match[1]) : null;
  };
  const loopDelay = value("nodejs_eventloop_lag_p99_seconds");
  return {
    rss: value("process_resident_memory_bytes") ?? Number.NaN,
    heapUsed: value("nodejs_heap_size_used_bytes") ?? Number.NaN,
    group: treeMemory(pid),
    queueDepth: value("pagewright_queue_depth"),
    loopDelayP99: loopDelay === null ? null : loopDelay * 1000,
  };
}

/**
 * The sum of Pss (shared pages split between the processes sharing them) of the process `root` and
 * its descendants: the server and its Chromium (which Playwright starts in a session of its own,
 * so the process group would miss it). Chromium's crash handler re-parents itself to init and is
 * not counted (a few MB).
 */
function treeMemory(root: number): number | null {
  if (process.platform !== "linux" || !root) return null;
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      // After "pid (comm) ": state, ppid, … (comm may hold spaces and parentheses).
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // The process ended while being read.
    }
  }
  let total = 0;
  const queue = [root];
  for (let pid = queue.pop(); pid !== undefined; pid = queue.pop()) {
    queue.push(...(children.get(pid) ?? []));
    try {
      const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
      total += Number(/^Pss:\s+(\d+) kB$/m.exec(rollup)?.[1] ?? 0) * 1024;
    } catch {
      // The process ended while being read.
    }
  }
  return total;
}

/** The highest value of each figure over the samples (not necessarily from the same sample). */
export function highestOf(samples: MemorySample[]): MemorySample {
  const max = (pick: (s: MemorySample) => number | null) => {
    const values = samples.map(pick).filter((v): v is number => v !== null && !Number.isNaN(v));
    return values.length ? Math.max(...values) : null;
  };
  return {
    rss: max((s) => s.rss) ?? 0,
    heapUsed: max((s) => s.heapUsed) ?? 0,
    group: max((s) => s.group),
    queueDepth: max((s) => s.queueDepth),
    loopDelayP99: max((s) => s.loopDelayP99),
  };
}
