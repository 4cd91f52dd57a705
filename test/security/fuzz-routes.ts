import type { FastifyInstance } from "fastify";
import { hostileString, type Rng, randomUuid } from "./fuzz-random.js";
import type { SchemaRef } from "./fuzz-schema.js";
import { type BodyKind, type FuzzFixtures, UI_BODY_KINDS, zodBodySchema } from "./fuzz-seeds.js";

/**
 * The routes the fuzz attacks, as Fastify knows them (so none is missed), with what the OpenAPI
 * description says of each, and the hostile path segments and query strings it sends them.
 */

export type FuzzRoute = {
  method: string;
  /** Fastify's pattern: /api/spaces/:space/jobs/:jobId */
  url: string;
  params: string[];
  inOpenApi: boolean;
  bodyKind: BodyKind;
  body: SchemaRef;
  /** run, preview, test: answer an event stream once the body is valid. */
  stream: boolean;
};

/** Every method and URL of `app`, read from printRoutes' tree (Fastify has no route list). */
export function registeredRoutes(app: FastifyInstance): { method: string; url: string }[] {
  const out: { method: string; url: string }[] = [];
  const stack: { depth: number; url: string }[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split("\n")) {
    const match = /^([│ ]*)[├└]── (.+?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1].length / 4;
    while (stack.length > 0 && stack[stack.length - 1].depth >= depth) stack.pop();
    const url = (stack.length > 0 ? stack[stack.length - 1].url : "") + match[2];
    stack.push({ depth, url });
    for (const method of match[3]?.split(", ") ?? []) out.push({ method, url });
  }
  return out;
}

type OpenApi = { paths: Record<string, Record<string, { requestBody?: { content?: Record<string, unknown> } }>> };

/** OpenAPI path and method → Fastify's `METHOD /pattern`. */
export const openApiKey = (method: string, path: string) =>
  `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ":$1")}`;

/** The routes to fuzz: every route but HEAD (Fastify answers it with the GET handler). */
export function fuzzRoutes(app: FastifyInstance, openapi: OpenApi): FuzzRoute[] {
  const documented = new Map<string, SchemaRef | undefined>();
  for (const [path, item] of Object.entries(openapi.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (method === "parameters") continue;
      const schema = (op.requestBody?.content?.["application/json"] as { schema?: Record<string, unknown> })?.schema;
      documented.set(openApiKey(method, path), schema ? { schema, root: openapi as never } : undefined);
    }
  }
  return registeredRoutes(app)
    .filter((r) => r.method !== "HEAD")
    .map(({ method, url }) => {
      const key = `${method} ${url}`;
      const openApiBody = documented.get(key);
      const ref = /\/components\/schemas\/(\w+)$/.exec(String(openApiBody?.schema.$ref ?? ""))?.[1];
      const hasBody = method === "POST" || method === "PUT";
      const bodyKind: BodyKind =
        UI_BODY_KINDS[key] ?? (ref as BodyKind | undefined) ?? (openApiBody ? "Unknown" : hasBody ? "Unknown" : "None");
      return {
        method,
        url,
        params: [...url.matchAll(/:(\w+)/g)].map((m) => m[1]),
        inOpenApi: documented.has(key),
        bodyKind,
        body: openApiBody && bodyKind !== "JobTest" ? openApiBody : zodBodySchema(bodyKind),
        stream: method === "POST" && /^\/api\/.*\/(run|preview|test)$/.test(url),
      };
    });
}

