import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobBody, userWithAccess, webhookInterface } from "../helpers/factories.js";
import { DIALECTS, startTestServer, type TestServer } from "../helpers/server.js";

type Issue = { path: (string | number)[]; code: string; message: string };
const paths = (issues: Issue[]) => issues.map((i) => i.path.join("."));

describe.each(DIALECTS)("jobs API on %s", (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server?.stop());

  it("creates, reads, lists, replaces and deletes a job", async () => {
    const created = await server.admin.post("/api/spaces/default/jobs", jobBody({ name: "Daily errors" }));
    expect(created.status).toBe(201);
    const job = created.body;
    expect(job).toMatchObject({ name: "Daily errors", space: "default", enabled: true, timezone: "Europe/Rome" });
    expect(job.id).toMatch(/^[0-9a-f-]{36}$/);
    // The server gives every step an id.
    for (const step of job.capture.steps) expect(step.id).toMatch(/^[0-9a-f-]{36}$/);

    const read = await server.admin.get(`/api/spaces/default/jobs/${job.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(job);

    const list = await server.admin.get("/api/spaces/default/jobs");
    expect(list.body.items.map((j: { id: string }) => j.id)).toContain(job.id);
    // The list is built from the stored JSON text: each item must equal the single read.
    expect(list.body.items.find((j: { id: string }) => j.id === job.id)).toEqual(job);

    // Full replacement: a read sent back with changes is accepted; missing fields take defaults.
    const replaced = await server.admin.put(`/api/spaces/default/jobs/${job.id}`, {
      ...job,
      name: "Renamed",
      cron: null,
      description: undefined,
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ id: job.id, name: "Renamed", cron: null, description: "" });
    expect(replaced.body.capture.steps.map((s: { id: string }) => s.id)).toEqual(
      job.capture.steps.map((s: { id: string }) => s.id),
    );
    expect(replaced.body.createdAt).toBe(job.createdAt);

    expect((await server.admin.delete(`/api/spaces/default/jobs/${job.id}`)).status).toBe(204);
    expect((await server.admin.get(`/api/spaces/default/jobs/${job.id}`)).status).toBe(404);
    expect((await server.admin.delete(`/api/spaces/default/jobs/${job.id}`)).status).toBe(404);
  });

  it("uses a chosen id when free and answers 409 when it is taken", async () => {
    const id = crypto.randomUUID();
    const first = await server.admin.post("/api/spaces/default/jobs", jobBody({ id }));
    expect(first.status).toBe(201);
    expect(first.body.id).toBe(id);
    const second = await server.admin.post("/api/spaces/default/jobs", jobBody({ id }));
    expect(second.status).toBe(409);
    expect(second.body.error).toBe("conflict");
    // Taken in another space counts too: ids are global.
    await userWithAccess(server, "admin", "other");
    const elsewhere = await server.admin.post("/api/spaces/other/jobs", jobBody({ id }));
    expect(elsewhere.status).toBe(409);
  });

  it("refuses a PUT whose body id differs from the path, and a PUT of an unknown job", async () => {
    const { body: job } = await server.admin.post("/api/spaces/default/jobs", jobBody());
    const mismatch = await server.admin.put(`/api/spaces/default/jobs/${job.id}`, { ...job, id: crypto.randomUUID() });
    expect(mismatch.status).toBe(400);
    expect(paths(mismatch.body.issues)).toEqual(["id"]);
    const unknown = await server.admin.put(`/api/spaces/default/jobs/${crypto.randomUUID()}`, jobBody());
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: "not_found" });
    expect((await server.admin.get("/api/spaces/default/jobs/not-a-uuid")).status).toBe(404);
  });

  it("answers 403 for an unknown space and for a space without access, never 404", async () => {
    expect((await server.admin.get("/api/spaces/no-such-space/jobs")).status).toBe(403);
    expect((await server.admin.get("/api/spaces/NOT..valid/jobs")).status).toBe(403);
    const outsider = await userWithAccess(server, null);
    const answer = await outsider.client.get("/api/spaces/default/jobs");
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({ error: "forbidden" });
    expect((await outsider.client.post("/api/spaces/default/jobs", jobBody())).status).toBe(403);
  });

  it("lets ro members read but not write, and hides capture passwords from them", async () => {
    const job = (
      await server.admin.post(
        "/api/spaces/default/jobs",
        jobBody({
          capture: {
            auth: { type: "basic", username: "svc", password: "basic-secret-PW1" },
            steps: [
              { type: "navigate", url: "https://app.example.com/login" },
              { type: "type", selector: "#password", text: "typed-secret-PW2", sensitive: true },
              { type: "type", selector: "#user", text: "visible-user" },
              {
                type: "if",
                condition: "1 > 0",
                then: [{ type: "type", selector: "#otp", text: "nested-secret-PW3", sensitive: true }],
              },
            ],
          },
        }),
      )
    ).body;
    const ro = await userWithAccess(server, "ro");
    const one = await ro.client.get(`/api/spaces/default/jobs/${job.id}`);
    expect(one.status).toBe(200);
    const list = await ro.client.get("/api/spaces/default/jobs");
    for (const text of [one.text, list.text]) {
      expect(text).not.toContain("basic-secret-PW1");
      expect(text).not.toContain("typed-secret-PW2");
      expect(text).not.toContain("nested-secret-PW3");
      expect(text).toContain("visible-user");
    }
    expect(one.body.capture.auth).toEqual({ type: "basic", username: "svc" });

    expect((await ro.client.post("/api/spaces/default/jobs", jobBody())).status).toBe(403);
    expect((await ro.client.put(`/api/spaces/default/jobs/${job.id}`, jobBody())).status).toBe(403);
    expect((await ro.client.delete(`/api/spaces/default/jobs/${job.id}`)).status).toBe(403);

    // rw members see the passwords they need to replace a job.
    const rw = await userWithAccess(server, "rw");
    const full = await rw.client.get(`/api/spaces/default/jobs/${job.id}`);
    expect(full.text).toContain("basic-secret-PW1");
    expect((await rw.client.post("/api/spaces/default/jobs", jobBody())).status).toBe(201);
  });

  it("lists every failing field at once: cron together with step, report and delivery errors", async () => {
    const answer = await server.admin.post("/api/spaces/default/jobs", {
      name: "",
      cron: "0 0 30 2 *",
      timezone: "Mars/Olympus",
      capture: {
        steps: [
          { type: "navigate", url: "file:///etc/passwd" },
          { type: "navigate", url: "https://user:pw@example.com/" },
          { type: "click" },
          { type: "teleport" },
          { type: "calculate", as: "x", expression: "1 +" },
          { type: "extract", as: "job", selector: "#a" },
        ],
      },
      report: {
        theme: { textColor: "not-a-colour" },
        pages: [{ rows: [{ cells: [{ blocks: [{ type: "text", content: "{% include 'x' %}" }] }] }] }],
      },
      deliveries: [{ interfaceId: crypto.randomUUID(), recipients: ["not an address"] }],
      unknownField: true,
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe("invalid");
    const found = paths(answer.body.issues);
    for (const path of [
      "name",
      "cron",
      "timezone",
      "capture.steps.0.url",
      "capture.steps.1.url",
      "capture.steps.2.selector",
      "capture.steps.3.type",
      "capture.steps.4.expression",
      "capture.steps.5.as",
      "report.theme.textColor",
      "report.pages.0.rows.0.cells.0.blocks.0.content",
      "deliveries.0.interfaceId",
      "deliveries.0.recipients.0",
      "",
    ]) {
      expect(found, path).toContain(path);
    }
    for (const issue of answer.body.issues as Issue[]) {
      expect(typeof issue.code).toBe("string");
      expect(issue.message.length).toBeGreaterThan(0);
    }
    const include = (answer.body.issues as Issue[]).find((i) => i.path.join(".").endsWith("blocks.0.content"));
    expect(include?.message).toMatch(/include.*not allowed/);
    expect(answer.text).not.toMatch(/\bat .*\.ts:\d+/);
  });

  it("refuses names that no step stores, and snapshot refs that name no snapshot", async () => {
    const answer = await server.admin.post(
      "/api/spaces/default/jobs",
      jobBody({
        capture: {
          steps: [
            { type: "navigate", url: "https://x.example.com" },
            { type: "if", condition: "missing > 3", then: [{ type: "break", reason: "quiet" }] },
          ],
        },
        report: {
          pages: [
            {
              rows: [
                {
                  cells: [
                    { blocks: [{ type: "snapshot", ref: "nothing" }] },
                    { blocks: [{ type: "variable", name: "nope" }] },
                  ],
                },
              ],
            },
          ],
        },
      }),
    );
    expect(answer.status).toBe(400);
    expect(paths(answer.body.issues)).toEqual([
      "capture.steps.1.condition",
      "report.pages.0.rows.0.cells.0.blocks.0.ref",
      "report.pages.0.rows.0.cells.1.blocks.0.name",
    ]);
  });

  it("keeps the bounds: steps, nesting, expression and template length, pages, rows, cells, names, body size", async () => {
    const nav = { type: "navigate", url: "https://x.example.com" };
    const tooMany = await server.admin.post(
      "/api/spaces/default/jobs",
      jobBody({ capture: { steps: [{ type: "if", condition: "1 > 0", then: Array(500).fill(nav) }] } }),
    );
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.issues[0]).toMatchObject({ path: ["capture", "steps"], code: "too_big" });
    expect(
      (await server.admin.post("/api/spaces/default/jobs", jobBody({ capture: { steps: Array(500).fill(nav) } })))
        .status,
    ).toBe(201);

    const nest = (depth: number): unknown =>
      depth === 0 ? nav : { type: "if", condition: "1 > 0", then: [nest(depth - 1)] };
    expect(
      (await server.admin.post("/api/spaces/default/jobs", jobBody({ capture: { steps: [nest(8)] } }))).status,
    ).toBe(201);
    const deep = await server.admin.post("/api/spaces/default/jobs", jobBody({ capture: { steps: [nest(9)] } }));
    expect(deep.status).toBe(400);
    expect(deep.body.issues[0].message).toMatch(/8 deep/);
    // A hostile depth is refused cleanly, not with a stack overflow.
    const depth = 5000;
    const hostileSteps = `${'{"type":"if","condition":"1 > 0","then":['.repeat(depth)}${JSON.stringify(nav)}${"]}".repeat(depth)}`;
    const hostileBody = JSON.stringify(jobBody()).replace(/"steps":\[.*?\]\}/, `"steps":[${hostileSteps}]}`);
    const hostile = await server.admin.request("POST", "/api/spaces/default/jobs", hostileBody, {
      "content-type": "application/json",
    });
    expect(hostile.status).toBe(400);

    const longExpression = await server.admin.post(
      "/api/spaces/default/jobs",
      jobBody({ capture: { steps: [nav, { type: "calculate", as: "x", expression: `1${" + 1".repeat(300)}` }] } }),
    );
    expect(longExpression.status).toBe(400);
    expect(paths(longExpression.body.issues)).toEqual(["capture.steps.1.expression"]);

    const page = (rows: number, cells = 1) => ({
      rows: Array.from({ length: rows }, () => ({ cells: Array.from({ length: cells }, () => ({ blocks: [] })) })),
    });
    const bigTemplate = await server.admin.post(
      "/api/spaces/default/jobs",
      jobBody({
        report: {
          pages: [{ rows: [{ cells: [{ blocks: [{ type: "text", content: "x".repeat(64 * 1024 + 1) }] }] }] }],
        },
      }),
    );
    expect(paths(bigTemplate.body.issues)).toEqual(["report.pages.0.rows.0.cells.0.blocks.0.content"]);
    const pages = await server.admin.post(
      "/api/spaces/default/jobs",
      jobBody({ report: { pages: Array(51).fill(page(1)) } }),
    );
    expect(paths(pages.body.issues)).toEqual(["report.pages"]);
    const rows = await server.admin.post("/api/spaces/default/jobs", jobBody({ report: { pages: [page(31)] } }));
    expect(paths(rows.body.issues)).toEqual(["report.pages.0.rows"]);
    const cells = await server.admin.post("/api/spaces/default/jobs", jobBody({ report: { pages: [page(1, 4)] } }));
    expect(paths(cells.body.issues)).toEqual(["report.pages.0.rows.0.cells"]);
    const name = await server.admin.post("/api/spaces/default/jobs", jobBody({ name: "n".repeat(201) }));
    expect(paths(name.body.issues)).toEqual(["name"]);

    const huge = await server.admin.post("/api/spaces/default/jobs", {
      ...jobBody(),
      description: "x".repeat(5 * 1024 * 1024),
    });
    expect(huge.status).toBe(413);
    expect(huge.body.error).toBe("payload_too_large");
  });

  it("answers 400 for a body that is not JSON and for wrong types", async () => {
    const notJson = await server.admin.request("POST", "/api/spaces/default/jobs", "{not json", {
      "content-type": "application/json",
    });
    expect(notJson.status).toBe(400);
    expect(notJson.body.error).toBe("invalid");
    const array = await server.admin.post("/api/spaces/default/jobs", [1, 2]);
    expect(array.status).toBe(400);
    const wrongTypes = await server.admin.post("/api/spaces/default/jobs", {
      ...jobBody(),
      enabled: "yes",
      retry: { attempts: 99 },
    });
    expect(paths(wrongTypes.body.issues).sort()).toEqual(["enabled", "retry.attempts"]);
  });

  it("binds only interfaces and AI providers of the job's own space", async () => {
    const own = await webhookInterface(server, "default");
    await userWithAccess(server, "admin", "second");
    const foreign = await webhookInterface(server, "second");
    const ok = await server.admin.post(
      "/api/spaces/default/jobs",
      jobBody({ deliveries: [{ interfaceId: own.id, message: "hi" }] }),
    );
    expect(ok.status).toBe(201);
    const refused = await server.admin.post(
      "/api/spaces/default/jobs",
      jobBody({
        deliveries: [{ interfaceId: foreign.id, message: "hi" }],
        capture: {
          steps: [
            { type: "navigate", url: "https://x.example.com" },
            { type: "ai", as: "summary", providerId: crypto.randomUUID(), prompt: "Summarise" },
          ],
        },
      }),
    );
    expect(refused.status).toBe(400);
    expect(paths(refused.body.issues)).toEqual(["deliveries.0.interfaceId", "capture.steps.1.providerId"]);
  });
});
