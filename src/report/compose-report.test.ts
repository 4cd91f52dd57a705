import http from "node:http";
import type { AddressInfo } from "node:net";
import pino from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type BrowserPool, createBrowserPool } from "../capture/browser-pool.js";
import { type Report, ReportSchema } from "../schemas/report.js";
import { composeReport, describeBlockError, type ReportInput } from "./compose-report.js";

/** A local server that records every request: nothing of a report may reach it unless allowed. */
type LocalServer = { url: string; port: number; requests: string[]; close(): Promise<void> };

async function startLocalServer(png: Buffer): Promise<LocalServer> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? "");
    if (req.url === "/img.png") {
      res.writeHead(200, { "content-type": "image/png" }).end(png);
    } else if (req.url === "/redirect") {
      res.writeHead(302, { location: `http://localhost:${port}/img.png` }).end();
    } else if (req.url === "/page.html") {
      res.writeHead(200, { "content-type": "text/html" }).end("<h1>SECRET-LOCAL-CONTENT</h1>");
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const pageCount = (pdf: Buffer) => pdf.toString("latin1").match(/\/Type\s*\/Page\b/g)?.length ?? 0;
const imageCount = (pdf: Buffer) => pdf.toString("latin1").match(/\/Subtype\s*\/Image\b/g)?.length ?? 0;
const mediaBoxes = (pdf: Buffer) =>
  [...pdf.toString("latin1").matchAll(/\/MediaBox\s*\[\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*\]/g)].map(
    (m) => ({ width: Number(m[3]) - Number(m[1]), height: Number(m[4]) - Number(m[2]) }),
  );
const mmToPt = (mm: number) => (mm / 25.4) * 72;

const report = (pages: unknown[], extra: Record<string, unknown> = {}): Report =>
  ReportSchema.parse({ title: "Report", ...extra, pages });
const onePage = (...blocks: unknown[]) => report([{ rows: [{ cells: [{ blocks }] }] }]);
/**
 * A report the schema would refuse (it refuses file tags and non-http image URLs when a job is
 * saved): the renderer must hold without that check too.
 */
const unchecked = (pages: unknown[]): Report => ({ ...report([{ rows: [] }]), pages }) as Report;
const uncheckedPage = (...blocks: unknown[]) => unchecked([{ rows: [{ cells: [{ blocks }] }] }]);

let pool: BrowserPool;
let server: LocalServer;
let snapshotPng: Buffer;

beforeAll(async () => {
  pool = createBrowserPool({ chromiumPath: process.env.CHROMIUM_PATH, log: pino({ level: "silent" }) });
  const { context, page } = await pool.acquire({ width: 320, height: 200 });
  await page.setContent(
    '<div style="background:#16a34a;color:white;font:40px sans-serif;padding:20px">dashboard</div>',
  );
  snapshotPng = await page.screenshot({ type: "png" });
  await context.close();
  server = await startLocalServer(snapshotPng);
});

afterAll(async () => {
  await pool?.close();
  await server?.close();
});

beforeEach(() => {
  server.requests.length = 0;
});

const input = (overrides: Partial<ReportInput>): ReportInput => ({
  report: undefined,
  variables: { errors: 1470592, status: "degraded <b>", ratio: 0.12345 },
  snapshots: [
    { name: "dashboard", png: snapshotPng },
    { name: "table", png: snapshotPng },
  ],
  scope: {
    job: { id: "3f0c1a52-5b7e-4c1e-9a53-0d3f3e1b2c44", name: "Daily errors", description: "Errors dashboard" },
    run: {
      id: "run-1",
      trigger: "manual",
      startedAt: "2026-03-04T05:06:00.000Z",
      reportUrl: "https://pw.example/r/run-1?token=abc",
    },
    space: "default",
    now: "2026-03-04T05:06:07.000Z",
  },
  allowedHosts: [],
  pool,
  ...overrides,
});

describe("composeReport", () => {
  it("renders every block type over several pages, one PDF page per report page at least", async () => {
    const composed = await composeReport(
      input({
        report: report(
          [
            {
              rows: [
                {
                  cells: [
                    { blocks: [{ type: "text", content: "## {{ errors }} errors on {{ now | date: '%Y-%m-%d' }}" }] },
                  ],
                },
                {
                  cells: [
                    { blocks: [{ type: "variable", name: "errors", label: "Errors in {{ space }}" }] },
                    { blocks: [{ type: "variable", name: "ratio" }] },
                    { blocks: [{ type: "variable", name: "status" }] },
                  ],
                },
                { cells: [{ blocks: [{ type: "divider" }, { type: "spacer", heightMm: 10 }] }] },
              ],
            },
            { rows: [{ cells: [{ blocks: [{ type: "snapshot", ref: "dashboard", caption: "{{ job.name }}" }] }] }] },
            {
              rows: [
                {
                  cells: [
                    { blocks: [{ type: "snapshots" }] },
                    { blocks: [{ type: "text", content: "[Open the run]({{ run.reportUrl }}) · {{ run.trigger }}" }] },
                  ],
                },
              ],
            },
          ],
          {
            title: "Errors on {{ now | date: '%Y-%m-%d' }}",
            paper: { size: "A5", orientation: "landscape" },
            theme: { font: "Georgia, serif", textColor: "#111827", background: "#fffbeb", accent: "rgb(220, 38, 38)" },
          },
        ),
      }),
    );
    expect(composed.errors).toEqual([]);
    expect(composed.title).toBe("Errors on 2026-03-04");
    const { html, pdf } = composed;
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:;`);
    expect(html).toContain("<title>Errors on 2026-03-04</title>");
    expect(html).toContain("<h2>1470592 errors on 2026-03-04</h2>");
    expect(html).toContain('<div class="value">1,470,592</div><div class="label">Errors in default</div>');
    expect(html).toContain('<div class="value">0.12</div><div class="label">ratio</div>');
    expect(html).toContain('<div class="value">degraded &lt;b&gt;</div>');
    expect(html).toContain("<figcaption>Daily errors</figcaption>");
    expect(html).toContain('<a href="https://pw.example/r/run-1?token=abc">Open the run</a> · manual');
    expect(html.split(`data:image/png;base64,${snapshotPng.toString("base64")}`).length - 1).toBe(3);
    expect(html).toContain('<hr class="block divider">');
    expect(html).toContain('style="height: 10mm"');
    expect(html).toContain("@page { size: 210mm 148mm;");
    expect(html).toContain("background: #fffbeb; color: #111827; font-family: Georgia, serif;");
    expect(html).toContain("color: rgb(220, 38, 38);");
    expect(html).not.toMatch(/<script/i);

    expect(pdf.subarray(0, 5).toString()).toBe("%PDF-");
    expect(pageCount(pdf)).toBeGreaterThanOrEqual(3);
    for (const box of mediaBoxes(pdf)) {
      expect(box.width).toBeCloseTo(mmToPt(210), -0.5);
      expect(box.height).toBeCloseTo(mmToPt(148), -0.5);
    }
  });

  it("renders the default report: the job's name and every snapshot", async () => {
    const composed = await composeReport(input({ report: undefined }));
    expect(composed.errors).toEqual([]);
    expect(composed.title).toBe("Daily errors");
    expect(composed.html).toContain("<h1>Daily errors</h1>");
    expect(composed.html).toContain("<figcaption>dashboard</figcaption><");
    expect(composed.html).toContain("<figcaption>table</figcaption><");
    expect(pageCount(composed.pdf)).toBe(1);
    expect(imageCount(composed.pdf)).toBeGreaterThanOrEqual(1);
    const [box] = mediaBoxes(composed.pdf);
    expect(box.width).toBeCloseTo(mmToPt(210), -0.5);
    expect(box.height).toBeCloseTo(mmToPt(297), -0.5);
  });

  it("fails include and render blocks in place, names them, and renders the rest", async () => {
    const composed = await composeReport(
      input({
        report: unchecked([
          { rows: [{ cells: [{ blocks: [{ type: "text", content: "fine {{ errors }}" }] }] }] },
          {
            rows: [
              { cells: [{ blocks: [{ type: "divider" }] }] },
              {
                cells: [
                  { blocks: [{ type: "text", content: "ok" }] },
                  { blocks: [{ type: "divider" }, { type: "text", content: '{% include ".env" %}' }] },
                  { blocks: [{ type: "snapshot", ref: "dashboard", caption: "{% render 'x' %}" }] },
                ],
              },
            ],
          },
        ]),
      }),
    );
    expect(composed.errors).toEqual([
      {
        page: 1,
        row: 1,
        cell: 1,
        block: 1,
        message: expect.stringMatching(/^Liquid: \{% include %\} is not allowed: templates have no file access/),
      },
      {
        page: 1,
        row: 1,
        cell: 2,
        block: 0,
        message: expect.stringMatching(/^caption: Liquid: \{% render %\} is not allowed/),
      },
    ]);
    expect(describeBlockError(composed.errors[0])).toMatch(/^page 2, row 2, cell 2, block 2: Liquid: \{% include %\}/);
    expect(composed.html).toContain("fine 1470592");
    expect(composed.html.match(/class="block-error"/g)).toHaveLength(2);
    expect(composed.html).toContain("templates have no file access");
    expect(pageCount(composed.pdf)).toBeGreaterThanOrEqual(2);
  });

  it("ends a hostile loop at the time limit with the block failed, and still makes the PDF", async () => {
    const started = performance.now();
    const composed = await composeReport(
      input({
        report: onePage(
          // Small ranges, many turns: time runs out long before memory (a range is an array).
          {
            type: "text",
            content:
              "{% for i in (1..100000) %}{% for j in (1..1000) %}{% assign x = j | plus: 1 %}{% endfor %}{% endfor %}",
          },
          { type: "text", content: "{% for i in (1..100000) %}{% for j in (1..1000) %}x{% endfor %}{% endfor %}" },
        ),
        limits: { templateMs: 1500 },
      }),
    );
    expect(performance.now() - started).toBeLessThan(1500 + 5000);
    expect(composed.errors.map((e) => e.message)).toEqual([
      "template took longer than 1.5 s",
      "template took longer than 1.5 s",
    ]);
    expect(pageCount(composed.pdf)).toBe(1);
  });

  it("reports a failed title with describeBlockError", async () => {
    const composed = await composeReport(input({ report: onePage({ type: "divider" }) }));
    expect(composed.errors).toEqual([]);
    const failed = await composeReport(
      input({ report: { ...uncheckedPage({ type: "divider" }), title: "{% include 'x' %}" } }),
    );
    expect(failed.title).toBe("Daily errors");
    expect(failed.errors).toHaveLength(1);
    expect(describeBlockError(failed.errors[0])).toMatch(/^report title: Liquid: \{% include %\} is not allowed/);
  });

  it("fails a block that names a snapshot or variable the run does not have", async () => {
    const composed = await composeReport(
      input({ report: onePage({ type: "snapshot", ref: "missing" }, { type: "variable", name: "nothing" }) }),
    );
    expect(composed.errors.map((e) => e.message)).toEqual([
      'no snapshot named "missing" in this run',
      'no variable named "nothing" in this run',
    ]);
  });

  it("loads nothing for an iframe or img of 127.0.0.1 in a text block, and keeps it out of the PDF", async () => {
    const composed = await composeReport(
      input({
        report: onePage(
          {
            type: "text",
            content:
              `Before <iframe src="${server.url}/page.html" width="400" height="300"></iframe>\n\n` +
              `<object data="${server.url}/page.html"></object> <embed src="${server.url}/page.html">\n\n` +
              `<div style="background-image: url(${server.url}/img.png)">styled</div>\n\n` +
              `<link rel="stylesheet" href="${server.url}/style.css"> After`,
          },
          { type: "text", content: `<img src="${server.url}/img.png"> <img src=${server.url}/img.png?2>` },
        ),
      }),
    );
    expect(server.requests).toEqual([]);
    expect(composed.html).not.toMatch(/<iframe|<object|<embed|<link/i);
    expect(composed.html).not.toContain(`src="${server.url}`);
    expect(composed.html).toContain("Before");
    expect(composed.html).toContain("After");
    // A raw <img> is fetched by the renderer under the address rules, as a Markdown image is.
    expect(composed.errors.map((e) => [e.block, e.message])).toEqual([
      [1, expect.stringMatching(/refused: 127\.0\.0\.1 is a loopback address/)],
      [1, expect.stringMatching(/refused: 127\.0\.0\.1 is a loopback address/)],
    ]);
    // Nothing was fetched, so the PDF has no image at all (the report has no snapshot block).
    expect(imageCount(composed.pdf)).toBe(0);
    expect(composed.pdf.toString("latin1")).not.toContain("SECRET-LOCAL-CONTENT");
  });

  it("refuses an image block of 127.0.0.1 with an error box, without a request", async () => {
    const composed = await composeReport(input({ report: onePage({ type: "image", url: `${server.url}/img.png` }) }));
    expect(server.requests).toEqual([]);
    expect(composed.errors).toEqual([
      {
        page: 0,
        row: 0,
        cell: 0,
        block: 0,
        message: `image ${server.url}/img.png: refused: 127.0.0.1 is a loopback address (add the host to REPORT_ALLOWED_HOSTS to allow it)`,
      },
    ]);
    expect(composed.html).toContain('class="block-error"');
    expect(imageCount(composed.pdf)).toBe(0);
  });

  it("refuses a host name that resolves to a loopback address, and a redirect to one", async () => {
    const composed = await composeReport(
      input({
        report: onePage(
          { type: "image", url: `http://localhost:${server.port}/img.png` },
          { type: "image", url: `${server.url}/redirect` },
        ),
        allowedHosts: [`127.0.0.1:${server.port}`],
      }),
    );
    expect(composed.errors.map((e) => e.message)).toEqual([
      expect.stringMatching(/refused: localhost resolves to (127\.0\.0\.1|::1), which is a loopback address/),
      expect.stringMatching(/refused: localhost resolves to (127\.0\.0\.1|::1), which is a loopback address/),
    ]);
    // The redirect itself came from an allowed host; its target was refused before any request.
    expect(server.requests).toEqual(["/redirect"]);
  });

  it("embeds an image of an allowed host, fetched once for all its uses", async () => {
    const composed = await composeReport(
      input({
        report: onePage(
          { type: "image", url: "http://{{ imageHost }}/img.png" },
          { type: "text", content: "![chart](http://{{ imageHost }}/img.png)" },
          {
            type: "text",
            content: `<p>raw <img alt="raw" src='http://{{ imageHost }}/img.png' srcset="${server.url}/2x.png 2x"></p>`,
          },
        ),
        variables: { imageHost: `127.0.0.1:${server.port}` },
        allowedHosts: ["127.0.0.1"],
      }),
    );
    expect(composed.errors).toEqual([]);
    expect(server.requests).toEqual(["/img.png"]);
    const dataUrl = `data:image/png;base64,${snapshotPng.toString("base64")}`;
    expect(composed.html).toContain(`<figure class="image"><img src="${dataUrl}"`);
    expect(composed.html).toContain(`<img src="${dataUrl}" alt="chart">`);
    expect(composed.html).toContain(`<img alt="raw" src="${dataUrl}">`);
    expect(imageCount(composed.pdf)).toBeGreaterThanOrEqual(1);
  });

  it("refuses a Markdown image of a private host in place, and file: URLs", async () => {
    const composed = await composeReport(
      input({
        report: uncheckedPage(
          { type: "text", content: `Look: ![chart](${server.url}/img.png) here` },
          // Not a valid body (the schema wants http URLs), as a template could make it.
          { type: "image", url: "file:///etc/passwd" },
          { type: "text", content: "![x](file:///etc/hostname)" },
        ),
      }),
    );
    expect(server.requests).toEqual([]);
    expect(composed.errors.map((e) => [e.block, e.message])).toEqual([
      [0, expect.stringMatching(/refused: 127\.0\.0\.1 is a loopback address/)],
      [1, "image file:///etc/passwd: file: URLs are refused; an image must be an http:// or https:// URL"],
      [2, "image file:///etc/hostname: file: URLs are refused; an image must be an http:// or https:// URL"],
    ]);
    expect(composed.html).toContain('Look: <span class="block-error"');
    expect(composed.html).not.toContain("pagewright-image:");
  });

  it("leaves no script in the HTML, whatever a text block or a variable holds", async () => {
    const composed = await composeReport(
      input({
        report: onePage(
          { type: "text", content: "<script>document.title = 'x'</script><SCRIPT src=x.js></SCRIPT>" },
          { type: "text", content: "<scr<script>x</script>ipt>alert(1)</script> {{ payload }}" },
          { type: "variable", name: "payload", label: "<script>" },
          { type: "text", content: '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" onerror="alert(1)">' },
        ),
        variables: { payload: "<script>alert(2)</script>" },
      }),
    );
    expect(composed.errors).toEqual([]);
    expect(composed.html).not.toMatch(/<script/i);
    expect(composed.html).not.toMatch(/\sonerror\s*=/i);
  });

  it("stops when the run is aborted", async () => {
    const controller = new AbortController();
    const pending = composeReport(
      input({
        report: onePage({
          type: "text",
          content: "{% for i in (1..5000000) %}{% assign x = i | plus: 1 %}{% endfor %}",
        }),
        signal: controller.signal,
      }),
    );
    setTimeout(() => controller.abort(new Error("run stopped")), 100);
    await expect(pending).rejects.toThrow("run stopped");
  });
});
