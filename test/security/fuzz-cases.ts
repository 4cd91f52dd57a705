import { MAX_UPLOAD_BYTES } from "../../src/files/uploads.js";
import { JobBodySchema } from "../../src/schemas/job.js";
import { type FuzzBody, mutatedSeed, taintedSeed } from "./fuzz-bodies.js";
import { brokenBody, oversizedBody, uploadBody } from "./fuzz-broken-bodies.js";
import type { FuzzRequest } from "./fuzz-http.js";
import { createRng, hostileString, type Rng } from "./fuzz-random.js";
import { encodeSegment, type FuzzRoute, fillPath, plausiblePath, queryString } from "./fuzz-routes.js";
import { fromSchema } from "./fuzz-schema.js";
import { type FuzzFixtures, seedOf } from "./fuzz-seeds.js";

/** The plan of a fuzz run (which route each case attacks, and how) and the request of each case. */

export type FuzzCase = { index: number; route: FuzzRoute; rng: Rng; size: "normal" | "over" | "over-chunked" };

export type Callers = { admin: string; ro: string };

export type BuiltCase = { request: FuzzRequest; note: string; who: string; expectStatus?: number };

/**
 * `total` cases from `seed`: at least `minPerRoute` for every route, the rest weighted towards
 * routes that read a body, plus one body over the limit for each of them. Shuffled, so that
 * concurrent requests mix routes as real traffic does.
 */
export function planCases(routes: FuzzRoute[], seed: number, total: number, minPerRoute: number): FuzzCase[] {
  const rng = createRng(seed);
  const picks: { route: FuzzRoute; size: FuzzCase["size"] }[] = [];
  for (const route of routes) for (let i = 0; i < minPerRoute; i++) picks.push({ route, size: "normal" });
  const weighted = routes.flatMap((route) => (route.bodyKind === "None" ? [route] : [route, route, route]));
  while (picks.length < total) picks.push({ route: rng.pick(weighted), size: "normal" });
  const withBodies = routes.filter((r) => r.method === "POST" || r.method === "PUT");
  withBodies.forEach((route, i) => {
    picks.push({ route, size: "over" });
    if (i % 4 === 0) picks.push({ route, size: "over-chunked" });
  });
  for (let i = picks.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [picks[i], picks[j]] = [picks[j], picks[i]];
  }
  return picks.map((p, index) => ({ index, ...p, rng: rng.fork() }));
}

const HOSTILE_HEADERS: ((rng: Rng) => Record<string, string>)[] = [
  () => ({ origin: "http://evil.example" }),
  () => ({ origin: "null" }),
  () => ({ "sec-fetch-site": "cross-site" }),
  (rng) => ({ authorization: `Basic ${Buffer.from(`${hostileString(rng).slice(0, 300)}:x`).toString("base64")}` }),
  () => ({ authorization: "Basic %%%not-base64" }),
  (rng) => ({ authorization: `Basic ${Buffer.from(`ad\u0000min${rng.pick(["", "\ud800"])}:pw`).toString("base64")}` }),
  (rng) => ({ authorization: `Bearer ${encodeSegment(hostileString(rng).slice(0, 300))}` }),
  () => ({ "x-forwarded-for": "1.1.1.1, ::ffff:127.0.0.1, not-an-ip, ../../" }),
  () => ({ accept: "text/event-stream" }),
  () => ({ "accept-language": "x".repeat(8000) }),
  () => ({ "if-none-match": "*", range: "bytes=0-0,-1" }),
];

