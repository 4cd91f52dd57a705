import { randomUUID } from "node:crypto";
import type { BrowserPool } from "../capture/browser-pool.js";
import { sniffImageType } from "../files/uploads.js";
import { type Report, ReportSchema } from "../schemas/report.js";
import { fetchImages, type ImageResult } from "./fetch-image.js";
import { printPdf } from "./print-pdf.js";
import { renderTemplates, type TemplateField } from "./render-templates.js";
import {
  type BlockContext,
  blockHtml,
  type FieldName,
  imageUrlsOf,
  type RenderedBlock,
  uploadImageKey,
} from "./report-blocks.js";
import { reportDocument } from "./report-html.js";

/**
 * Compose: a run's captured variables and snapshots + the job's report → one HTML document and
 * its PDF. Liquid runs in a worker with time, memory and output limits (render-templates.ts);
 * images are fetched here under the address rules (fetch-image.ts) and embedded; the document
 * carries no script and loads nothing (report-html.ts); Chromium prints it with JavaScript off
 * and the network closed (print-pdf.ts).
 *
 * A block that fails shows its error in place and is listed in `errors`: the report is still
 * produced, and the run pipeline keeps it on the run but delivers it to nobody.
 */
export type ReportInput = {
  /** The job's report; undefined → the title "{{ job.name }}" and one `snapshots` block. */
  report: Report | undefined;
  /** Captured variables, by name. */
  variables: Record<string, unknown>;
  /** The run's snapshots, in order; embedded as data: URLs, never fetched. */
  snapshots: { name: string; png: Buffer }[];
  scope: {
    job: { id: string; name: string; description: string };
    run: { id: string | null; trigger: string; startedAt: string | null; reportUrl: string | null };
    space: string;
    now: string;
  };
  /** REPORT_ALLOWED_HOSTS: hosts that images may come from even when their addresses are private. */
  allowedHosts: string[];
  /** The bytes of an image uploaded to the space (an `image` block's `upload`), if there is one. */
  upload?: (id: string) => Promise<Buffer | undefined>;
  /** For the PDF. */
  pool: BrowserPool;
  signal?: AbortSignal;
  limits?: { templateMs?: number; outputBytes?: number; memoryMb?: number };
};

/**
 * Where a block failed, 0-based. A failed title is reported with every index -1;
 * `describeBlockError` words both for a run's error.
 */
export type BlockError = { page: number; row: number; cell: number; block: number; message: string };

export type ComposedReport = { title: string; html: string; pdf: Buffer; errors: BlockError[] };

/** The HTML of a report, and the paper to print it on later (composeReport prints it at once). */
export type ComposedHtml = Omit<ComposedReport, "pdf"> & { paper: Report["paper"] };

export async function composeReport(input: ReportInput): Promise<ComposedReport> {
  const composed = await composeReportHtml(input);
  const pdf = await printPdf(composed.html, composed.paper, input.pool, input.signal);
  return { title: composed.title, html: composed.html, pdf, errors: composed.errors };
}

export const DEFAULT_REPORT_LIMITS = {
  /** All template fields of one report together. */
  templateMs: 10_000,
  /** Liquid output of one report. */
  outputBytes: 5 * 1024 * 1024,
  /** Heap of the template worker. */
  memoryMb: 64,
};

type BlockAt = Omit<BlockError, "message">;
const TITLE_AT: BlockAt = { page: -1, row: -1, cell: -1, block: -1 };

