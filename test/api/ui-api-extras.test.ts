import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OpenAiServer, startOpenAiServer } from "../fixtures/openai-server.js";
import { startTestSite, type TestSite } from "../fixtures/test-site.js";
import { jobBody, userWithAccess, webhookInterface } from "../helpers/factories.js";
import { DIALECTS, startTestServer, type TestServer } from "../helpers/server.js";
import { postStream } from "../helpers/sse.js";

/** A valid PNG of one red pixel, made here so the test depends on no file. */
function redPixelPng(): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (data: Buffer) => {
    let c = 0xffffffff;
    for (const byte of data) c = crcTable[(c ^ byte) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([length, body, sum]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(1, 0);
  header.writeUInt32BE(1, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // truecolour
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", zlib.deflateSync(Buffer.from([0, 255, 0, 0]))),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

const PNG = redPixelPng();

async function upload(client: TestServer["admin"], data: Buffer | string, type = "image/png", space = "default") {
  const response = await fetch(`${client.baseUrl}/ui-api/spaces/${space}/uploads`, {
    method: "POST",
    headers: { "content-type": type, ...(client.cookieHeader ? { cookie: client.cookieHeader } : {}) },
    body: typeof data === "string" ? data : new Uint8Array(data),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

describe.each(DIALECTS)("what the web app needs beyond the agent API, on %s", (dialect) => {
  let server: TestServer;
  let site: TestSite;
  let ai: OpenAiServer;

  beforeAll(async () => {
    [server, site, ai] = await Promise.all([startTestServer(dialect), startTestSite(), startOpenAiServer()]);
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await site?.stop();
    await ai?.stop();
  });

  describe("deleting what jobs use", () => {
    it("refuses to delete an interface that a job binds, naming the job, and deletes it once unbound", async () => {
      const hook = await webhookInterface(server);
      const job = await server.admin.post(
        "/api/spaces/default/jobs",
        jobBody({ name: "Binds the hook", deliveries: [{ interfaceId: hook.id, message: "hi" }] }),
      );
      expect(job.status).toBe(201);
      const refused = await server.admin.delete(`/ui-api/spaces/default/delivery-interfaces/${hook.id}`);
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ error: "conflict", jobs: [{ id: job.body.id, name: "Binds the hook" }] });
      expect(refused.body.message).toContain("“Binds the hook”");
      // Still there.
      const list = await server.admin.get("/api/spaces/default/delivery-interfaces");
      expect(list.body.items.map((i: { id: string }) => i.id)).toContain(hook.id);

      expect(
        (await server.admin.put(`/api/spaces/default/jobs/${job.body.id}`, { ...job.body, deliveries: [] })).status,
      ).toBe(200);
      expect((await server.admin.delete(`/ui-api/spaces/default/delivery-interfaces/${hook.id}`)).status).toBe(204);
    });

    it("refuses to delete the interface that sends the health alerts", async () => {
      const hook = await webhookInterface(server);
      const saved = await server.admin.put("/ui-api/admin/settings/health-alerts", {
        enabled: true,
        space: "default",
        deliveryInterfaceId: hook.id,
        recipient: null,
        checkEveryMinutes: 5,
        minIntervalMinutes: null,
      });
      expect(saved.status).toBe(200);
      const refused = await server.admin.delete(`/ui-api/spaces/default/delivery-interfaces/${hook.id}`);
      expect(refused.status).toBe(409);
      expect(refused.body.message).toContain("health alerts");
      await server.admin.put("/ui-api/admin/settings/health-alerts", {
        ...saved.body,
        enabled: false,
        deliveryInterfaceId: null,
      });
      expect((await server.admin.delete(`/ui-api/spaces/default/delivery-interfaces/${hook.id}`)).status).toBe(204);
    });

    it("refuses to delete an AI provider that an ai step asks, also inside an if", async () => {
      const provider = await server.admin.post("/ui-api/spaces/default/ai-providers", {
        name: "Asked model",
        vendor: "openai-compatible",
        endpoint: ai.url,
        model: "m",
        apiKey: ai.apiKey,
      });
      expect(provider.status).toBe(201);
      const job = await server.admin.post(
        "/api/spaces/default/jobs",
        jobBody({
          name: "Asks the model",
          capture: {
            steps: [
              { type: "navigate", url: "https://dash.example.com/" },
              { type: "extract", as: "errors", selector: "#e", parse: "number" },
              {
                type: "if",
                condition: "errors > 1",
                then: [{ type: "ai", as: "summary", providerId: provider.body.id, prompt: "Summarise" }],
              },
            ],
          },
        }),
      );
      expect(job.status).toBe(201);
      const refused = await server.admin.delete(`/ui-api/spaces/default/ai-providers/${provider.body.id}`);
      expect(refused.status).toBe(409);
      expect(refused.body.jobs).toEqual([{ id: job.body.id, name: "Asks the model" }]);
      expect((await server.admin.delete(`/api/spaces/default/jobs/${job.body.id}`)).status).toBe(204);
      expect((await server.admin.delete(`/ui-api/spaces/default/ai-providers/${provider.body.id}`)).status).toBe(204);
    });
  });

  describe("testing an AI provider", () => {
    it("answers ok with the model's answer, and the error without the key when the key is wrong", async () => {
      ai.respondWith(() => ({ content: "OK" }));
      const good = await server.admin.post("/ui-api/spaces/default/ai-providers", {
        name: "Good key",
        vendor: "openai-compatible",
        endpoint: ai.url,
        model: "m",
        apiKey: ai.apiKey,
      });
      const tested = await server.admin.post(`/ui-api/spaces/default/ai-providers/${good.body.id}/test`);
      expect(tested.status).toBe(200);
      expect(tested.body).toMatchObject({ ok: true, answer: "OK" });
      expect(tested.body.ms).toBeGreaterThanOrEqual(0);

      const wrongKey = "sk-wrong-key-that-must-not-show";
      const bad = await server.admin.post("/ui-api/spaces/default/ai-providers", {
        name: "Bad key",
        vendor: "openai-compatible",
        endpoint: ai.url,
        model: "m",
        apiKey: wrongKey,
      });
      const failed = await server.admin.post(`/ui-api/spaces/default/ai-providers/${bad.body.id}/test`);
      expect(failed.status).toBe(200);
      expect(failed.body.ok).toBe(false);
      expect(failed.body.error).toMatch(/Bad key/);
      expect(failed.text).not.toContain(wrongKey);
    });

    it("is for space admins only", async () => {
      const provider = (await server.admin.get("/api/spaces/default/ai-providers")).body.items[0];
      const rw = await userWithAccess(server, "rw");
      expect((await rw.client.post(`/ui-api/spaces/default/ai-providers/${provider.id}/test`)).status).toBe(403);
      expect((await server.admin.post("/ui-api/spaces/default/ai-providers/not-a-uuid/test")).status).toBe(404);
    });
  });

  describe("uploads, the report preview and deleting runs", () => {
    let runId: string;

    beforeAll(async () => {
      // A real test run against the test site: a variable and a snapshot.
      const stream = await postStream(server.admin, "/api/spaces/default/jobs/test", {
        ...jobBody({ name: "Preview source" }),
        capture: {
          steps: [
            { type: "navigate", url: `${site.url}/table` },
            { type: "extract", as: "orders", selector: "#orders", attribute: "data-value", parse: "number" },
            { type: "snapshot", as: "table", selector: "table" },
          ],
        },
      });
      expect(stream.end.ok).toBe(true);
      runId = stream.end.runId;
    }, 60_000);

    it("stores an uploaded image for members, refuses what is not an image, and keeps spaces apart", async () => {
      const stored = await upload(server.admin, PNG);
      expect(stored.status).toBe(201);
      expect(stored.body).toMatchObject({ type: "image/png", bytes: PNG.length });
      const read = await fetch(`${server.url}${stored.body.url}`, {
        headers: { cookie: server.admin.cookieHeader ?? "" },
      });
      expect(read.status).toBe(200);
      expect(read.headers.get("content-type")).toBe("image/png");
      expect(Buffer.from(await read.arrayBuffer()).equals(PNG)).toBe(true);

      // An HTML page claiming to be a PNG is refused by its bytes.
      const html = await upload(server.admin, "<html><script>alert(1)</script></html>", "image/png");
      expect(html.status).toBe(400);
      expect(html.body.issues[0].message).toContain("PNG, JPEG, GIF or WebP");
      // Over 20 MB: refused before it is stored.
      const big = Buffer.concat([PNG, Buffer.alloc(20 * 1024 * 1024)]);
      expect((await upload(server.admin, big)).status).toBe(413);

      const ro = await userWithAccess(server, "ro");
      expect((await upload(ro.client, PNG)).status).toBe(403);
      expect((await ro.client.get(stored.body.url)).status).toBe(200);
      const outsider = await userWithAccess(server, "admin", "other-space");
      expect((await outsider.client.get(stored.body.url)).status).toBe(403);
      expect((await outsider.client.get(`/ui-api/spaces/other-space/uploads/${stored.body.id}`)).status).toBe(404);
      expect((await server.admin.get("/ui-api/spaces/default/uploads/..%2F..%2Fsecret")).status).toBe(404);
    });

    it("previews a report from the last test's data, an uploaded image embedded", async () => {
      const image = await upload(server.admin, PNG);
      const preview = await server.admin.post("/ui-api/spaces/default/report-preview", {
        runId,
        job: { name: "Preview source" },
        report: {
          title: "{{ job.name }}: {{ orders }} orders",
          pages: [
            {
              rows: [
                {
                  cells: [
                    { blocks: [{ type: "variable", name: "orders", label: "Orders" }] },
                    { blocks: [{ type: "snapshot", ref: "table" }] },
                    { blocks: [{ type: "image", upload: image.body.id }] },
                  ],
                },
              ],
            },
          ],
        },
      });
      expect(preview.status).toBe(200);
      expect(preview.body.errors).toEqual([]);
      expect(preview.body.title).toBe("Preview source: 777 orders");
      expect(preview.body.html).toContain(">777<");
      expect(preview.body.html).toContain(`data:image/png;base64,${PNG.toString("base64")}`);
      // The snapshot of the run is embedded too (a second PNG data URL).
      expect(preview.body.html.match(/data:image\/png;base64,/g)?.length).toBeGreaterThanOrEqual(2);
    });

    it("shows a failing block in place and lists it; validates the report; hides other spaces' runs", async () => {
      const failing = await server.admin.post("/ui-api/spaces/default/report-preview", {
        runId,
        report: {
          title: "t",
          pages: [
            { rows: [{ cells: [{ blocks: [{ type: "image", upload: "3f0c1a52-5b7e-4c1e-9a53-0d3f3e1b2c44" }] }] }] },
          ],
        },
      });
      expect(failing.status).toBe(200);
      expect(failing.body.errors).toEqual([
        expect.objectContaining({ page: 0, row: 0, cell: 0, block: 0, message: "the uploaded image no longer exists" }),
      ]);
      const invalid = await server.admin.post("/ui-api/spaces/default/report-preview", {
        report: { title: "t", pages: [{ rows: [{ cells: [{ blocks: [{ type: "image" }] }] }] }] },
      });
      expect(invalid.status).toBe(400);
      expect(invalid.body.issues[0].path).toEqual(["report", "pages", 0, "rows", 0, "cells", 0, "blocks", 0, "url"]);
      const outsider = await userWithAccess(server, "admin", "preview-other");
      const hidden = await outsider.client.post("/ui-api/spaces/preview-other/report-preview", { runId, report: null });
      expect(hidden.status).toBe(404);
    });

    it("lists runs by trigger", async () => {
      const tests = await server.admin.get("/api/spaces/default/runs?trigger=test");
      expect(tests.body.items.map((r: { id: string }) => r.id)).toContain(runId);
      const manual = await server.admin.get("/api/spaces/default/runs?trigger=manual");
      expect(manual.body.items.map((r: { id: string }) => r.id)).not.toContain(runId);
      expect((await server.admin.get("/api/spaces/default/runs?trigger=cron")).status).toBe(400);
    });

    it("deletes a run with its files for rw members, not for ro", async () => {
      const run = (await server.admin.get(`/api/spaces/default/runs/${runId}`)).body;
      const snapshotUrl = run.snapshots[0].url;
      expect((await fetch(`${server.url}${snapshotUrl}`)).status).toBe(200);
      const ro = await userWithAccess(server, "ro");
      expect((await ro.client.delete(`/ui-api/spaces/default/runs/${runId}`)).status).toBe(403);
      const rw = await userWithAccess(server, "rw");
      expect((await rw.client.delete(`/ui-api/spaces/default/runs/${runId}`)).status).toBe(204);
      expect((await server.admin.get(`/api/spaces/default/runs/${runId}`)).status).toBe(404);
      expect((await fetch(`${server.url}${snapshotUrl}`)).status).toBe(404);
      expect((await rw.client.delete(`/ui-api/spaces/default/runs/${runId}`)).status).toBe(404);
    });
  });
});
