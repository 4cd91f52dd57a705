import { describe, expect, it } from "vitest";
import { type FieldResult, type RenderOptions, renderTemplates, type TemplateField } from "./render-templates.js";

const options = (overrides: Partial<RenderOptions> = {}): RenderOptions => ({
  timeoutMs: 10_000,
  outputBytes: 5 * 1024 * 1024,
  memoryMb: 64,
  imageToken: "token",
  ...overrides,
});

const plain = (source: string): TemplateField => ({ source, markdown: false });
const markdown = (source: string): TemplateField => ({ source, markdown: true });

const scope = {
  errors: 1470592,
  job: { id: "j1", name: "Daily errors", description: "" },
  run: { id: "r1", trigger: "manual", startedAt: "2026-01-02T03:04:05.000Z", reportUrl: "https://pw.example/r/1" },
  space: "default",
  now: "2026-03-04T05:06:07.000Z",
};

/**
 * Were the template run on the main thread, the event loop would stall for as long as the
 * template runs (1.5 s and more below). On a loaded machine scheduling alone delays a tick by a
 * few hundred milliseconds, so the bound sits between the two.
 */
const MAX_STALL_MS = 1000;
/** Starting the worker from the TypeScript sources and terminating it, on a loaded machine. */
const WORKER_OVERHEAD_MS = 3000;

/** Largest gap between ticks of a 10 ms interval while `work` runs: the event loop's stalls. */
async function longestStall<T>(work: () => Promise<T>): Promise<{ value: T; stallMs: number; ms: number }> {
  let last = performance.now();
  let stallMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
  }, 10);
  const started = performance.now();
  try {
    const value = await work();
    return { value, stallMs, ms: performance.now() - started };
  } finally {
    clearInterval(timer);
  }
}

const messageOf = (result: FieldResult) => (result.ok ? `ok: ${result.text}` : result.message);