/** The request of one case. The caller's cookie, path, query, headers and body are all drawn from its seed. */
export function buildCase(c: FuzzCase, f: FuzzFixtures, callers: Callers): BuiltCase {
  const { route, rng } = c;
  const headers: Record<string, string> = {};
  // /auth/logout with a real session would end it: only anonymous or forged cookies there. A
  // body over the limit goes with plain headers (a forged cookie may itself be over theirs).
  const over = c.size !== "normal";
  const draw = route.url === "/auth/logout" ? 0.8 + rng.next() * 0.2 : rng.next();
  const roll = over ? Math.min(draw, 0.91) : draw;
  let who = "admin";
  if (roll < 0.65) headers.cookie = callers.admin;
  else if (roll < 0.8) [who, headers.cookie] = ["ro", callers.ro];
  else if (roll < 0.92) who = "anonymous";
  else {
    who = "forged cookie";
    headers.cookie = `pagewright_session=${encodeSegment(hostileString(rng).slice(0, 3000))}`;
  }
  // A body over the limit goes to a plausible path: the answer must be 413.
  if (!over && rng.chance(route.url === "/guest/api/health" ? 0.5 : 0.06)) {
    Object.assign(headers, rng.pick(HOSTILE_HEADERS)(rng));
  }
  let path = over ? plausiblePath(route, f) : fillPath(route, f, rng);
  if (!over && (route.method === "GET" || rng.chance(0.1))) path += queryString(route, rng);
  const timeoutMs = route.stream ? 8000 : route.url.endsWith("/test") ? 45_000 : 20_000;

  const body = bodyOf(c, f);
  if (body?.contentType) headers["content-type"] = body.contentType;
  return {
    request: { method: route.method, path, headers, body: body?.payload, chunked: body?.chunked, timeoutMs },
    note: body?.note ?? "no body",
    who,
    expectStatus: body?.expectStatus,
  };
}

/** Routes with a body limit of their own above 5 MB, too large to exceed here (the import: 256 MB). */
const LARGER_LIMITS = new Set(["POST /ui-api/admin/import"]);

function bodyOf(c: FuzzCase, f: FuzzFixtures): FuzzBody | undefined {
  const { route, rng } = c;
  if (c.size !== "normal") {
    if (route.bodyKind === "Upload") {
      const payload = Buffer.alloc(MAX_UPLOAD_BYTES + 1 + rng.int(1024), 0x89);
      return {
        payload,
        contentType: "image/png",
        note: "upload over 20 MB",
        expectStatus: 413,
        chunked: c.size === "over-chunked",
      };
    }
    const body = oversizedBody(rng, c.size === "over-chunked");
    return LARGER_LIMITS.has(`${route.method} ${route.url}`) ? { ...body, expectStatus: undefined } : body;
  }
  if (route.method === "GET") return undefined;
  if (route.method === "DELETE") return rng.chance(0.1) ? brokenBody("{}", rng) : undefined;
  if (route.bodyKind === "Upload") return uploadBody(rng);
  if (route.bodyKind === "None" && rng.chance(0.5)) return undefined;

  const seed = seedOf(route.bodyKind, f);
  const seedText = JSON.stringify(seed);
  const roll = rng.next();
  let body: FuzzBody;
  if (roll < 0.2) {
    const { text, note } = taintedSeed(seed, rng);
    body = { payload: text, contentType: "application/json", note };
  } else if (roll < 0.55) {
    const { text, note } = mutatedSeed(seed, rng);
    body = { payload: text, contentType: "application/json", note };
  } else if (roll < 0.75) {
    const value = fromSchema(route.body, rng, [f.jobId, f.interfaceId, f.providerId, f.blueprintId]);
    body = { payload: JSON.stringify(value) ?? "null", contentType: "application/json", note: "from the JSON Schema" };
  } else if (roll < 0.96) {
    body = brokenBody(seedText, rng);
  } else {
    body = { payload: seedText, contentType: "application/json", note: "the valid seed" };
  }
  return route.stream ? withoutValidJob(body) : body;
}

/**
 * run, preview and test with a valid body would start a capture: such a body is spoiled (its
 * capture removed) so that these routes see only refusals, as intended.
 */
function withoutValidJob(body: FuzzBody): FuzzBody {
  if (typeof body.payload !== "string" || !body.contentType?.includes("json")) return body;
  let value: unknown;
  try {
    value = JSON.parse(body.payload);
  } catch {
    return body;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return body;
  const { deliver: _deliver, ...job } = value as Record<string, unknown>;
  let valid: boolean;
  try {
    valid = JobBodySchema.safeParse(job).success;
  } catch {
    // Deep enough to overflow zod here: the server must refuse it before zod sees it.
    valid = false;
  }
  if (!valid) return body;
  return { ...body, payload: JSON.stringify({ ...value, capture: null }), note: `${body.note} (capture removed)` };
}
