import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GUIDE_PAGES } from "../../src/guide/guide.js";
import type { Client } from "../helpers/client.js";
import { DIALECTS, startTestServer, type TestServer } from "../helpers/server.js";

/**
 * The guide for AI agents, served by a real server: every page answers without a login, the
 * OpenAPI description and the schemas are complete, and every example body the guide tells an
 * agent to send is accepted by the API as it stands.
 */

/** The ids the guide's examples bind to; created here with exactly these ids. */
const EXAMPLE_INTERFACES = [
  {
    id: "4d5fba03-561e-4503-bf4d-c41817133aca",
    type: "webhook",
    config: {
      method: "POST",
      bodyType: "json",
      bodyTemplate: '{"text": "$MESSAGE"}',
      allowJobBody: true,
      host: "hooks.example.com",
      headerNames: [],
    },
    secrets: { url: "https://hooks.example.com/guide", headers: {} },
  },
  {
    id: "9a1b0c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d",
    type: "smtp",
    config: { host: "smtp.example.com", port: 587, security: "starttls", username: "reports", from: "r@example.com" },
    secrets: { password: "smtp-password" },
  },
  {
    id: "6c0e2f4a-8b1d-4e3a-9f5c-2d7b8a1e0c33",
    type: "s3",
    config: { bucket: "reports", region: "eu-central-1", prefix: "pagewright/" },
    secrets: { accessKeyId: "AKIAEXAMPLE", secretAccessKey: "s3-secret" },
  },
] as const;
const EXAMPLE_PROVIDER_ID = "7e1d3c5b-2a4f-4b6e-8d9c-0f1a2b3c4d5e";

/** The SPEC's "Agent API" table: every path with its methods. */
const AGENT_API: Record<string, string[]> = {
  "/api/agent/context": ["get"],
  "/api/spaces/{space}/jobs": ["get", "post"],
  "/api/spaces/{space}/jobs/{jobId}": ["get", "put", "delete"],
  "/api/spaces/{space}/jobs/{jobId}/run": ["post"],
  "/api/spaces/{space}/jobs/preview": ["post"],
  "/api/spaces/{space}/jobs/test": ["post"],
  "/api/spaces/{space}/blueprints": ["get", "post"],
  "/api/spaces/{space}/blueprints/{blueprintId}": ["get", "put", "delete"],
  "/api/spaces/{space}/delivery-interfaces": ["get"],
  "/api/spaces/{space}/ai-providers": ["get"],
  "/api/spaces/{space}/runs": ["get"],
  "/api/spaces/{space}/runs/{runId}": ["get"],
};

const SCHEMA_NAMES = [
  "Job",
  "Blueprint",
  "Run",
  "CaptureStep",
  "Report",
  "Delivery",
  "DeliveryInterface",
  "AiProvider",
  "Context",
  "Health",
  "Error",
];

/** Pages that must each show at least one job body to post. */
const PAGES_WITH_JOB_EXAMPLES = ["jobs", "capture", "template", "delivery"];

type Example = { page: string; index: number; kind: "job" | "blueprint"; body: Record<string, unknown> };

/** Fenced blocks of a Markdown text: the info string and the content. */
function fencedBlocks(markdown: string): { info: string; content: string }[] {
  const blocks: { info: string; content: string }[] = [];
  const fence = /^```([^\n`]*)\n([\s\S]*?)^```[ \t]*$/gm;
  for (const match of markdown.matchAll(fence)) blocks.push({ info: match[1].trim(), content: match[2] });
  return blocks;
}

/**
 * The `json` blocks of a page, sorted into job and blueprint bodies. By the guide's convention a
 * `json` block is a body to send; anything else (answers, snippets) is `jsonc` or `text`. The
 * only other `json` blocks allowed are generated JSON Schemas (they carry `$schema`).
 */
function examplesOf(page: string, markdown: string): { examples: Example[]; problems: string[] } {
  const examples: Example[] = [];
  const problems: string[] = [];
  for (const [index, block] of fencedBlocks(markdown)
    .filter((b) => b.info === "json")
    .entries()) {
    let body: unknown;
    try {
      body = JSON.parse(block.content);
    } catch (error) {
      problems.push(`${page}.md json block #${index} is not JSON (${(error as Error).message}):\n${block.content}`);
      continue;
    }
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      problems.push(`${page}.md json block #${index} is not a JSON object`);
    } else if ("$schema" in body) {
      // a generated JSON Schema (reference, not an example to send)
    } else if ("capture" in body) {
      examples.push({ page, index, kind: "job", body: body as Record<string, unknown> });
    } else if ("job" in body && "name" in body) {
      examples.push({ page, index, kind: "blueprint", body: body as Record<string, unknown> });
    } else {
      problems.push(
        `${page}.md json block #${index} is neither a job body (capture) nor a blueprint (job, name): mark it jsonc or text`,
      );
    }
  }
  return { examples, problems };
}