describe("renderTemplates", () => {
  it("renders variables, job, run, space and now, and Markdown for text fields", async () => {
    const results = await renderTemplates(
      [
        plain("{{ job.name }} on {{ now | date: '%Y-%m-%d' }}"),
        markdown("## {{ errors }} errors\n\n[report]({{ run.reportUrl }}) in {{ space }}"),
      ],
      scope,
      options(),
    );
    expect(results[0]).toEqual({ ok: true, text: "Daily errors on 2026-03-04", images: [] });
    expect(results[1].ok && results[1].text).toContain("<h2>1470592 errors</h2>");
    expect(results[1].ok && results[1].text).toContain('<a href="https://pw.example/r/1">report</a> in default');
  });

  it("refuses include and render with a clear message, and renders the other fields", async () => {
    const results = await renderTemplates(
      [plain("before"), markdown('{% include ".env" %}'), markdown("{% render 'x' %}"), plain("after")],
      scope,
      options(),
    );
    expect(results.map(messageOf)).toEqual([
      "ok: before",
      expect.stringMatching(/^Liquid: \{% include %\} is not allowed: templates have no file access/),
      expect.stringMatching(/^Liquid: \{% render %\} is not allowed: templates have no file access/),
      "ok: after",
    ]);
  });

  it("ends a hundred-million-turn loop at once, without stalling the event loop", async () => {
    const { value, stallMs, ms } = await longestStall(() =>
      renderTemplates(
        [plain("ok"), markdown("{% for i in (1..100000000) %}x{% endfor %}"), plain("{{ space }}")],
        scope,
        options({ timeoutMs: 1500 }),
      ),
    );
    expect(value.map(messageOf)).toEqual(["ok: ok", expect.stringMatching(/memory limit/), "ok: default"]);
    expect(ms).toBeLessThan(1500 + WORKER_OVERHEAD_MS);
    expect(stallMs).toBeLessThan(MAX_STALL_MS);
  });

  it("stops a long loop at the time limit of the whole report; the event loop keeps running", async () => {
    const { value, stallMs, ms } = await longestStall(() =>
      renderTemplates(
        [
          plain("first"),
          // Small ranges, many turns: time runs out long before memory (a range is an array).
          markdown(
            "{% for i in (1..100000) %}{% for j in (1..1000) %}{% assign x = j | plus: 1 %}{% endfor %}{% endfor %}done",
          ),
          plain("never reached"),
        ],
        scope,
        options({ timeoutMs: 1500 }),
      ),
    );
    expect(value.map(messageOf)).toEqual([
      "ok: first",
      "template took longer than 1.5 s",
      "template took longer than 1.5 s",
    ]);
    expect(ms).toBeGreaterThanOrEqual(1400);
    expect(ms).toBeLessThan(1500 + WORKER_OVERHEAD_MS);
    expect(stallMs).toBeLessThan(MAX_STALL_MS);
  });

  it("terminates the worker when one long expression ignores liquidjs' own time limit", async () => {
    // One output tag that sorts six million numbers four times: liquidjs checks its time limit
    // between tags only, so this runs for about 6 s unless the worker is terminated.
    const { value, stallMs, ms } = await longestStall(() =>
      renderTemplates(
        [plain("first"), plain("{{ (1..6000000) | sort | sort | sort | sort | size }}"), plain("{{ space }}")],
        scope,
        options({ timeoutMs: 500, memoryMb: 256 }),
      ),
    );
    expect(value.map(messageOf)).toEqual([
      "ok: first",
      "template took longer than 0.5 s",
      "template took longer than 0.5 s",
    ]);
    // Far less than the 6 s the expression would take.
    expect(ms).toBeLessThan(500 + WORKER_OVERHEAD_MS);
    expect(stallMs).toBeLessThan(MAX_STALL_MS);
  });

  it("contains a memory bomb: liquidjs' limit for strings built by filters", async () => {
    const results = await renderTemplates(
      [
        plain(
          '{% assign s = "xxxxxxxxxxxxxxxx" %}{% for i in (1..40) %}{% assign s = s | append: s %}{% endfor %}{{ s | size }}',
        ),
        plain("still here"),
      ],
      scope,
      options(),
    );
    expect(results.map(messageOf)).toEqual([expect.stringMatching(/memory limit/), "ok: still here"]);
  });

  it("contains a memory bomb that fills the heap: the worker dies, the next fields render in a new one", async () => {
    const { value, stallMs } = await longestStall(() =>
      renderTemplates(
        [
          plain("before"),
          plain(`{% for i in (1..4000000) %}${"x".repeat(200)}{{ i }}{% endfor %}`),
          plain("after {{ job.name }}"),
        ],
        scope,
        options({ memoryMb: 32 }),
      ),
    );
    expect(value.map(messageOf)).toEqual([
      "ok: before",
      "template used more than 32 MB of memory",
      "ok: after Daily errors",
    ]);
    expect(stallMs).toBeLessThan(MAX_STALL_MS);
    expect(process.memoryUsage().heapUsed).toBeLessThan(1024 * 1024 * 1024);
  });

  it("caps the rendered text of the whole report", async () => {
    const results = await renderTemplates(
      [plain("{% for i in (1..50) %}0123456789{% endfor %}"), plain("{% for i in (1..60) %}0123456789{% endfor %}")],
      scope,
      options({ outputBytes: 1000 }),
    );
    expect(results[0].ok).toBe(true);
    expect(messageOf(results[1])).toMatch(/rendered text is larger than/);
  });

  it("stops when the run is aborted", async () => {
    const controller = new AbortController();
    const pending = renderTemplates(
      [plain("{% for i in (1..5000000) %}{% assign x = i | plus: 1 %}{% endfor %}")],
      scope,
      options({ signal: controller.signal }),
    );
    setTimeout(() => controller.abort(new Error("run stopped")), 100);
    await expect(pending).rejects.toThrow("run stopped");
  });
});
