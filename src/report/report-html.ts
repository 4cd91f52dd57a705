import type { Report } from "../schemas/report.js";
import { escapeHtml } from "./markdown-to-html.js";

/**
 * The report document: self-contained (styles inline, images as data: URLs), sized by CSS
 * @page for the paper, every report page starting a new printed page. Its CSP allows no script
 * and no request to any host, so the file is as inert in a reader's browser as in the PDF.
 */
export type Paper = Report["paper"];
export type Theme = Report["theme"];

export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; img-src data:; style-src 'unsafe-inline'; font-src data:; base-uri 'none'; form-action 'none'";

/** Paper sizes in millimetres, portrait. */
const PAPER_MM: Record<Paper["size"], { width: number; height: number }> = {
  A3: { width: 297, height: 420 },
  A4: { width: 210, height: 297 },
  A5: { width: 148, height: 210 },
  Letter: { width: 215.9, height: 279.4 },
  Legal: { width: 215.9, height: 355.6 },
  Tabloid: { width: 279.4, height: 431.8 },
};

const MARGIN_MM = { vertical: 14, horizontal: 12 };

export function pageSizeMm(paper: Paper): { width: number; height: number } {
  const { width, height } = PAPER_MM[paper.size];
  return paper.orientation === "landscape" ? { width: height, height: width } : { width, height };
}

/** The tallest an image may be and still fit one printed page with its caption. */
export function maxImageHeightMm(paper: Paper): number {
  return Math.floor(pageSizeMm(paper).height - 2 * MARGIN_MM.vertical - 12);
}

export type ReportDocument = {
  title: string;
  /** Shown above the first page when the title template failed. */
  titleError?: string;
  paper: Paper;
  theme: Theme;
  /** Page → row → cell → the cell's HTML. */
  pages: string[][][];
};

export function reportDocument(doc: ReportDocument): string {
  const pages = doc.pages.map((rows, index) => {
    const heading =
      index === 0
        ? `<header class="report-title"><h1>${escapeHtml(doc.title)}</h1>${doc.titleError ? errorBox(doc.titleError) : ""}</header>`
        : "";
    const body = rows
      .map((cells) => `<div class="row cells-${cells.length}">${cells.map(cellHtml).join("")}</div>`)
      .join("\n");
    return `<section class="report-page">${heading}\n${body}\n</section>`;
  });
  // The CSP comes first: nothing before it in the document would be bound by it.
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(doc.title)}</title>
<style>${styles(doc.paper, doc.theme)}</style>
</head>
<body>
${pages.join("\n")}
</body>
</html>
`;
}

const cellHtml = (html: string) => `<div class="cell">${html}</div>`;

export function errorBox(message: string): string {
  return `<div class="block-error" role="alert"><strong>This block could not be rendered</strong><br>${escapeHtml(message)}</div>`;
}

/** A theme value as CSS: the schema already allows only colours and font names. */
function cssValue(value: string, fallback: string): string {
  return /^[\w\s,'"#().%/-]+$/.test(value) ? value : fallback;
}

function styles(paper: Paper, theme: Theme): string {
  const size = pageSizeMm(paper);
  const font = cssValue(theme.font, "sans-serif");
  const text = cssValue(theme.textColor, "#1f2937");
  const background = cssValue(theme.background, "#ffffff");
  const accent = cssValue(theme.accent, "#2563eb");
  return `
@page { size: ${size.width}mm ${size.height}mm; margin: ${MARGIN_MM.vertical}mm ${MARGIN_MM.horizontal}mm; }
* { box-sizing: border-box; }
html, body { margin: 0; padding: 0; background: ${background}; color: ${text}; font-family: ${font}; }
body { font-size: 10.5pt; line-height: 1.45; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
@media screen { body { max-width: ${size.width}mm; margin: 0 auto; padding: ${MARGIN_MM.vertical}mm ${MARGIN_MM.horizontal}mm; } }
.report-page { min-height: 1px; }
.report-page + .report-page { break-before: page; }
@media screen { .report-page + .report-page { margin-top: 12mm; padding-top: 12mm; border-top: 1px dashed #d1d5db; } }
.report-title { margin: 0 0 6mm; border-bottom: 0.6mm solid ${accent}; }
.report-title h1 { margin: 0 0 2mm; font-size: 20pt; line-height: 1.2; color: ${accent}; }
.row { display: flex; gap: 6mm; margin: 0 0 5mm; break-inside: avoid; }
.cell { flex: 1 1 0; min-width: 0; }
.block + .block { margin-top: 3mm; }
.text > :first-child { margin-top: 0; }
.text > :last-child { margin-bottom: 0; }
.text h1, .text h2, .text h3 { color: ${accent}; line-height: 1.25; margin: 0.8em 0 0.4em; }
.text a { color: ${accent}; }
.text img { max-width: 100%; }
.text table { border-collapse: collapse; margin: 0.5em 0; }
.text th, .text td { border: 0.25mm solid #d1d5db; padding: 1mm 2mm; text-align: left; }
.text pre { white-space: pre-wrap; word-break: break-word; background: rgba(127, 127, 127, 0.1); padding: 2mm; border-radius: 1mm; }
.text code { font-size: 0.92em; }
.text blockquote { margin: 0.5em 0; padding-left: 3mm; border-left: 0.8mm solid ${accent}; }
figure { margin: 0; }
figure + figure { margin-top: 4mm; }
figure img { display: block; max-width: 100%; max-height: ${maxImageHeightMm(paper)}mm; width: auto; height: auto; object-fit: contain; }
figure.snapshot img { border: 0.25mm solid rgba(127, 127, 127, 0.35); }
figcaption { margin-top: 1.5mm; font-size: 8.5pt; opacity: 0.75; }
.variable .value { font-size: 28pt; font-weight: 700; line-height: 1.1; color: ${accent}; overflow-wrap: anywhere; }
.variable .label { margin-top: 1mm; font-size: 8.5pt; text-transform: uppercase; letter-spacing: 0.04em; opacity: 0.75; }
hr.divider { border: 0; border-top: 0.4mm solid ${accent}; margin: 1mm 0; }
.muted { opacity: 0.6; font-style: italic; }
.block-error { border: 0.5mm solid #b91c1c; background: #fef2f2; color: #7f1d1d; padding: 2mm 3mm; border-radius: 1mm; font-size: 9pt; font-family: sans-serif; white-space: pre-wrap; overflow-wrap: anywhere; }
.text .block-error { display: inline-block; }
`;
}