/** Every `$ref` in a document, with where it was found. */
function refsOf(value: unknown, at = "#"): { ref: string; at: string }[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => refsOf(v, `${at}/${i}`));
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, v]) =>
    key === "$ref" && typeof v === "string" ? [{ ref: v, at }] : refsOf(v, `${at}/${key}`),
  );
}

/** Resolves a local JSON pointer (`#/components/schemas/Job`) in a document. */
function resolvePointer(document: unknown, ref: string): unknown {
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = document;
  for (const raw of ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

async function createExampleTargets(server: TestServer) {
  const db = server.ctx.storage.db;
  const at = new Date().toISOString();
  for (const def of EXAMPLE_INTERFACES) {
    await db
      .insertInto("delivery_interfaces")
      .values({
        id: def.id,
        space_id: "default",
        name: `Guide ${def.type}`,
        type: def.type,
        config: JSON.stringify(def.config),
        secrets: server.ctx.box.seal(def.secrets),
        created_at: at,
        updated_at: at,
      })
      .execute();
  }
  await db
    .insertInto("ai_providers")
    .values({
      id: EXAMPLE_PROVIDER_ID,
      space_id: "default",
      name: "Guide provider",
      vendor: "openai-compatible",
      config: JSON.stringify({ endpoint: "http://127.0.0.1:9/v1", model: "m" }),
      secrets: server.ctx.box.seal({ apiKey: "guide-api-key" }),
      created_at: at,
      updated_at: at,
    })
    .execute();
}

describe.each(DIALECTS)("guide for agents (%s)", (dialect) => {
  let server: TestServer;
  let anonymous: Client;
  const pages = new Map<string, string>();

  beforeAll(async () => {
    server = await startTestServer(dialect);
    anonymous = server.client();
    await createExampleTargets(server);
    for (const page of GUIDE_PAGES) {
      const answer = await anonymous.get(`/llms/${page}.md`);
      if (answer.status === 200) pages.set(page, answer.text);
    }
  });

  afterAll(async () => {
    await server?.stop();
  });

  /** A link of the guide to this instance, as a path to request. */
  const pathOf = (url: string) => {
    const base = server.ctx.config.publicUrl;
    expect(url.startsWith(`${base}/`), `${url} is not under the instance URL ${base}`).toBe(true);
    return url.slice(base.length).replace(/#.*$/, "");
  };

  it("serves /llms.txt without a login, in the llms.txt shape, with working links", async () => {
    const answer = await anonymous.get("/llms.txt");
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toMatch(/^text\/plain/);
    const text = answer.text;
    expect(text.startsWith("# Pagewright\n")).toBe(true);
    expect(text).toMatch(/^> \S/m);
    expect(text).toContain("## Guide");
    expect(text).toContain("## Reference");
    expect(text).not.toContain("<!-- generated:");
    expect(text).not.toContain("{base_url}");
    expect(text).not.toContain("{version}");

    const links = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]);
    const llmsLinks = links.filter((l) => l.includes("/llms/"));
    for (const page of GUIDE_PAGES) {
      expect(llmsLinks, `llms.txt links ${page}.md`).toContain(`${server.ctx.config.publicUrl}/llms/${page}.md`);
    }
    expect(llmsLinks).toContain(`${server.ctx.config.publicUrl}/llms/openapi.json`);
    expect(llmsLinks).toContain(`${server.ctx.config.publicUrl}/llms/schema/Job.json`);
    for (const link of llmsLinks) {
      const linked = await anonymous.get(pathOf(link));
      expect(linked.status, `llms.txt link ${link}`).toBe(200);
    }
  });

  it("serves every page as Markdown without a login, fully rendered", async () => {
    for (const page of GUIDE_PAGES) {
      const answer = await anonymous.get(`/llms/${page}.md`);
      expect(answer.status, `${page}.md`).toBe(200);
      expect(answer.headers.get("content-type"), `${page}.md`).toMatch(/^text\/markdown/);
      expect(answer.text, `${page}.md`).toMatch(/^# \S/);
      expect(answer.text, `${page}.md has a leftover marker`).not.toContain("<!-- generated:");
      expect(answer.text, `${page}.md`).not.toContain("{base_url}");
      expect(answer.text, `${page}.md`).not.toContain("{version}");
    }
    expect((await anonymous.get("/llms/nothing.md")).status).toBe(404);
  });

  it("links only to guide paths that answer", async () => {
    const base = server.ctx.config.publicUrl;
    const links = new Set<string>();
    for (const text of pages.values()) {
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) if (m[1].startsWith(`${base}/llms`)) links.add(m[1]);
    }
    expect(links.size).toBeGreaterThan(0);
    for (const link of links) {
      expect((await anonymous.get(pathOf(link))).status, link).toBe(200);
    }
  });

  it("describes every agent API path and method in /llms/openapi.json, with resolvable $refs", async () => {
    const answer = await anonymous.get("/llms/openapi.json");
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toMatch(/^application\/json/);
    const doc = answer.body as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toMatch(/^3\.1\./);
    for (const [path, methods] of Object.entries(AGENT_API)) {
      expect(doc.paths[path], `path ${path}`).toBeDefined();
      for (const method of methods) expect(doc.paths[path][method], `${method.toUpperCase()} ${path}`).toBeDefined();
    }
    expect(doc.paths["/auth/login-local"]?.post).toBeDefined();
    const refs = refsOf(doc);
    expect(refs.length).toBeGreaterThan(0);
    const broken = refs.filter(({ ref }) => resolvePointer(doc, ref) === undefined);
    expect(broken, "$refs that resolve to nothing").toEqual([]);
  });

  it("serves the JSON Schema of every body, and 404 for an unknown name", async () => {
    for (const name of SCHEMA_NAMES) {
      const answer = await anonymous.get(`/llms/schema/${name}.json`);
      expect(answer.status, name).toBe(200);
      expect(answer.headers.get("content-type"), name).toMatch(/json/);
      const schema = JSON.parse(answer.text) as Record<string, unknown>;
      expect(typeof schema.$schema, `${name}.json has $schema`).toBe("string");
      const broken = refsOf(schema).filter(({ ref }) => resolvePointer(schema, ref) === undefined);
      expect(broken, `${name}.json $refs that resolve to nothing`).toEqual([]);
    }
    expect((await anonymous.get("/llms/schema/Nothing.json")).status).toBe(404);
    expect((await anonymous.get("/llms/schema/job.json")).status).toBe(404);
  });

  it("tells the agent to replace the example ids with its own", () => {
    for (const [page, text] of pages) {
      const sent = JSON.stringify(examplesOf(page, text).examples.map((e) => e.body));
      if (EXAMPLE_INTERFACES.some((i) => sent.includes(i.id))) {
        expect(
          text.includes("GET /api/spaces/{space}/delivery-interfaces"),
          `${page}.md names the interface list`,
        ).toBe(true);
      }
      if (sent.includes(EXAMPLE_PROVIDER_ID)) {
        expect(text.includes("GET /api/spaces/{space}/ai-providers"), `${page}.md names the provider list`).toBe(true);
      }
    }
  });

  it("has example bodies that the API accepts as they are", async () => {
    expect(pages.size).toBe(GUIDE_PAGES.length);
    const examples: Example[] = [];
    const problems: string[] = [];
    for (const [page, text] of pages) {
      const found = examplesOf(page, text);
      examples.push(...found.examples);
      problems.push(...found.problems);
    }
    expect(problems).toEqual([]);
    expect(examples.filter((e) => e.kind === "job").length, "job examples in the guide").toBeGreaterThan(0);
    for (const page of PAGES_WITH_JOB_EXAMPLES) {
      expect(
        examples.some((e) => e.page === page && e.kind === "job"),
        `${page}.md shows a job body to post`,
      ).toBe(true);
    }

    const refused: string[] = [];
    for (const example of examples) {
      const where = `${example.page}.md json block #${example.index} (${example.kind} "${String(example.body.name)}")`;
      if (example.kind === "job") {
        // Chosen ids are unique: give each posted copy a fresh one so examples do not collide.
        const body = "id" in example.body ? { ...example.body, id: crypto.randomUUID() } : example.body;
        const answer = await server.admin.post("/api/spaces/default/jobs", body);
        if (answer.status !== 201) refused.push(`${where}: ${answer.status} ${answer.text}`);
        else expect(answer.body.name).toBe(body.name);
      } else {
        const answer = await server.admin.post("/api/spaces/default/blueprints", example.body);
        if (answer.status !== 201) refused.push(`${where}: ${answer.status} ${answer.text}`);
        else expect(answer.body.job.name).toBe((example.body.job as { name: string }).name);
      }
    }
    expect(refused, "examples the API refused").toEqual([]);
  });
});
