import { randomBytes } from "node:crypto";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type OpenAiServer, type RecordedChatRequest, startOpenAiServer } from "../fixtures/openai-server.js";
import { startTestSite, type TestSite } from "../fixtures/test-site.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { postStream, type StreamEvent } from "../helpers/sse.js";

/** A distinctive key, so that searching answers for it cannot match anything else. */
const API_KEY = `sk-test-${randomBytes(12).toString("hex")}`;
const WRONG_KEY = `sk-wrong-${randomBytes(12).toString("hex")}`;
const MODEL = "gpt-fake-mini";

/** The fake OpenAI-compatible server on its own, as the `openai` client and a raw client see it. */
describe("the fake OpenAI-compatible server", () => {
  let ai: OpenAiServer;
  beforeAll(async () => {
    ai = await startOpenAiServer();
  });
  afterAll(async () => {
    await ai?.stop();
  });

  it("answers the openai client in the real shape and records the request", async () => {
    ai.respondWith(() => ({ content: "Hello there" }));
    const client = new OpenAI({ apiKey: ai.apiKey, baseURL: ai.url, maxRetries: 0 });
    const png = Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
      "base64",
    );
    const completion = await client.chat.completions.create({
      model: "m-1",
      messages: [
        { role: "system", content: "Be brief." },
        {
          role: "user",
          content: [
            { type: "text", text: "Say hello" },
            { type: "image_url", image_url: { url: `data:image/png;base64,${png.toString("base64")}` } },
            {
              type: "image_url",
              image_url: { url: `data:image/jpeg;base64,${Buffer.from("jpeg").toString("base64")}` },
            },
          ],
        },
      ],
    });
    expect(ai.apiKey).toBe("sk-test-key");
    expect(completion).toMatchObject({
      object: "chat.completion",
      model: "m-1",
      choices: [{ index: 0, message: { role: "assistant", content: "Hello there" }, finish_reason: "stop" }],
      usage: { prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number) },
    });
    expect(completion.id).toMatch(/^chatcmpl-/);
    const [request] = ai.requests;
    expect(request).toMatchObject({ authorization: "Bearer sk-test-key", model: "m-1", status: 200 });
    expect(request.messages.map((m) => [m.role, m.texts])).toEqual([
      ["system", ["Be brief."]],
      ["user", ["Say hello"]],
    ]);
    expect(request.images.map((i) => [i.mediaType, i.isPng])).toEqual([
      ["image/png", true],
      ["image/jpeg", false],
    ]);
    expect(request.images[0].data.equals(png)).toBe(true);
  });

  it("refuses a wrong key with 401, answers 404 elsewhere and plays failures and delays", async () => {
    ai.requests.length = 0;
    const wrong = await fetch(`${ai.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer nope" },
      body: JSON.stringify({ model: "m", messages: [] }),
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: { code: "invalid_api_key", message: expect.any(String) } });
    expect(ai.requests[0]).toMatchObject({ authorization: "Bearer nope", status: 401 });

    const other = await fetch(`${ai.url}/models`);
    expect(other.status).toBe(404);
    expect(other.headers.get("content-type")).toMatch(/json/);
    expect((await other.json()).error.message).toMatch(/Unknown request URL/);

    const client = new OpenAI({ apiKey: ai.apiKey, baseURL: ai.url, maxRetries: 0 });
    ai.respondWith(() => ({ status: 503, content: "overloaded" }));
    await expect(client.chat.completions.create({ model: "m", messages: [] })).rejects.toThrow(/503 overloaded/);
    ai.respondWith(() => ({ content: "late", delayMs: 200 }));
    const t0 = Date.now();
    const late = await client.chat.completions.create({ model: "m", messages: [] });
    expect(late.choices[0].message.content).toBe("late");
    expect(Date.now() - t0).toBeGreaterThanOrEqual(190);
  });
});

/** Jobs with `ai` steps against the test site in real Chromium, through the HTTP API. */
describe("ai steps in Chromium", () => {
  let server: TestServer;
  let site: TestSite;
  let ai: OpenAiServer;
  let providerId: string;
  /** Every text the agent API and the event streams answered, searched for the API key at the end. */
  const seen: string[] = [];

  beforeAll(async () => {
    [server, site, ai] = await Promise.all([
      startTestServer("sqlite"),
      startTestSite(),
      startOpenAiServer({ apiKey: API_KEY }),
    ]);
    const created = await server.admin.post("/ui-api/spaces/default/ai-providers", {
      name: "Fake GPT",
      vendor: "openai-compatible",
      endpoint: ai.url,
      model: MODEL,
      apiKey: API_KEY,
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ name: "Fake GPT", model: MODEL, endpoint: ai.url, apiKeySet: true });
    expect(created.text).not.toContain(API_KEY);
    providerId = created.body.id;
  });
  afterAll(async () => {
    await server?.stop();
    await site?.stop();
    await ai?.stop();
  });
  beforeEach(() => {
    ai.requests.length = 0;
    ai.respondWith(() => ({ content: "OK" }));
  });

  const createJob = async (steps: Record<string, unknown>[], extra: Record<string, unknown> = {}) => {
    const answer = await server.admin.post("/api/spaces/default/jobs", {
      name: "AI job",
      cron: null,
      capture: { steps },
      ...extra,
    });
    expect(answer.status, answer.text).toBe(201);
    seen.push(answer.text);
    return answer.body;
  };

  const run = async (jobId: string) => {
    const stream = await postStream(server.admin, `/api/spaces/default/jobs/${jobId}/run`);
    expect(stream.status).toBe(200);
    expect(stream.end, JSON.stringify(stream.events)).not.toBeNull();
    seen.push(JSON.stringify(stream.events));
    const record = await server.admin.get(`/api/spaces/default/runs/${stream.end.runId}`);
    expect(record.status).toBe(200);
    seen.push(record.text);
    return { stream, end: stream.end, record: record.body, recordText: record.text };
  };

  const tableSteps = [
    { type: "navigate", url: "" }, // filled in by `table()`
    { type: "extract", as: "revenue", selector: "#revenue", parse: "number" },
    { type: "extract", as: "growth", selector: "#growth", parse: "number" },
    { type: "extract", as: "orders", selector: "#orders", attribute: "data-value", parse: "number" },
  ];
  /** navigate to /table, then revenue = 12345.67, growth = 3.4, orders = 777. */
  const table = () => [{ ...tableSteps[0], url: `${site.url}/table` }, ...tableSteps.slice(1)];

  /** The JSON of captured values the user message carries after its prompt. */
  const sentValues = (request: RecordedChatRequest) => {
    const user = request.messages.find((m) => m.role === "user");
    const text = user?.texts.join("\n") ?? "";
    const json = /\{[\s\S]*\}\s*$/.exec(text)?.[0];
    return json ? (JSON.parse(json) as Record<string, unknown>) : undefined;
  };

  it("stores a text answer trimmed, sends only the context asked for, the rendered prompt, key and model", async () => {
    ai.respondWith(() => ({ content: "  Revenue is steady at 12k.\n\n" }));
    const job = await createJob([
      ...table(),
      {
        type: "ai",
        as: "summary",
        providerId,
        prompt: "Summarise revenue of {{ revenue }} for {{ job.name }}.",
        output: "text",
        context: ["revenue"],
      },
    ]);
    const { end, record } = await run(job.id);
    expect(end.error).toBeNull();
    expect(end).toMatchObject({ ok: true, state: "success" });
    expect(end.variables).toEqual({
      revenue: 12345.67,
      growth: 3.4,
      orders: 777,
      summary: "Revenue is steady at 12k.",
    });
    expect(record).toMatchObject({ state: "success", variables: { summary: "Revenue is steady at 12k." } });
    expect(record.steps.at(-1)).toMatchObject({ stepId: job.capture.steps[4].id, type: "ai", state: "done" });

    expect(ai.requests).toHaveLength(1);
    const [request] = ai.requests;
    expect(request.authorization).toBe(`Bearer ${API_KEY}`);
    expect(request.model).toBe(MODEL);
    expect(request.status).toBe(200);
    expect(request.images).toEqual([]);
    const system = request.messages.find((m) => m.role === "system");
    expect(system?.texts.join(" ")).toMatch(/plain text/i);
    // The prompt is rendered: its variables are replaced by their values.
    expect(request.text).toContain("Summarise revenue of 12345.67 for AI job.");
    expect(request.text).not.toContain("{{");
    // Only revenue travels; growth and orders stay home.
    expect(sentValues(request)).toEqual({ revenue: 12345.67 });
    expect(request.text).toContain("12345.67");
    expect(request.text).not.toContain("growth");
    expect(request.text).not.toContain("3.4");
    expect(request.text).not.toContain("orders");
    expect(request.text).not.toContain("777");
  });

  it('sends every variable with context "all" and stores an html answer', async () => {
    const html = "<p>Revenue <strong>€ 12,345.67</strong>, growth <em>+3.4%</em>.</p>";
    ai.respondWith(() => ({ content: `\n${html}\n` }));
    const job = await createJob([
      ...table(),
      { type: "calculate", as: "perOrder", expression: "round(revenue / orders, 2)" },
      { type: "ai", as: "panel", providerId, prompt: "Write a panel.", output: "html", context: "all" },
    ]);
    const { end, record } = await run(job.id);
    expect(end.error).toBeNull();
    expect(end.variables.panel).toBe(html);
    expect(record.variables.panel).toBe(html);
    const [request] = ai.requests;
    expect(sentValues(request)).toEqual({ revenue: 12345.67, growth: 3.4, orders: 777, perOrder: 15.89 });
    expect(request.messages.find((m) => m.role === "system")?.texts.join(" ")).toMatch(/HTML/);
  });

  it('reads a number answer: "About 1,234 errors." becomes 1234', async () => {
    ai.respondWith(() => ({ content: "About 1,234 errors." }));
    const job = await createJob([
      ...table(),
      { type: "ai", as: "errors", providerId, prompt: "How many errors?", output: "number", context: [] },
      { type: "calculate", as: "double", expression: "errors * 2" },
    ]);
    const { end, record } = await run(job.id);
    expect(end.error).toBeNull();
    expect(end.variables).toMatchObject({ errors: 1234, double: 2468 });
    expect(record.variables.errors).toBe(1234);
    const [request] = ai.requests;
    expect(request.messages.find((m) => m.role === "system")?.texts.join(" ")).toMatch(/single number/);
    expect(sentValues(request)).toEqual({});
  });

  it("fails the step, naming it, when a number answer has no number", async () => {
    ai.respondWith(() => ({ content: "I cannot tell from this page." }));
    const job = await createJob([
      ...table(),
      {
        type: "ai",
        label: "Count the errors",
        as: "errors",
        providerId,
        prompt: "How many errors?",
        output: "number",
        context: ["revenue"],
      },
      { type: "snapshot", as: "never" },
    ]);
    const aiStepId = job.capture.steps[4].id;
    const { end, record } = await run(job.id);
    expect(end).toMatchObject({ ok: false, state: "failed" });
    expect(end.error.stepId).toBe(aiStepId);
    expect(end.error.message).toMatch(/Count the errors.*ai.*no number.*I cannot tell/);
    expect(end.variables.errors).toBeUndefined();
    expect(record.error).toEqual(end.error);
    expect(record.steps.find((s: { stepId: string }) => s.stepId === aiStepId)).toMatchObject({ state: "failed" });
    expect(record.steps.at(-1)).toMatchObject({ type: "snapshot", state: "skipped" });
  });

  it("sends the snapshots in context as PNG images only when images is true", async () => {
    const job = await createJob([
      ...table(),
      { type: "snapshot", as: "tableShot", selector: "#revenue-table" },
      { type: "snapshot", as: "pageShot" },
      { type: "ai", as: "withImage", providerId, prompt: "Look.", context: ["tableShot", "revenue"], images: true },
      { type: "ai", as: "noImage", providerId, prompt: "Look.", context: ["tableShot", "revenue"], images: false },
      { type: "ai", as: "notInContext", providerId, prompt: "Look.", context: ["revenue"], images: true },
      { type: "ai", as: "allImages", providerId, prompt: "Look.", context: "all", images: true },
    ]);
    const { end, record } = await run(job.id);
    expect(end.error).toBeNull();
    expect(ai.requests).toHaveLength(4);
    const [withImage, noImage, notInContext, allImages] = ai.requests;

    expect(withImage.images).toHaveLength(1);
    expect(withImage.images[0]).toMatchObject({ mediaType: "image/png", isPng: true });
    // The very PNG the run stored as tableShot.
    const shot = record.snapshots.find((s: { name: string }) => s.name === "tableShot");
    const stored = Buffer.from(await (await fetch(server.url + shot.url)).arrayBuffer());
    expect(withImage.images[0].data.equals(stored)).toBe(true);
    expect(sentValues(withImage)).toEqual({ revenue: 12345.67 });

    expect(noImage.images).toEqual([]);
    expect(notInContext.images).toEqual([]);
    expect(allImages.images).toHaveLength(2);
    for (const image of allImages.images) expect(image.isPng).toBe(true);
    // Images travel as image parts, never inside the text.
    for (const request of ai.requests) expect(request.text).not.toContain("base64");
  });

  it("waits for a slow provider and stops waiting when a test run is cancelled", async () => {
    ai.respondWith(() => ({ content: "slow but fine", delayMs: 300 }));
    const slow = await createJob([{ type: "ai", as: "answer", providerId, prompt: "Hi", context: [] }]);
    const { end } = await run(slow.id);
    expect(end.error).toBeNull();
    expect(end.variables.answer).toBe("slow but fine");
    expect(ai.requests[0].at).toBeGreaterThan(0);

    // A provider that hangs: closing the stream of a test run cancels it and hangs up on the provider.
    ai.requests.length = 0;
    ai.respondWith(() => ({ content: "never", delayMs: 60_000 }));
    let runId: string | undefined;
    const stream = await postStream(
      server.admin,
      "/api/spaces/default/jobs/test",
      { name: "Hanging AI", cron: null, capture: { steps: [{ type: "ai", as: "x", providerId, prompt: "Hi" }] } },
      {
        stopAfter: (event: StreamEvent) => {
          if (event.event === "start") runId = event.data.runId;
          return event.event === "step" && event.data.type === "ai" && event.data.state === "started";
        },
      },
    );
    expect(stream.status).toBe(200);
    expect(runId).toBeDefined();
    await expect.poll(() => ai.requests.length, { timeout: 5000 }).toBe(1);
    await expect.poll(() => ai.requests[0].abandoned, { timeout: 10_000 }).toBe(true);
    await expect
      .poll(async () => (await server.admin.get(`/api/spaces/default/runs/${runId}`)).body.state, { timeout: 10_000 })
      .toBe("failed");
    // No retry after a cancellation.
    expect(ai.requests).toHaveLength(1);
  });

  it("fails the run naming the AI provider when it answers 500, after one retry", async () => {
    ai.respondWith(() => ({ status: 500, content: "The server had an error while processing your request." }));
    const job = await createJob([
      ...table(),
      { type: "ai", as: "summary", providerId, prompt: "Summarise.", context: "all" },
    ]);
    const { end, record } = await run(job.id);
    expect(end).toMatchObject({ ok: false, state: "failed" });
    expect(end.error.stepId).toBe(job.capture.steps[4].id);
    expect(end.error.message).toMatch(/^ai: AI provider Fake GPT: 500 The server had an error/);
    expect(record.error).toEqual(end.error);
    // The client's one retry, no more.
    expect(ai.requests.map((r) => r.status)).toEqual([500, 500]);
    expect(end.variables).toMatchObject({ revenue: 12345.67 });
  });

  it("fails the run naming the AI provider when the key is refused (401), without a retry", async () => {
    const created = await server.admin.post("/ui-api/spaces/default/ai-providers", {
      name: "Wrong Key GPT",
      vendor: "openai-compatible",
      endpoint: ai.url,
      model: MODEL,
      apiKey: WRONG_KEY,
    });
    expect(created.status, created.text).toBe(201);
    const job = await createJob([
      { type: "ai", as: "summary", providerId: created.body.id, prompt: "Summarise.", context: [] },
    ]);
    const { end, record, recordText } = await run(job.id);
    expect(end).toMatchObject({ ok: false, state: "failed" });
    expect(end.error.stepId).toBe(job.capture.steps[0].id);
    expect(end.error.message).toMatch(/AI provider Wrong Key GPT: 401/);
    expect(record.error).toEqual(end.error);
    expect(ai.requests).toHaveLength(1);
    expect(ai.requests[0]).toMatchObject({ authorization: `Bearer ${WRONG_KEY}`, status: 401 });
    expect(recordText).not.toContain(WRONG_KEY);
  });

  it("refuses a provider of another space when the job is saved", async () => {
    const space = await server.admin.post("/ui-api/admin/spaces", { id: "ai-other", name: "AI other" });
    expect(space.status, space.text).toBe(201);
    const foreign = await server.admin.post("/ui-api/spaces/ai-other/ai-providers", {
      name: "Foreign GPT",
      vendor: "openai-compatible",
      endpoint: ai.url,
      model: MODEL,
      apiKey: API_KEY,
    });
    expect(foreign.status, foreign.text).toBe(201);
    const answer = await server.admin.post("/api/spaces/default/jobs", {
      name: "Borrowing",
      cron: null,
      capture: {
        steps: [
          { type: "navigate", url: `${site.url}/table` },
          { type: "ai", as: "summary", providerId, prompt: "Fine: our own provider." },
          { type: "ai", as: "other", providerId: foreign.body.id, prompt: "Not ours." },
          {
            type: "if",
            condition: "true",
            then: [{ type: "ai", as: "nested", providerId: foreign.body.id, prompt: "Not ours either." }],
          },
        ],
      },
    });
    seen.push(answer.text);
    expect(answer.status).toBe(400);
    const issues = answer.body.issues as { path: (string | number)[]; message: string }[];
    expect(issues.map((i) => i.path.join("."))).toEqual([
      "capture.steps.2.providerId",
      "capture.steps.3.then.0.providerId",
    ]);
    expect(issues[0].message).toMatch(/AI provider/);
    // The provider is usable in its own space.
    const own = await server.admin.post("/api/spaces/ai-other/jobs", {
      name: "Own",
      cron: null,
      capture: { steps: [{ type: "ai", as: "other", providerId: foreign.body.id, prompt: "Ours." }] },
    });
    expect(own.status, own.text).toBe(201);
    expect(ai.requests).toHaveLength(0);
  });

  it("fails the run clearly when the provider was deleted after the job was saved", async () => {
    const created = await server.admin.post("/ui-api/spaces/default/ai-providers", {
      name: "Short-lived GPT",
      vendor: "openai-compatible",
      endpoint: ai.url,
      model: MODEL,
      apiKey: API_KEY,
    });
    expect(created.status, created.text).toBe(201);
    const job = await createJob([
      ...table(),
      { type: "ai", as: "summary", providerId: created.body.id, prompt: "Summarise.", context: "all" },
    ]);
    // The API refuses to delete a provider a job uses (409); a race or a restored backup can
    // still leave a job pointing at none, which the repository delete plays here.
    expect((await server.admin.delete(`/ui-api/spaces/default/ai-providers/${created.body.id}`)).status).toBe(409);
    expect(await server.ctx.providers.delete("default", created.body.id)).toBe(true);
    const { end, record } = await run(job.id);
    expect(end).toMatchObject({ ok: false, state: "failed" });
    expect(end.error.stepId).toBe(job.capture.steps[4].id);
    expect(end.error.message).toMatch(/AI provider.*no longer exists/);
    expect(record.error).toEqual(end.error);
    expect(ai.requests).toHaveLength(0);
  });

  // A provider (or proxy) that quotes the key it received must not put the API key into the run
  // record, the run list or the event stream. A provider and a fake server of its own keep this
  // case apart from the broader search of the next test.
  it("keeps the API key out of the run when the provider's error message quotes it", async () => {
    const echoKey = `sk-echo-${randomBytes(12).toString("hex")}`;
    const echo = await startOpenAiServer({ apiKey: echoKey });
    try {
      echo.respondWith((request) => ({ status: 400, content: `Invalid key: ${request.authorization}` }));
      const created = await server.admin.post("/ui-api/spaces/default/ai-providers", {
        name: "Echo GPT",
        vendor: "openai-compatible",
        endpoint: echo.url,
        model: MODEL,
        apiKey: echoKey,
      });
      expect(created.status, created.text).toBe(201);
      const job = await createJob([
        { type: "ai", as: "summary", providerId: created.body.id, prompt: "Summarise.", context: [] },
      ]);
      const { stream, end, recordText } = await run(job.id);
      expect(echo.requests[0].authorization).toBe(`Bearer ${echoKey}`);
      expect(end).toMatchObject({ ok: false, state: "failed" });
      expect(end.error.stepId).toBe(job.capture.steps[0].id);
      expect(end.error.message).toMatch(/AI provider Echo GPT: 400 Invalid key/);
      expect(JSON.stringify(stream.events)).not.toContain(echoKey);
      expect(recordText).not.toContain(echoKey);
    } finally {
      await echo.stop();
    }
  });

  it("never shows the API key in a run record, an event stream or an agent API answer", async () => {
    const job = await createJob([{ type: "ai", as: "summary", providerId, prompt: "Summarise.", context: [] }]);
    await run(job.id);
    for (const path of [
      "/api/spaces/default/ai-providers",
      "/api/spaces/default/jobs",
      `/api/spaces/default/jobs/${job.id}`,
      "/api/spaces/default/runs?limit=100",
      "/api/spaces/ai-other/ai-providers",
      "/api/agent/context",
    ]) {
      const answer = await server.admin.get(path);
      expect(answer.status, path).toBe(200);
      seen.push(answer.text);
    }
    const providers = (await server.admin.get("/api/spaces/default/ai-providers")).body.items;
    expect(providers.find((p: { id: string }) => p.id === providerId)).toMatchObject({ apiKeySet: true });
    // Every stream and answer of this file so far, the failures included.
    expect(seen.length).toBeGreaterThan(20);
    for (const text of seen) {
      expect(text).not.toContain(API_KEY);
      expect(text).not.toContain(WRONG_KEY);
    }
    // The provider did receive it.
    expect(ai.requests[0].authorization).toBe(`Bearer ${API_KEY}`);
  });
});
