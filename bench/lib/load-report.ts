/** The load bench's figures (bench/load.bench.ts): printing them, and what fails the run. */
import os from "node:os";
import type { EventStreamFigures } from "./event-streams.js";
import { shorten } from "./http.js";
import type { LoadSummary } from "./load.js";
import { integer, kilobytes, ms, ratio, table } from "./report.js";
import type { MemorySample } from "./server-memory.js";

export type LoadSettings = { seconds: number; streams: number };

export type EndpointResult = { label: string; request: string; connections: number; summary: LoadSummary };

export type LoadFigures = LoadSettings & {
  loadAverage: { before: number; after: number };
  eventStreams: EventStreamFigures;
  /** The traffic alone, on the idle server, before the streams: the baseline of `endpoints`. */
  baselineSeconds: number;
  endpoints: Array<EndpointResult & { alone: LoadSummary }>;
  memory: { before: MemorySample; peak: MemorySample; after: MemorySample; drained: MemorySample | null };
  drainSeconds: number | null;
  /** Lines the server logged at error or fatal level, and at warn. */
  serverErrors: string[];
  serverWarnings: number;
  /** Jobs the traffic created (each on a schedule), alone (before `memory.before`) and loaded. */
  jobsCreated: { alone: number; loaded: number };
};

const mb = (bytes: number | null) => (bytes === null ? "–" : integer(bytes / 2 ** 20));

export function printLoad(f: LoadFigures, log: (line: string) => void) {
  const s = f.eventStreams;
  const states = Object.entries(s.endStates)
    .map(([state, n]) => `${n} ${state}`)
    .join(", ");
  log("");
  log(
    `  event streams: ${s.held} held open for ${f.seconds} s; ${integer(s.opened)} opened in all, ` +
      `${integer(s.ended)} ended with \`end\` (${states || "none"}), ${integer(s.closedAtEnd)} still open at the end ` +
      `(closed by the bench), ${s.errors} errors${s.firstError ? ` (first: ${s.firstError})` : ""}`,
  );
  log(
    `  stream traffic: ${integer(s.events)} events (${Object.entries(s.eventCounts)
      .map(([name, n]) => `${name} ${integer(n)}`)
      .join(", ")}), ${integer(s.comments)} comments, ${kilobytes(s.bytes)} KB; ` +
      `headers after p50 ${ms(s.openP50)} / p99 ${ms(s.openP99)} ms; open → end p50 ${(s.lifeP50 / 1000).toFixed(1)} s (of those that ended)`,
  );
  log("");
  const rows = f.endpoints.map(({ label, request, connections, summary: x, alone: a }) => [
    label,
    request,
    String(connections),
    integer(x.requestsPerSecond),
    ratio(x.requestsPerSecond, a.requestsPerSecond),
    ms(x.latencyP50),
    ms(x.latencyP99),
    ratio(x.latencyP99, a.latencyP99),
    kilobytes(x.bytesPerAnswer),
    integer(x.requests),
    integer(x.non2xx),
    integer(x.errors),
  ]);
  const sum = (pick: (x: LoadSummary) => number) => f.endpoints.reduce((total, e) => total + pick(e.summary), 0);
  const sumAlone = f.endpoints.reduce((total, e) => total + e.alone.requestsPerSecond, 0);
  const worstP99 = (pick: (e: LoadFigures["endpoints"][number]) => LoadSummary) =>
    Math.max(...f.endpoints.map((e) => pick(e).latencyP99));
  rows.push([
    "all",
    "",
    String(f.endpoints.reduce((n, e) => n + e.connections, 0)),
    integer(sum((x) => x.requestsPerSecond)),
    ratio(
      sum((x) => x.requestsPerSecond),
      sumAlone,
    ),
    "",
    ms(worstP99((e) => e.summary)),
    ratio(
      worstP99((e) => e.summary),
      worstP99((e) => e.alone),
    ),
    "",
    integer(sum((x) => x.requests)),
    integer(sum((x) => x.non2xx)),
    integer(sum((x) => x.errors)),
  ]);
  log(
    table(
      [
        { title: "API traffic", align: "left" },
        { title: "request", align: "left" },
        { title: "conn." },
        { title: "req/s" },
        { title: "×alone" },
        { title: "p50 ms" },
        { title: "p99 ms" },
        { title: "×alone" },
        { title: "KB/answer" },
        { title: "answers" },
        { title: "non-2xx" },
        { title: "errors" },
      ],
      rows,
    ),
  );
  log(
    `  ×alone: the same traffic for ${f.baselineSeconds} s on the idle server before the streams ` +
      `(${integer(sumAlone)} req/s in all); the p99 of the row \`all\` is the worst endpoint's`,
  );
  log("");
  const memoryRow = (label: string, m: MemorySample) => [
    label,
    mb(m.rss),
    mb(m.heapUsed),
    mb(m.group),
    m.queueDepth === null ? "–" : integer(m.queueDepth),
    m.loopDelayP99 === null ? "–" : ms(m.loopDelayP99),
  ];
  const memoryRows = [
    memoryRow("before (warm, idle)", f.memory.before),
    memoryRow("highest while loaded (2 s samples)", f.memory.peak),
    memoryRow("after (streams closed, +2 s)", f.memory.after),
  ];
  if (f.memory.drained) {
    memoryRows.push(memoryRow(`queue drained (+${f.drainSeconds?.toFixed(0)} s)`, f.memory.drained));
  }
  log(
    table(
      [
        { title: "server", align: "left" },
        { title: "RSS MB" },
        { title: "heap used MB" },
        { title: "with Chromium PSS MB" },
        { title: "queued runs" },
        { title: "loop delay p99 ms" },
      ],
      memoryRows,
    ),
  );
  log("");
  log(
    `  load average ${f.loadAverage.before.toFixed(2)} before, ${f.loadAverage.after.toFixed(2)} after, on ` +
      `${os.availableParallelism()} cores shared by the server, its Chromium, the load generator and the test site`,
  );
  log(
    `  jobs created by the traffic: ${integer(f.jobsCreated.alone)} alone, ${integer(f.jobsCreated.loaded)} loaded, ` +
      "each on a schedule (a timer in the embedded scheduler, held in the heap)",
  );
  log(`  server log: ${f.serverErrors.length} errors, ${f.serverWarnings} warnings`);
  for (const line of f.serverErrors.slice(0, 3)) log(`    ${shorten(line, 400)}`);
}

/** The failures to report (the run exits 1): stream errors, refused or failed requests, failed runs, server errors. */
export function loadProblems(f: LoadFigures): string[] {
  const problems: string[] = [];
  if (f.eventStreams.errors)
    problems.push(`load: ${f.eventStreams.errors} event stream errors (first: ${f.eventStreams.firstError})`);
  const failedRuns = f.eventStreams.ended - (f.eventStreams.endStates.success ?? 0);
  if (failedRuns) problems.push(`load: ${failedRuns} of ${f.eventStreams.ended} streamed runs did not succeed`);
  for (const e of f.endpoints) {
    if (e.summary.non2xx || e.summary.errors) {
      problems.push(
        `load ${e.label}: ${e.summary.non2xx} non-2xx, ${e.summary.errors} errors of ${e.summary.requests}` +
          `${e.summary.firstError ? ` (first: ${e.summary.firstError})` : ""}`,
      );
    }
  }
  if (f.serverErrors.length) problems.push(`load: the server logged ${f.serverErrors.length} errors`);
  return problems;
}
