import type { z } from "zod";
import type { ReportBlockSchema } from "../schemas/report.js";
import type { ImageResult } from "./fetch-image.js";
import { escapeHtml, imagePlaceholder } from "./markdown-to-html.js";
import type { FieldResult } from "./render-templates.js";
import { errorBox } from "./report-html.js";

/** One block of the report → its HTML, from its rendered template fields and the run's data. */
export type ReportBlock = z.infer<typeof ReportBlockSchema>;

/** The template fields of a block: `content` of text, `caption`, `label`, the image `url`. */
export type FieldName = "content" | "caption" | "label" | "url";

export type RenderedBlock = { block: ReportBlock; fields: Partial<Record<FieldName, FieldResult>> };

export type BlockContext = {
  snapshots: { name: string; dataUrl: string }[];
  variables: Record<string, unknown>;
  images: Map<string, ImageResult>;
  imageToken: string;
};

/** The block's HTML, and what went wrong in it (then the HTML shows it in place). */
export type BlockHtml = { html: string; errors: string[] };

export function blockHtml({ block, fields }: RenderedBlock, context: BlockContext): BlockHtml {
  const failed = Object.entries(fields).flatMap(([name, result]) =>
    result && !result.ok ? [name === "content" ? result.message : `${name}: ${result.message}`] : [],
  );
  if (failed.length) return failedBlock(failed);
  const text = (name: FieldName) => {
    const result = fields[name];
    return result?.ok ? result.text : undefined;
  };

  switch (block.type) {
    case "text":
      return textBlock(fields.content, context);
    case "snapshot": {
      const snapshot = context.snapshots.find((s) => s.name === block.ref);
      if (!snapshot) return failedBlock([`no snapshot named "${block.ref}" in this run`]);
      return { html: wrapBlock("snapshot", figure(snapshot.dataUrl, text("caption")?.trim(), "snapshot")), errors: [] };
    }
    case "snapshots": {
      const html = context.snapshots.length
        ? context.snapshots.map((s) => figure(s.dataUrl, s.name, "snapshot")).join("")
        : `<p class="muted">No snapshots in this run.</p>`;
      return { html: wrapBlock("snapshots", html), errors: [] };
    }
    case "variable": {
      if (!Object.hasOwn(context.variables, block.name))
        return failedBlock([`no variable named "${block.name}" in this run`]);
      const label = text("label")?.trim() || block.name;
      const value = formatValue(context.variables[block.name]);
      return {
        html: wrapBlock(
          "variable",
          `<div class="value">${escapeHtml(value)}</div><div class="label">${escapeHtml(label)}</div>`,
        ),
        errors: [],
      };
    }
    case "image": {
      const image = context.images.get(block.upload ? uploadImageKey(block.upload) : (imageUrlOf(fields) ?? ""));
      if (!image?.ok) return failedBlock([image?.message ?? "the image was not fetched"]);
      return { html: wrapBlock("image", figure(image.dataUrl, undefined, "image")), errors: [] };
    }
    case "divider":
      return { html: `<hr class="block divider">`, errors: [] };
    case "spacer":
      return { html: `<div class="block spacer" style="height: ${Number(block.heightMm)}mm"></div>`, errors: [] };
  }
}

/** Where an uploaded image sits among the fetched ones (no URL can look like this). */
export const uploadImageKey = (id: string) => `upload:${id}`;

/** What the block needs fetched: an `image` block's URL, a text block's images. */
export function imageUrlsOf({ block, fields }: RenderedBlock): string[] {
  if (block.type === "image") {
    const url = imageUrlOf(fields);
    return url === undefined ? [] : [url];
  }
  return block.type === "text" && fields.content?.ok ? fields.content.images : [];
}

/** The URL an `image` block asks for, once its Liquid has rendered. */
function imageUrlOf(fields: RenderedBlock["fields"]): string | undefined {
  return fields.url?.ok ? fields.url.text.trim() : undefined;
}

function textBlock(content: FieldResult | undefined, context: BlockContext): BlockHtml {
  if (!content?.ok) return failedBlock([content?.message ?? "not rendered"]);
  const errors: string[] = [];
  let html = content.text;
  content.images.forEach((url, index) => {
    const image = context.images.get(url);
    // markdownToHtml wrote the placeholder as the whole src attribute of one <img>.
    const placeholder = `src="${imagePlaceholder(context.imageToken, index)}"`;
    if (image?.ok) {
      html = html.replace(placeholder, () => `src="${image.dataUrl}"`);
    } else {
      const message = image?.message ?? `image ${url}: not fetched`;
      errors.push(message);
      const tag = new RegExp(`<img\\b[^>]*\\s${escapeRegExp(placeholder)}[^>]*>`);
      html = html.replace(tag, () => inlineError(message));
    }
  });
  return { html: wrapBlock("text", html), errors };
}

function failedBlock(messages: string[]): BlockHtml {
  return { html: `<div class="block failed">${errorBox(messages.join("\n"))}</div>`, errors: messages };
}

const wrapBlock = (type: string, inner: string) => `<div class="block ${type}">${inner}</div>`;

const inlineError = (message: string) =>
  `<span class="block-error" role="alert"><strong>This image could not be shown</strong><br>${escapeHtml(message)}</span>`;

function figure(src: string, caption: string | undefined, kind: string): string {
  const alt = escapeHtml(caption ?? kind);
  const figcaption = caption ? `<figcaption>${escapeHtml(caption)}</figcaption>` : "";
  return `<figure class="${kind}"><img src="${src}" alt="${alt}">${figcaption}</figure>`;
}

const NUMBER_FORMAT = new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 });

function formatValue(value: unknown): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "number") return Number.isFinite(value) ? NUMBER_FORMAT.format(value) : String(value);
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