/** Liquid, blocks and images → the HTML document, without printing it. */
export async function composeReportHtml(input: Omit<ReportInput, "pool">): Promise<ComposedHtml> {
  const report = input.report ?? defaultReport();
  const limits = { ...DEFAULT_REPORT_LIMITS, ...input.limits };
  const imageToken = randomUUID();

  const fields = templateFieldsOf(report);
  const rendered = await renderTemplates(
    fields.map((f) => f.template),
    templateScope(input),
    {
      timeoutMs: limits.templateMs,
      outputBytes: limits.outputBytes,
      memoryMb: limits.memoryMb,
      imageToken,
      signal: input.signal,
    },
  );

  const titleResult = rendered[0];
  const title = (titleResult.ok ? titleResult.text.trim() : "") || input.scope.job.name || "Report";
  const errors: BlockError[] = titleResult.ok ? [] : [{ ...TITLE_AT, message: `title: ${titleResult.message}` }];

  // Each block with its rendered fields, in the report's shape: page → row → cell → block.
  const blocks: RenderedBlock[][][][] = report.pages.map((page) =>
    page.rows.map((row) => row.cells.map((cell) => cell.blocks.map((block) => ({ block, fields: {} })))),
  );
  fields.forEach((field, index) => {
    if (field.name === "title") return;
    const { page, row, cell, block } = field.at;
    blocks[page][row][cell][block].fields[field.name] = rendered[index];
  });

  const images = await fetchImages(blocks.flat(3).flatMap(imageUrlsOf), {
    allowedHosts: input.allowedHosts,
    signal: input.signal,
  });
  for (const id of new Set(
    blocks.flat(3).flatMap(({ block }) => (block.type === "image" && block.upload ? [block.upload] : [])),
  )) {
    images.set(uploadImageKey(id), await loadUpload(id, input.upload));
  }
  const context: BlockContext = {
    snapshots: input.snapshots.map((s) => ({
      name: s.name,
      dataUrl: `data:image/png;base64,${s.png.toString("base64")}`,
    })),
    variables: input.variables,
    images,
    imageToken,
  };

  const pages = blocks.map((rows, page) =>
    rows.map((cells, row) =>
      cells.map((cellBlocks, cell) =>
        cellBlocks
          .map((item, block) => {
            const out = blockHtml(item, context);
            for (const message of out.errors) errors.push({ page, row, cell, block, message });
            return out.html;
          })
          .join("\n"),
      ),
    ),
  );

  const html = reportDocument({
    title,
    titleError: titleResult.ok ? undefined : titleResult.message,
    paper: report.paper,
    theme: report.theme,
    pages,
  });
  return { title, html, errors, paper: report.paper };
}

/** "page 2, row 1, cell 3, block 1: …" (1-based, as a person counts), or "report title: …". */
export function describeBlockError(error: BlockError): string {
  if (error.page < 0) return `report ${error.message}`;
  return `page ${error.page + 1}, row ${error.row + 1}, cell ${error.cell + 1}, block ${error.block + 1}: ${error.message}`;
}

/** The report of a job that has none: its name and every snapshot of the run. */
export function defaultReport(): Report {
  return ReportSchema.parse({ pages: [{ rows: [{ cells: [{ blocks: [{ type: "snapshots" }] }] }] }] });
}

/** Template variables: each captured variable by name, then job, run, space and now. */
function templateScope(input: Pick<ReportInput, "scope" | "variables">): Record<string, unknown> {
  const { job, run, space, now } = input.scope;
  // The fixed names come last: a variable cannot be named job, run, space or now anyway.
  return { ...input.variables, job, run, space, now };
}

type Field = { at: BlockAt; name: FieldName | "title"; template: TemplateField };

/** An uploaded image as a data: URL, or why it cannot be shown. */
async function loadUpload(id: string, upload: ReportInput["upload"]): Promise<ImageResult> {
  const data = await upload?.(id);
  const type = data && sniffImageType(data);
  if (!data || !type) return { ok: false, message: "the uploaded image no longer exists" };
  return { ok: true, dataUrl: `data:${type};base64,${data.toString("base64")}` };
}

/** Every template of the report, the title first, then the blocks' in document order. */
function templateFieldsOf(report: Report): Field[] {
  const fields: Field[] = [{ at: TITLE_AT, name: "title", template: { source: report.title, markdown: false } }];
  report.pages.forEach((page, p) => {
    page.rows.forEach((row, r) => {
      row.cells.forEach((cell, c) => {
        cell.blocks.forEach((block, b) => {
          const at = { page: p, row: r, cell: c, block: b };
          const add = (name: FieldName, source: string, markdown = false) =>
            fields.push({ at, name, template: { source, markdown } });
          if (block.type === "text") add("content", block.content, true);
          if (block.type === "snapshot" && block.caption !== undefined) add("caption", block.caption);
          if (block.type === "variable" && block.label !== undefined) add("label", block.label);
          if (block.type === "image" && block.url !== undefined) add("url", block.url);
        });
      });
    });
  });
  return fields;
}