/** Path segments as sent on the wire: already percent-encoded, or raw on purpose. */
const HOSTILE_SEGMENTS = [
  "..",
  ".",
  "..%2F..%2Fetc%2Fpasswd",
  "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
  "..%5C..%5Cwindows",
  "%00",
  "abc%00def",
  "%ED%A0%80",
  "%C0%AE%C0%AE%2F",
  "%FF%FE",
  "%E2%80%AE",
  "%E2%80%8B",
  "%F0%9F%98%80",
  "%EF%BB%BF",
  "'%20or%201%3D1%20--",
  "%27%3B%20drop%20table%20runs%3B--",
  "%25",
  "%",
  "%zz",
  "%%",
  "null",
  "undefined",
  "__proto__",
  "constructor",
  "hasOwnProperty",
  "%7B%7D",
  "%5B%5D",
  "default%0d%0aSet-Cookie:%20x=y",
  "DEFAULT",
  "default%20",
  "%EF%BD%84%EF%BD%85%EF%BD%86",
  "-1",
  "0",
  "1e308",
  "00000000-0000-0000-0000-000000000000",
  "ffffffff-ffff-ffff-ffff-ffffffffffff",
  "3F0C1A52-5B7E-4C1E-9A53-0D3F3E1B2C44",
  "3f0c1a52-5b7e-4c1e-9a53-0d3f3e1b2c44%00",
  "3f0c1a52-5b7e-4c1e-9a53-0d3f3e1b2c44..",
  "report.html%00.png",
  "report.html%2F..%2F..%2Fpackage.json",
  "..%2F..%2Fpackage.json",
  "__proto__.json",
  "constructor.json",
  "toString.md",
  "CON.png",
  "openapi.json",
];

/** Path segments of `name` that may pass its checks, so that requests reach deeper code. */
function plausible(name: string, method: string, f: FuzzFixtures, url: string): string[] {
  switch (name) {
    case "space":
      return method === "DELETE" ? [f.spareSpace] : [f.space, f.space, f.spareSpace];
    case "jobId":
      // Not the real job on /run: a valid run would start a capture.
      return url.endsWith("/run") || method === "DELETE" ? [] : [f.jobId];
    case "blueprintId":
      return method === "DELETE" ? [] : [f.blueprintId, "00000000-0000-4000-8000-000000000001"];
    case "id":
      if (method === "DELETE") return [];
      return url.includes("ai-providers") ? [f.providerId] : url.includes("interfaces") ? [f.interfaceId] : [];
    case "userId":
      return [f.victimUserId];
    case "name":
      return url.startsWith("/llms/schema") ? ["Job.json", "Error.json"] : ["report.html", "report.pdf", "shot.png"];
    case "page":
      return ["api.md", "jobs.md", "openapi.json"];
    default:
      return [];
  }
}

/** The route's path with the first plausible value of each parameter (a fresh UUID where none is). */
export function plausiblePath(route: FuzzRoute, f: FuzzFixtures): string {
  return route.url.replace(
    /:(\w+)/g,
    (_all, name: string) => plausible(name, route.method, f, route.url)[0] ?? "00000000-0000-4000-8000-000000000000",
  );
}

export function pathSegment(name: string, route: FuzzRoute, f: FuzzFixtures, rng: Rng): string {
  const valid = plausible(name, route.method, f, route.url);
  const roll = rng.next();
  if (roll < 0.45 && valid.length > 0) return rng.pick(valid);
  if (roll < 0.6) return randomUuid(rng);
  if (roll < 0.9) return rng.pick(HOSTILE_SEGMENTS);
  if (roll < 0.95) return rng.pick(["a", "9", "%41"]).repeat(rng.pick([300, 5000, 20_000]));
  return encodeSegment(hostileString(rng).slice(0, 2000));
}

