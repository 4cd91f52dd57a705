import type { DeliveryReport } from "./delivery.js";

/** The report file an e-mail carries; names never hold a colon (mail clients and Windows refuse it). */
export function attachmentsFor(report: DeliveryReport, attach: "pdf" | "html" | "none" | undefined) {
  const kind = attach ?? "pdf";
  if (kind === "pdf" && report.pdf)
    return [{ filename: `${report.fileStem}.pdf`, content: report.pdf, contentType: "application/pdf" }];
  if (kind === "html")
    return [{ filename: `${report.fileStem}.html`, content: Buffer.from(report.html), contentType: "text/html" }];
  return [];
}

/** "Daily errors" at 2026-11-22 09:30 UTC → "daily-errors-2026-11-22-0930". */
export function fileStem(title: string, at: Date): string {
  const slug =
    title
      .normalize("NFKD")
      .replace(/[^\w\s-]/g, "")
      .trim()
      .toLowerCase()
      .replace(/[\s_]+/g, "-")
      .replace(/-+/g, "-")
      .slice(0, 60) || "report";
  const iso = at.toISOString();
  return `${slug}-${iso.slice(0, 10)}-${iso.slice(11, 13)}${iso.slice(14, 16)}`;
}
