import { Marked } from "marked";

/**
 * Markdown of a text block (after Liquid) → HTML. Raw HTML stays, so authors can lay out a
 * block by hand, but elements that run code, embed other documents or change where the
 * document points (script, iframe, object, meta, base, link, form, …) and event-handler
 * attributes are removed. This is the outer layer only: the report also carries a CSP without
 * any script source, and its PDF is printed with JavaScript off and the network closed.
 */
export type MarkdownHtml = {
  html: string;
  /** Sources of Markdown images, in order; the HTML holds `imagePlaceholder(token, i)` for each. */
  images: string[];
};

/**
 * A Markdown image's `src` until the renderer has fetched it under the address rules: the
 * token is random per report, so text in a block cannot forge a placeholder of another block.
 */
export const imagePlaceholder = (token: string, index: number) => `pagewright-image:${token}:${index}`;

export function markdownToHtml(markdown: string, imageToken: string): MarkdownHtml {
  const images: string[] = [];
  const marked = new Marked({
    gfm: true,
    async: false,
    renderer: {
      image({ href, title, text }) {
        const index = images.push(href) - 1;
        const titleAttribute = title ? ` title="${escapeHtml(title)}"` : "";
        return `<img src="${imagePlaceholder(imageToken, index)}" alt="${escapeHtml(text)}"${titleAttribute}>`;
      },
    },
  });
  const html = neutralizeHtml(marked.parse(markdown, { async: false }));
  return { html: placeRawImages(html, imageToken, images), images };
}

const IMG_TAG = /<img\b[^>]*>/gi;
const SRC_ATTRIBUTE = /(\s)src\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/i;
const SRCSET_ATTRIBUTE = /\ssrcset\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+)/gi;

/**
 * An `<img>` written as raw HTML gets the same treatment as a Markdown image: its source is
 * fetched by the renderer under the address rules, never by the browser. `srcset` goes (one
 * fetched source is enough for a printed page).
 */
function placeRawImages(html: string, imageToken: string, images: string[]): string {
  const ours = `${imagePlaceholder(imageToken, 0).slice(0, -1)}`;
  return html.replace(IMG_TAG, (tag) => {
    const withoutSrcset = tag.replace(SRCSET_ATTRIBUTE, "");
    const src = withoutSrcset.match(SRC_ATTRIBUTE);
    if (!src) return withoutSrcset;
    const url = decodeEntities((src[2] ?? src[3] ?? src[4] ?? "").trim());
    if (url.startsWith(ours) || /^data:image\//i.test(url)) return withoutSrcset;
    const index = images.push(url) - 1;
    return withoutSrcset.replace(
      SRC_ATTRIBUTE,
      (_all, space: string) => `${space}src="${imagePlaceholder(imageToken, index)}"`,
    );
  });
}

const decodeEntities = (text: string) =>
  text.replace(/&(amp|quot|#39|lt|gt);/g, (_all, name: string) => ENTITIES[name] ?? _all);
const ENTITIES: Record<string, string> = { amp: "&", quot: '"', "#39": "'", lt: "<", gt: ">" };

const ACTIVE_ELEMENTS = "script|iframe|frame|frameset|object|embed|applet|portal|meta|base|link|form";
/** A script element with its content (to the end of the text when it is never closed). */
const SCRIPT_ELEMENT = /<script\b[\s\S]*?(?:<\/script\s*>|$)/gi;
/** An opening or closing tag of an active element; its content (fallback text) stays. */
const ACTIVE_TAG = new RegExp(`</?(?:${ACTIVE_ELEMENTS})\\b[^>]*>?`, "gi");
/** Whatever the removals above left or formed (`<scr<script>ipt>`): shown as text. */
const ACTIVE_TAG_START = new RegExp(`<(/?)(${ACTIVE_ELEMENTS})\\b`, "gi");
const TAG = /<[a-z][^>]*>/gi;
const EVENT_ATTRIBUTE = /([\s/"'])on[a-z]+\s*=/gi;

export function neutralizeHtml(html: string): string {
  return html
    .replace(SCRIPT_ELEMENT, "")
    .replace(ACTIVE_TAG, "")
    .replace(ACTIVE_TAG_START, "&lt;$1$2")
    .replace(TAG, (tag) => tag.replace(EVENT_ATTRIBUTE, "$1data-removed-handler="));
}

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}