/** Percent-encodes every byte but unreserved ASCII; a lone surrogate becomes U+FFFD's bytes. */
export function encodeSegment(value: string): string {
  return [...Buffer.from(value, "utf8")]
    .map((b) =>
      /[A-Za-z0-9._~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, "0")}`,
    )
    .join("");
}

/** What the UI's catch-all gets: file names that climb out of the built app's folder. */
const WILDCARD_PATHS = [
  "assets/..%2F..%2F..%2Fpackage.json",
  "..%2f..%2fsrc%2fapp.ts",
  "%2e%2e/%2e%2e/etc/passwd",
  "assets/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
  "index.html%00.png",
  "assets/..\\..\\package.json",
  "%2fetc%2fpasswd",
  "ui/../../package.json",
  ".env",
  "data/secret-key",
  "llms/../package.json",
  "api/../../etc/passwd",
  "jobs/%E2%80%AE",
];

export function fillPath(route: FuzzRoute, f: FuzzFixtures, rng: Rng): string {
  return route.url
    .replace(/:(\w+)/g, (_all, name: string) => pathSegment(name, route, f, rng))
    .replace(/\*$/, () => (rng.chance(0.8) ? rng.pick(WILDCARD_PATHS) : pathSegment("rest", route, f, rng)));
}

const QUERY_VALUES: Record<string, (rng: Rng) => string> = {
  limit: (rng) => rng.pick(["0", "-1", "1", "200", "201", "1e308", "1.5", "abc", "", "0x10", "9".repeat(400)]),
  cursor: (rng) =>
    rng.pick([
      Buffer.from(`2024-01-01T00:00:00.000Z|${randomUuid(rng)}`).toString("base64url"),
      Buffer.from(`Jan 1 2024 (\u0000)|${randomUuid(rng)}`).toString("base64url"),
      Buffer.from(`2024-01-01T00:00:00.000Z|${randomUuid(rng)}\u0000`).toString("base64url"),
      Buffer.from(`Jan 1 2024 (\ud800)|x`).toString("base64url"),
      Buffer.from(`1|${"-".repeat(36)}`).toString("base64url"),
      Buffer.from(`${hostileString(rng).slice(0, 100)}|${hostileString(rng).slice(0, 40)}`).toString("base64url"),
      "not-base64!!",
      "x".repeat(501),
      "%00",
      "",
    ]),
  jobId: (rng) => rng.pick([randomUuid(rng), "not-a-uuid", "%00", "'%20or%201%3D1%20--"]),
  state: (rng) => rng.pick(["success", "SUCCESS", "unknown", "%00", ""]),
  trigger: (rng) => rng.pick(["manual", "test", "cron", ""]),
  since: (rng) =>
    rng.pick([
      "2024-01-01T00:00:00Z",
      "2024-02-30T00:00:00Z",
      "%2B275760-09-13T00:00:00.000Z",
      "-000001-01-01T00:00:00Z",
      "9999-12-31T23:59:59.999999999Z",
      "yesterday",
      "1e308",
    ]),
  until: (rng) => rng.pick(["2024-01-01T00:00:00Z", "0000-01-01T00:00:00Z", "2024-13-01T00:00:00Z", "now"]),
  type: (rng) => rng.pick(["job", "user", "space", "JOB", "%00", ""]),
  targetId: (rng) => rng.pick([randomUuid(rng), "x", "%00", "a%00b", "%ED%A0%80", "x".repeat(201)]),
  space: (rng) => rng.pick(["default", "fuzz-spare", "DEFAULT", "%00", "..%2F"]),
  token: (rng) => encodeSegment(hostileString(rng).slice(0, 500)),
  runs: (rng) => rng.pick(["true", "false", "1", "%00"]),
};

/**
 * A query string: the list routes' parameters (runs, audit …) with hostile values, repeated,
 * bracketed, or huge. Values are sent as they are: each generator answers wire-ready text.
 */
export function queryString(route: FuzzRoute, rng: Rng): string {
  const list = route.method === "GET" && !/[:*]\w*$/.test(route.url);
  if (rng.chance(list ? 0.1 : 0.5)) return "";
  const names = Object.keys(QUERY_VALUES);
  // One plausible parameter alone gets past strict query schemas, whose other keys would be refused.
  if (list && rng.chance(0.5)) {
    const name = rng.pick([...names, "cursor", "cursor"]);
    return `?${name}=${QUERY_VALUES[name](rng)}`;
  }
  const parts: string[] = [];
  for (let i = 1 + rng.int(4); i > 0; i--) {
    const name = rng.pick(names);
    const value = QUERY_VALUES[name](rng);
    const shape = rng.int(6);
    if (shape === 0) parts.push(`${name}=${value}&${name}=${value}`);
    else if (shape === 1) parts.push(`${name}[]=${value}`);
    else if (shape === 2) parts.push(`${name}[a][b]=${value}`);
    else parts.push(`${name}=${value}`);
  }
  if (rng.chance(0.1))
    parts.push(rng.pick(["__proto__[polluted]=1", "constructor[prototype][x]=1", `q=${"a".repeat(12_000)}`]));
  return `?${parts.join("&")}`;
}
