import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { bareHostname, classifyAddress, isAllowedHost } from "./address-policy.js";

/**
 * Fetches the images of `image` blocks (and of Markdown images in text blocks) on the server, so
 * that the report embeds them as data: URLs and the browser that prints it loads nothing.
 */
export type ImageFetchOptions = {
  allowedHosts: readonly string[];
  signal?: AbortSignal;
  /** For one image, redirects included. */
  timeoutMs?: number;
  maxBytes?: number;
};

export const IMAGE_TIMEOUT_MS = 10_000;
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
const MAX_REDIRECTS = 3;
/** Images fetched at once for one report. */
const CONCURRENCY = 4;

export class ImageRefusedError extends Error {}

export type ImageResult = { ok: true; dataUrl: string } | { ok: false; message: string };

/** Fetches every distinct URL once, a few at a time; answers a result per URL. */
export async function fetchImages(urls: string[], options: ImageFetchOptions): Promise<Map<string, ImageResult>> {
  const distinct = [...new Set(urls)];
  const results = new Map<string, ImageResult>();
  let next = 0;
  const fetchNext = async () => {
    while (next < distinct.length) {
      const url = distinct[next++];
      try {
        results.set(url, { ok: true, dataUrl: await fetchImage(url, options) });
      } catch (error) {
        options.signal?.throwIfAborted();
        results.set(url, { ok: false, message: `image ${shortUrl(url)}: ${(error as Error).message}` });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, distinct.length) }, fetchNext));
  return results;
}

/** The image as a data: URL; throws with a message for the report when refused or failed. */
export async function fetchImage(url: string, options: ImageFetchOptions): Promise<string> {
  if (/^data:image\/[\w.+-]+[;,]/i.test(url)) return url;
  const timeoutMs = options.timeoutMs ?? IMAGE_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let current = url;
  try {
    for (let redirects = 0; ; redirects++) {
      const answer = await request(checkUrl(current, options.allowedHosts), options, signal);
      if (!("location" in answer)) return answer.dataUrl;
      if (redirects === MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects`);
      // Every hop is checked again: a public host may redirect to a private one.
      current = new URL(answer.location, current).href;
    }
  } catch (error) {
    if (timeout.aborted && !options.signal?.aborted) throw new Error(`no answer within ${timeoutMs / 1000} s`);
    throw error;
  }
}

type Target = { url: URL; allowed: boolean };

function checkUrl(value: string, allowedHosts: readonly string[]): Target {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ImageRefusedError("not a valid URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new ImageRefusedError(`${url.protocol} URLs are refused; an image must be an http:// or https:// URL`);
  if (url.username || url.password) throw new ImageRefusedError("a URL with credentials is refused");
  const allowed = isAllowedHost(url, allowedHosts);
  const hostname = bareHostname(url);
  // An address literal is never looked up, so the lookup guard below would not see it.
  if (!allowed && isIP(hostname)) refuseAddress(hostname, hostname);
  return { url, allowed };
}

function refuseAddress(host: string, address: string) {
  const reason = classifyAddress(address);
  if (!reason) return;
  const what = host === address ? address : `${host} resolves to ${address}, which`;
  throw new ImageRefusedError(
    `refused: ${what} is a ${reason} address (add the host to REPORT_ALLOWED_HOSTS to allow it)`,
  );
}

/**
 * Resolves a host name and refuses it when any of its addresses is not public. It runs as the
 * connection's own lookup, so the address checked is the address connected to: a name that
 * answers a public address to a first lookup and 127.0.0.1 to a second cannot slip through.
 */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { all: true, family: options.family, hints: options.hints }, (error, addresses) => {
    if (error) return callback(error, "", 0);
    try {
      for (const { address } of addresses) refuseAddress(hostname, address);
    } catch (refused) {
      return callback(refused as NodeJS.ErrnoException, "", 0);
    }
    if (options.all) return callback(null, addresses);
    return callback(null, addresses[0].address, addresses[0].family);
  });
};

function request(
  target: Target,
  options: ImageFetchOptions,
  signal: AbortSignal,
): Promise<{ dataUrl: string } | { location: string }> {
  const maxBytes = options.maxBytes ?? MAX_IMAGE_BYTES;
  const client = target.url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.get(
      target.url,
      {
        signal,
        lookup: target.allowed ? undefined : guardedLookup,
        agent: false,
        headers: { accept: "image/*", "user-agent": "Pagewright report renderer" },
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const type = String(res.headers["content-type"] ?? "")
          .split(";")[0]
          .trim()
          .toLowerCase();
        const fail = (message: string) => {
          res.destroy();
          reject(new Error(message));
        };
        if (status >= 300 && status < 400 && res.headers.location) {
          res.resume();
          return resolve({ location: res.headers.location });
        }
        if (status !== 200) return fail(`the server answered ${status}`);
        if (!/^image\/[\w.+-]+$/.test(type)) return fail(`not an image (content type "${type || "none"}")`);
        if (Number(res.headers["content-length"] ?? 0) > maxBytes) return fail(`larger than ${mb(maxBytes)}`);
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) return fail(`larger than ${mb(maxBytes)}`);
          chunks.push(chunk);
        });
        res.on("end", () => resolve({ dataUrl: `data:${type};base64,${Buffer.concat(chunks).toString("base64")}` }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
  });
}

const mb = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;

/** A URL as shown in an error box: long query strings cut. */
function shortUrl(url: string): string {
  return url.length > 120 ? `${url.slice(0, 117)}…` : url;
}
