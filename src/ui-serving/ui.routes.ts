import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../app-context.js";

/**
 * The web app: the Vite build in `dist/ui` (`npm run build:ui`), served under `/`.
 *
 * - A file of the build answers as itself; hashed files under `/assets/` are cached for a year.
 * - Any other GET that a browser makes for a page (Accept: text/html) answers `index.html`, so a
 *   reload or a shared link of `/s/default/runs/…` opens the app at that page (SPA fallback).
 * - Paths of the server's own areas (`/api`, `/ui-api`, `/auth`, `/files`, `/guest`, `/llms`,
 *   `/metrics`) are never the app's: an unknown one stays a 404 JSON answer.
 * - Without a build (tests that do not build it, a clone before `npm run build`), `/` answers a
 *   short page saying how to build the app; nothing fails.
 *
 * The folder is found from this file: `src/ui-serving/` (tsx, vitest) and `dist/ui-serving/`
 * (the build) both sit two levels below the project root.
 */
export const UI_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "dist", "ui");

const SERVER_AREAS = ["/api", "/ui-api", "/auth", "/files", "/guest", "/llms", "/metrics"];

/**
 * The app loads scripts and styles from this origin only; Mantine sets inline styles, reports
 * and snapshots are shown in frames and images of this origin.
 */
const APP_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "frame-src 'self'",
  "object-src 'self'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'self'",
].join("; ");

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pagewright</title>
<link rel="alternate" type="text/markdown" href="/llms.txt">
</head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem; line-height: 1.5">
<h1>Pagewright</h1>
<p>The web app is not built. Build it with <code>npm run build</code> (or only the app: <code>npm run build:ui</code>)
and reload this page; <code>npm start</code> builds it by itself.</p>
<p>The agent API and its guide work without it: <a href="/llms.txt">/llms.txt</a>.</p>
</body>
</html>
`;

const isServerArea = (pathname: string) =>
  pathname === "/llms.txt" || SERVER_AREAS.some((area) => pathname === area || pathname.startsWith(`${area}/`));

const acceptsHtml = (request: FastifyRequest) => (request.headers.accept ?? "").includes("text/html");

/** The build's file for a URL path, or undefined (never a path outside the build folder). */
function builtFile(pathname: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  if (decoded.includes("\0")) return undefined;
  const file = path.resolve(UI_DIR, `.${path.posix.normalize(decoded)}`);
  if (!file.startsWith(UI_DIR + path.sep)) return undefined;
  try {
    return fs.statSync(file).isFile() ? path.relative(UI_DIR, file) : undefined;
  } catch {
    return undefined;
  }
}

export function uiRoutes(app: FastifyInstance, _ctx: AppContext) {
  // Only reply.sendFile (ranges, ETag, HEAD, containment checks); the routes are ours.
  app.register(fastifyStatic, { root: UI_DIR, serve: false });

  const sendIndex = (reply: FastifyReply) => {
    if (!fs.existsSync(path.join(UI_DIR, "index.html"))) {
      return reply.type("text/html; charset=utf-8").header("cache-control", "no-store").send(NOT_BUILT_PAGE);
    }
    // Never cached: a new build must reach the browser at the next load.
    return reply
      .header("cache-control", "no-cache")
      .header("content-security-policy", APP_CSP)
      .sendFile("index.html", { cacheControl: false });
  };

  app.get("/", async (_request, reply) => sendIndex(reply));

  app.get("/*", async (request, reply) => {
    const pathname = request.url.split("?")[0];
    if (isServerArea(pathname)) return reply.code(404).send({ error: "not_found" });
    const file = builtFile(pathname);
    if (file && file !== "index.html") {
      const hashed = file.startsWith(`assets${path.sep}`);
      return reply.sendFile(file, {
        cacheControl: true,
        maxAge: hashed ? 365 * 24 * 3600 * 1000 : 0,
        immutable: hashed,
      });
    }
    if (acceptsHtml(request)) return sendIndex(reply);
    return reply.code(404).send({ error: "not_found" });
  });
}
