/**
 * Report rendering: a 10-page report (Liquid text with a loop, variable figures, snapshots,
 * dividers) composed N times (BENCH_REPORT_RUNS, default 10) one after the other with a warm
 * browser pool, as a worker does after each capture. Prints p50/p95 of the whole compose
 * (template worker + images + HTML + PDF), the share of it spent printing the PDF, a per-page
 * figure and the sizes of the files.
 *
 *   node --import tsx bench/report.bench.ts
 */
import pino from "pino";
import { createBrowserPool } from "../src/capture/browser-pool.js";
import { composeReport, type ReportInput } from "../src/report/compose-report.js";
import { printPdf } from "../src/report/print-pdf.js";
import { type Report, ReportSchema } from "../src/schemas/report.js";

const PAGES = 10;

export type ReportFigures = {
  runs: number;
  pages: number;
  p50: number;
  p95: number;
  pdfP50: number;
  perPageP50: number;
  htmlKb: number;
  pdfKb: number;
};

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

/** Ten pages: a heading and a 20-row table from Liquid, three figures, a snapshot, a divider. */
function benchReportBody(): Report {
  const snapshotNames = ["dashboard", "errors", "latency"];
  return ReportSchema.parse({
    title: "{{ job.name }}: {{ now | date: '%Y-%m-%d %H:%M' }}",
    paper: { size: "A4", orientation: "portrait" },
    pages: Array.from({ length: PAGES }, (_, page) => ({
      rows: [
        {
          cells: [
            {
              blocks: [
                {
                  type: "text",
                  content:
                    `## Section ${page + 1}: {{ errors }} errors\n\n` +
                    "| # | service | errors | share |\n|---|---|---|---|\n" +
                    "{% for i in (1..20) %}| {{ i }} | service-{{ i }} | {{ errors | divided_by: i }} | " +
                    "{{ i | times: 100 | divided_by: 210.0 | round: 1 }} % |\n{% endfor %}\n" +
                    "[Open the run]({{ run.reportUrl }})",
                },
              ],
            },
          ],
        },
        {
          cells: [
            { blocks: [{ type: "variable", name: "errors", label: "Errors today" }] },
            { blocks: [{ type: "variable", name: "latency", label: "p95 latency (ms)" }] },
            { blocks: [{ type: "variable", name: "status", label: "Status in {{ space }}" }] },
          ],
        },
        {
          cells: [
            {
              blocks: [
                {
                  type: "snapshot",
                  ref: snapshotNames[page % 3],
                  caption: `{{ job.name }}, page {{ ${page + 1} }}`,
                },
                { type: "divider" },
              ],
            },
          ],
        },
      ],
    })),
  });
}

export async function benchReport(
  log: (line: string) => void,
  options: { runs?: number } = {},
): Promise<ReportFigures> {
  const runs = options.runs ?? Number(process.env.BENCH_REPORT_RUNS ?? 10);
  const pool = createBrowserPool({ chromiumPath: process.env.CHROMIUM_PATH, log: pino({ level: "silent" }) });
  try {
    // One screenshot of a dashboard-like page, used as the run's three snapshots.
    const { context, page } = await pool.acquire({ width: 1280, height: 800 });
    await page.setContent(
      `<body style="margin:0;font:16px sans-serif;background:#f3f4f6">
        <header style="background:#1e3a8a;color:white;padding:24px;font-size:28px">Errors dashboard</header>
        <main style="display:grid;grid-template-columns:repeat(3,1fr);gap:16px;padding:24px">
          ${Array.from({ length: 9 }, (_, i) => `<section style="background:white;padding:24px;border-radius:8px"><h2>Panel ${i + 1}</h2><p style="font-size:40px;color:#b91c1c">${(i + 1) * 137}</p></section>`).join("")}
        </main></body>`,
    );
    const png = await page.screenshot({ type: "png" });
    await context.close();

    const input: ReportInput = {
      report: benchReportBody(),
      variables: { errors: 1470592, latency: 182.5, status: "degraded" },
      snapshots: ["dashboard", "errors", "latency"].map((name) => ({ name, png })),
      scope: {
        job: { id: "00000000-0000-4000-8000-000000000001", name: "Daily errors", description: "" },
        run: {
          id: "bench",
          trigger: "manual",
          startedAt: new Date().toISOString(),
          reportUrl: "https://pw.example/r/1",
        },
        space: "default",
        now: new Date().toISOString(),
      },
      allowedHosts: [],
      pool,
    };

    // Warm-up: the browser launches and the worker's modules are read once, as in a running service.
    const warm = await composeReport(input);
    if (warm.errors.length) throw new Error(`the bench report has errors: ${JSON.stringify(warm.errors)}`);
    const pdfPages = warm.pdf.toString("latin1").match(/\/Type\s*\/Page\b/g)?.length ?? 0;
    log(`  ${runs} compositions of a ${PAGES}-page report (${pdfPages} PDF pages, ${png.length} B snapshot PNG) …`);

    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      await composeReport(input);
      times.push(performance.now() - started);
    }
    const pdfTimes: number[] = [];
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      await printPdf(warm.html, input.report?.paper ?? { size: "A4", orientation: "portrait" }, pool);
      pdfTimes.push(performance.now() - started);
    }
    const figures: ReportFigures = {
      runs,
      pages: PAGES,
      p50: Math.round(percentile(times, 50)),
      p95: Math.round(percentile(times, 95)),
      pdfP50: Math.round(percentile(pdfTimes, 50)),
      perPageP50: Math.round(percentile(times, 50) / PAGES),
      htmlKb: Math.round(Buffer.byteLength(warm.html) / 1024),
      pdfKb: Math.round(warm.pdf.length / 1024),
    };
    log("");
    log("| report | runs | p50 ms | p95 ms | PDF print p50 ms | p50 ms per page | HTML KB | PDF KB |");
    log("|---|---|---|---|---|---|---|---|");
    log(
      `| ${PAGES} pages | ${runs} | ${figures.p50} | ${figures.p95} | ${figures.pdfP50} | ${figures.perPageP50} | ${figures.htmlKb} | ${figures.pdfKb} |`,
    );
    return figures;
  } finally {
    await pool.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchReport(console.log);
}
