import crypto from "node:crypto";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "../helpers/client.js";
import { jobBody, userWithAccess } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { postStream } from "../helpers/sse.js";
import { PNG_1PX, type Recorder, STACK_TRACE, startRecorder } from "./security-helpers.js";

/**
 * Attacks on the capture and its records: job URLs (schemes, credentials, templating), basic auth
 * going only to the navigation's origin (redirects included), secrets in run records, event
 * streams and logs, binding interfaces and providers of another space, and the run files route.
 */

const BASIC_PW = `basic-pw-${crypto.randomBytes(6).toString("hex")}`;
const TYPE_PW = `type-pw-${crypto.randomBytes(6).toString("hex")}`;
const QUERY_TOKEN = `qtoken${crypto.randomBytes(6).toString("hex")}`;
const HEADER_SECRET = `hdr-${crypto.randomBytes(6).toString("hex")}`;
const SMTP_PW = `smtp-pw-${crypto.randomBytes(6).toString("hex")}`;
const AI_KEY = `sk-wrong-${crypto.randomBytes(6).toString("hex")}`;

describe("security: capture URLs, basic auth, secrets in records, space bindings, run files (sqlite)", () => {
  let server: TestServer;
  const logs: string[] = [];
  /** The navigation's origin: pages, redirects to `other`, an element that is not an input. */
  let site: Recorder;
  /** Another origin (another port): must never see the basic-auth header. */
  let other: Recorder;
  /** A webhook receiver that quotes what it was sent in its error answer. */
  let hook: Recorder;
  /** An OpenAI-compatible endpoint that quotes the key it was given. */
  let ai: Recorder;
  let smtp: SMTPServer;
  let smtpPort: number;

  beforeAll(async () => {
    other = await startRecorder((req, res) => {
      if (req.url?.startsWith("/pixel.png")) return res.writeHead(200, { "content-type": "image/png" }).end(PNG_1PX);
      res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><p id=landed>landed</p>");
    });
    site = await startRecorder((req, res) => {
      const url = req.url ?? "/";
      if (url.startsWith("/to-other")) return res.writeHead(302, { location: `${other.url}/landing` }).end();
      if (url.startsWith("/to-localhost"))
        return res.writeHead(302, { location: `http://localhost:${site.port}/landing-localhost` }).end();
      if (url.startsWith("/creds"))
        return res
          .writeHead(200, { "content-type": "text/html" })
          .end(
            `<!doctype html><p id=target>u:leaked-pw@127.0.0.1:${other.port}</p><p id=tricky>u\t:leaked-pw\n@127.0.0.1:${other.port}</p><p id=at>evil.example@127.0.0.1:${other.port}</p>`,
          );
      if (url.startsWith("/embeds"))
        return res
          .writeHead(200, { "content-type": "text/html" })
          .end(
            `<!doctype html><p id=v>42</p><img src="${other.url}/pixel.png"><iframe src="${other.url}/frame"></iframe><script>fetch("${other.url}/fetched")</script>`,
          );
      res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><p id=v>42</p><input id=field>");
    });
    hook = await startRecorder((req, res) => {
      // A receiver that quotes the request it refused, as many APIs do.
      res
        .writeHead(500, { "content-type": "text/plain" })
        .end(`refused ${req.url} with key ${req.headers["x-api-key"]} and ${req.headers.authorization}`);
    });
    ai = await startRecorder((req, res) => {
      res.writeHead(401, { "content-type": "application/json" }).end(
        JSON.stringify({
          error: { message: `Incorrect API key provided: ${req.headers.authorization}`, type: "invalid_request_error" },
        }),
      );
    });
    smtp = new SMTPServer({
      authOptional: false,
      allowInsecureAuth: true,
      disabledCommands: ["STARTTLS"],
      logger: false,
      onAuth(auth, _session, callback) {
        callback(new Error(`authentication failed for ${auth.username} with password ${auth.password}`));
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
    smtpPort = (smtp.server.address() as { port: number }).port;
    server = await startTestServer("sqlite", {}, { onLog: (line) => logs.push(JSON.stringify(line)) });
  });
  afterAll(async () => {
    await server?.stop();
    await Promise.all([site?.stop(), other?.stop(), hook?.stop(), ai?.stop()]);
    await new Promise<void>((resolve) => (smtp ? smtp.close(() => resolve()) : resolve()));
  });

  const createJob = async (body: Record<string, unknown>, client: Client = server.admin, space = "default") => {
    const answer = await client.post(`/api/spaces/${space}/jobs`, jobBody({ cron: null, ...body } as never));
    expect(answer.status, answer.text).toBe(201);
    return answer.body as { id: string };
  };
  const runJob = (id: string, client: Client = server.admin, space = "default") =>
    postStream(client, `/api/spaces/${space}/jobs/${id}/run`, {}, { timeoutMs: 45_000 });

  describe("rule 1: job URLs are http(s) only, without credentials", () => {
    const BAD_URLS = [
      "file:///etc/passwd",
      "FILE:///etc/passwd",
      "javascript:alert(1)",
      "JavaScript:fetch('http://127.0.0.1/')",
      "data:text/html,<script>alert(1)</script>",
      "ftp://example.com/x",
      "chrome://settings",
      "view-source:https://example.com/",
      "blob:https://example.com/x",
      " javascript:alert(1)",
      "\tjavascript:alert(1)",
      "HTTPS://user:pass@example.com/",
      "https://user@example.com/",
      "https://:pass@example.com/",
      "https://user:pass@example.com:8443/x",
      "https://example.com@127.0.0.1/",
      "https://u%3Ap@example.com/",
      "\thttps://u:p@example.com/",
      " https://u:p@example.com/",
      "https://u:p\n@example.com/",
      "https:\\\\u:p@example.com/",
      "https:/\\u:p@example.com/",
      "https://u:p@[::1]/",
      "https://{{ user }}:{{ password }}@example.com/",
      "https://{{ user }}@example.com/",
      "{{ scheme }}://example.com/",
      "h{{ x }}ttps://example.com/",
      "https://example.com/{% include 'x' %}",
      "http://",
    ];

    it("refuses bad URLs at save in navigate steps, image blocks and interfaces", async () => {
      for (const url of BAD_URLS) {
        const job = await server.admin.post(
          "/api/spaces/default/jobs",
          jobBody({ cron: null, capture: { steps: [{ type: "navigate", url }] } } as never),
        );
        expect(job.status, `navigate ${JSON.stringify(url)}`).toBe(400);
        expect(job.body.issues[0].path).toEqual(["capture", "steps", 0, "url"]);
        const image = await server.admin.post(
          "/api/spaces/default/jobs",
          jobBody({
            cron: null,
            report: { pages: [{ rows: [{ cells: [{ blocks: [{ type: "image", url }] }] }] }] },
          } as never),
        );
        expect(image.status, `image ${JSON.stringify(url)}`).toBe(400);
        const hookAnswer = await server.admin.post("/ui-api/spaces/default/delivery-interfaces", {
          name: "bad",
          type: "webhook",
          config: { url },
        });
        expect(hookAnswer.status, `webhook ${JSON.stringify(url)}`).toBe(400);
        for (const path of ["/api/spaces/default/jobs/preview", "/api/spaces/default/jobs/test"]) {
          const stream = await postStream(
            server.admin,
            path,
            jobBody({ cron: null, capture: { steps: [{ type: "navigate", url }] } } as never),
          );
          expect(stream.status, `${path} ${JSON.stringify(url)}`).toBe(400);
        }
      }
    });

    it("refuses credentials that templating puts into a URL at run time; nothing reaches the host", async () => {
      other.requests.length = 0;
      const cases = [
        // A Liquid literal: the saved URL has no credentials, the rendered one has.
        { steps: [{ type: "navigate", url: `http://{{ "u:leaked-pw@127.0.0.1" }}:${other.port}/literal` }] },
        // Values read from a page.
        ...["target", "tricky", "at"].map((id) => ({
          steps: [
            { type: "navigate", url: `${site.url}/creds` },
            { type: "extract", as: "t", selector: `#${id}` },
            { type: "navigate", url: "http://{{ t }}/from-page" },
          ],
        })),
      ];
      for (const capture of cases) {
        const job = await createJob({ capture });
        const { end } = await runJob(job.id);
        expect(end.state, JSON.stringify(capture)).toBe("failed");
        expect(end.error.message).toMatch(/credentials|not a valid URL/);
      }
      expect(other.requests).toEqual([]);
    });
  });

  describe("rule 1: basic auth goes only to the navigation's origin", () => {
    it("never sends it to images, frames or scripts of another origin", async () => {
      site.requests.length = 0;
      other.requests.length = 0;
      const job = await createJob({
        capture: {
          auth: { type: "basic", username: "svc", password: BASIC_PW },
          steps: [
            { type: "navigate", url: `${site.url}/embeds`, waitUntil: "networkidle" },
            { type: "extract", as: "v", selector: "#v" },
          ],
        },
      });
      const { end } = await runJob(job.id);
      expect(end.state).toBe("success");
      expect(site.requests.find((r) => r.path === "/embeds")?.headers.authorization).toMatch(/^Basic /);
      expect(other.requests.length).toBeGreaterThanOrEqual(2);
      for (const r of other.requests) expect(r.headers.authorization, r.path).toBeUndefined();
    });

    it("never sends it after a redirect from the origin to another origin (another port)", async () => {
      site.requests.length = 0;
      other.requests.length = 0;
      const job = await createJob({
        capture: {
          auth: { type: "basic", username: "svc", password: BASIC_PW },
          steps: [
            { type: "navigate", url: `${site.url}/to-other` },
            { type: "extract", as: "v", selector: "#landed" },
          ],
        },
      });
      const { end } = await runJob(job.id);
      expect(end.state).toBe("success");
      expect(site.requests.find((r) => r.path === "/to-other")?.headers.authorization).toMatch(/^Basic /);
      const landing = other.requests.find((r) => r.path === "/landing");
      expect(landing).toBeDefined();
      // The other origin must not learn the capture's password.
      expect(landing?.headers.authorization).toBeUndefined();
    });

    it("never sends it after a redirect to another host name of the same port (127.0.0.1 → localhost)", async () => {
      site.requests.length = 0;
      const job = await createJob({
        capture: {
          auth: { type: "basic", username: "svc", password: BASIC_PW },
          steps: [{ type: "navigate", url: `${site.url}/to-localhost` }],
        },
      });
      await runJob(job.id);
      const landing = site.requests.find((r) => r.path === "/landing-localhost");
      expect(landing?.host).toBe(`localhost:${site.port}`);
      expect(landing?.headers.authorization).toBeUndefined();
    });
  });

  describe("rule 3: no capture password or interface secret in records, streams or logs", () => {
    const everything = async (runId: string | null, streamText: string) => {
      const parts = [streamText, logs.join("\n")];
      if (runId) parts.push((await server.admin.get(`/api/spaces/default/runs/${runId}`)).text);
      parts.push((await server.admin.get("/api/spaces/default/runs?limit=200")).text);
      parts.push((await server.admin.get("/guest/api/health")).text);
      return parts.join("\n");
    };

    it("keeps basic-auth and sensitive type texts out of failed runs, tests and previews", async () => {
      const captures = [
        // A sensitive text into a selector that does not exist.
        [
          { type: "navigate", url: `${site.url}/` },
          { type: "type", selector: "#nope", text: TYPE_PW, sensitive: true, timeoutMs: 300 },
        ],
        // Into an element that is not an input (Playwright's error quotes its call log).
        [
          { type: "navigate", url: `${site.url}/` },
          { type: "type", selector: "#v", text: TYPE_PW, sensitive: true, timeoutMs: 300 },
        ],
        // Typed fine, then a later step fails.
        [
          { type: "navigate", url: `${site.url}/` },
          { type: "type", selector: "#field", text: TYPE_PW, sensitive: true, timeoutMs: 2000 },
          { type: "waitForText", text: "never there", timeoutMs: 300 },
        ],
        // A selector that is invalid once the sensitive text is typed into an input named after it.
        [
          { type: "navigate", url: `${site.url}/` },
          { type: "type", selector: "#field >> nth=oops", text: TYPE_PW, sensitive: true, timeoutMs: 300 },
        ],
      ];
      for (const steps of captures) {
        const capture = { auth: { type: "basic", username: "svc", password: BASIC_PW }, steps };
        const job = await createJob({ capture });
        const run = await runJob(job.id);
        expect(run.end.state).toBe("failed");
        const test = await postStream(
          server.admin,
          "/api/spaces/default/jobs/test",
          jobBody({ cron: null, capture } as never),
        );
        const preview = await postStream(
          server.admin,
          "/api/spaces/default/jobs/preview",
          jobBody({ cron: null, capture } as never),
        );
        for (const [stream, runId] of [
          [run, run.end.runId],
          [test, test.end?.runId],
          [preview, null],
        ] as const) {
          const text = await everything(runId, JSON.stringify(stream.events));
          expect(text).not.toContain(BASIC_PW);
          expect(text).not.toContain(TYPE_PW);
          expect(text).not.toContain(Buffer.from(`svc:${BASIC_PW}`).toString("base64"));
        }
      }
    });

    it("redacts a webhook's header secret and an SMTP password that the receiver quotes", async () => {
      const webhook = await server.admin.post("/ui-api/spaces/default/delivery-interfaces", {
        name: "quoting hook",
        type: "webhook",
        config: {
          url: `${hook.url}/hook`,
          headers: { "X-Api-Key": HEADER_SECRET, Authorization: `Bearer ${HEADER_SECRET}z` },
        },
      });
      const mail = await server.admin.post("/ui-api/spaces/default/delivery-interfaces", {
        name: "quoting smtp",
        type: "smtp",
        config: {
          host: "127.0.0.1",
          port: smtpPort,
          security: "none",
          username: "mailer",
          password: SMTP_PW,
          from: "r@example.com",
        },
      });
      expect(webhook.status, webhook.text).toBe(201);
      expect(mail.status, mail.text).toBe(201);
      const job = await createJob({
        capture: { steps: [{ type: "navigate", url: `${site.url}/` }] },
        deliveries: [
          { interfaceId: webhook.body.id, message: "hello" },
          { interfaceId: mail.body.id, recipients: ["ops@example.com"], subject: "s", message: "m", attach: "none" },
        ],
      });
      const run = await runJob(job.id);
      expect(run.end.state).toBe("failed");
      expect(hook.requests.length).toBeGreaterThan(0);
      const tested = await server.admin.post(`/ui-api/spaces/default/delivery-interfaces/${webhook.body.id}/test`, {});
      const testedMail = await server.admin.post(`/ui-api/spaces/default/delivery-interfaces/${mail.body.id}/test`, {
        recipients: ["ops@example.com"],
      });
      const text = `${await everything(run.end.runId, JSON.stringify(run.events))}\n${tested.text}\n${testedMail.text}`;
      expect(text).not.toContain(HEADER_SECRET);
      expect(text).not.toContain(SMTP_PW);
    });

    it("redacts a webhook URL's query token that the receiver quotes", async () => {
      const webhook = await server.admin.post("/ui-api/spaces/default/delivery-interfaces", {
        name: "token hook",
        type: "webhook",
        config: { url: `${hook.url}/hook?token=${QUERY_TOKEN}` },
      });
      expect(webhook.status, webhook.text).toBe(201);
      const job = await createJob({
        capture: { steps: [{ type: "navigate", url: `${site.url}/` }] },
        deliveries: [{ interfaceId: webhook.body.id, message: "hello" }],
      });
      const run = await runJob(job.id);
      expect(run.end.state).toBe("failed");
      // The URL is a secret (write-only, reads show its host only); a ro member reads the run.
      const reader = await userWithAccess(server, "ro");
      const read = await reader.client.get(`/api/spaces/default/runs/${run.end.runId}`);
      expect(JSON.stringify(run.events)).not.toContain(QUERY_TOKEN);
      expect(read.text).not.toContain(QUERY_TOKEN);
    });

    it("redacts an AI provider key that the provider quotes", async () => {
      const provider = await server.admin.post("/ui-api/spaces/default/ai-providers", {
        name: "quoting AI",
        vendor: "openai-compatible",
        endpoint: `${ai.url}/v1`,
        model: "m",
        apiKey: AI_KEY,
      });
      expect(provider.status, provider.text).toBe(201);
      const job = await createJob({
        capture: {
          steps: [
            { type: "navigate", url: `${site.url}/` },
            {
              type: "ai",
              as: "answer",
              providerId: provider.body.id,
              prompt: "say hi",
              output: "text",
              context: "all",
            },
          ],
        },
      });
      const run = await runJob(job.id);
      expect(run.end.state).toBe("failed");
      expect(ai.requests.length).toBeGreaterThan(0);
      const text = await everything(run.end.runId, JSON.stringify(run.events));
      expect(text).not.toContain(AI_KEY);
    });
  });

  describe("rule 5: a job binds only interfaces and AI providers of its own space", () => {
    let foreign: { iface: string; provider: string };
    let rwOther: Client;
    beforeAll(async () => {
      rwOther = (await userWithAccess(server, "rw", "other")).client;
      const iface = await server.admin.post("/ui-api/spaces/other/delivery-interfaces", {
        name: "other hook",
        type: "webhook",
        config: { url: `${hook.url}/other` },
      });
      const provider = await server.admin.post("/ui-api/spaces/other/ai-providers", {
        name: "other AI",
        vendor: "openai-compatible",
        endpoint: `${ai.url}/v1`,
        model: "m",
        apiKey: "k-other",
      });
      expect(iface.status).toBe(201);
      expect(provider.status).toBe(201);
      foreign = { iface: iface.body.id, provider: provider.body.id };
    });

    const withForeign = () =>
      jobBody({
        cron: null,
        capture: {
          steps: [
            { type: "navigate", url: `${site.url}/` },
            {
              type: "if",
              condition: "1 > 0",
              then: [
                {
                  type: "if",
                  condition: "1 > 0",
                  then: [
                    { type: "ai", as: "a", providerId: foreign.provider, prompt: "p", output: "text", context: "all" },
                  ],
                },
              ],
            },
          ],
        },
        deliveries: [{ interfaceId: foreign.iface, message: "x" }],
      } as never);

    it("refuses them on POST, PUT, test and preview, with every field named", async () => {
      const created = await server.admin.post("/api/spaces/default/jobs", withForeign());
      expect(created.status).toBe(400);
      const paths = created.body.issues.map((i: { path: unknown[] }) => i.path.join("."));
      expect(paths).toContain("deliveries.0.interfaceId");
      expect(paths).toContain("capture.steps.1.then.0.then.0.providerId");
      const job = await createJob({ capture: { steps: [{ type: "navigate", url: `${site.url}/` }] } });
      expect((await server.admin.put(`/api/spaces/default/jobs/${job.id}`, withForeign())).status).toBe(400);
      for (const p of ["test", "preview"]) {
        const stream = await postStream(server.admin, `/api/spaces/default/jobs/${p}`, {
          ...withForeign(),
          deliver: true,
        });
        expect(stream.status, p).toBe(400);
      }
      expect(hook.requests.some((r) => r.path === "/other")).toBe(false);
    });

    it("refuses them when a blueprint that names them is made into a job", async () => {
      const blueprint = await server.admin.post("/api/spaces/default/blueprints", {
        name: "foreign bp",
        description: "",
        job: withForeign(),
      });
      expect([201, 400]).toContain(blueprint.status);
      if (blueprint.status === 201) {
        const made = await server.admin.post("/api/spaces/default/jobs", blueprint.body.job);
        expect(made.status).toBe(400);
      }
    });

    it("a test run in another space cannot pose as a job of this space (its body id is ignored)", async () => {
      // A job of `default` that reports at most once an hour.
      const victimHook = await server.admin.post("/ui-api/spaces/default/delivery-interfaces", {
        name: "victim hook",
        type: "webhook",
        config: { url: `${other.url}/victim-hook` },
      });
      const victim = await createJob({
        capture: { steps: [{ type: "navigate", url: `${site.url}/` }] },
        notify: { minIntervalMinutes: 60 },
        deliveries: [{ interfaceId: victimHook.body.id, message: "victim report" }],
      });
      // A rw member of `other` (no access to `default`) sends a test with the victim's id.
      const otherHook = await server.admin.post("/ui-api/spaces/other/delivery-interfaces", {
        name: "ok hook",
        type: "webhook",
        config: { url: `${other.url}/attacker-hook` },
      });
      const test = await postStream(rwOther, "/api/spaces/other/jobs/test", {
        ...jobBody({
          cron: null,
          capture: { steps: [{ type: "navigate", url: `${site.url}/` }] },
          deliveries: [{ interfaceId: otherHook.body.id, message: "x" }],
        } as never),
        id: victim.id,
        deliver: true,
      });
      expect(test.end.state).toBe("success");
      other.requests.length = 0;
      const run = await runJob(victim.id);
      // The victim's report must reach its hook: the other space's test is not its delivery.
      expect(run.end.deliveries.map((d: { state: string }) => d.state)).toEqual(["sent"]);
      expect(other.requests.some((r) => r.path === "/victim-hook")).toBe(true);
    });
  });

  describe("rule 6: ids in run-file paths are validated; tokens belong to their run", () => {
    let a: { id: string; token: string };
    let b: { id: string; token: string };
    beforeAll(async () => {
      const job = await createJob({
        capture: {
          steps: [
            { type: "navigate", url: `${site.url}/` },
            { type: "snapshot", as: "shot" },
          ],
        },
      });
      const runs = [await runJob(job.id), await runJob(job.id)];
      [a, b] = runs.map((r) => {
        const url = r.end.snapshots[0].url as string;
        return { id: r.end.runId, token: new URL(url, server.url).searchParams.get("token") ?? "" };
      });
    });

    it("serves a run's file with its own token only", async () => {
      const anonymous = server.client();
      const ok = await anonymous.get(`/files/runs/${a.id}/shot.png?token=${a.token}`);
      expect(ok.status).toBe(200);
      const html = await anonymous.get(`/files/runs/${a.id}/report.html?token=${a.token}`);
      expect(html.status).toBe(200);
      expect(html.headers.get("content-security-policy")).toMatch(/default-src 'none'/);
      expect(html.headers.get("content-security-policy")).toMatch(/sandbox/);
      const denied = [
        `/files/runs/${b.id}/shot.png?token=${a.token}`,
        `/files/runs/${crypto.randomUUID()}/shot.png?token=${a.token}`,
        `/files/runs/${a.id}/shot.png`,
        `/files/runs/${a.id}/shot.png?token=`,
        `/files/runs/${a.id}/shot.png?token=${a.token.slice(0, -1)}`,
        `/files/runs/${a.id}/shot.png?token=${a.token}x`,
        `/files/runs/${a.id}/shot.png?token=${a.token.toUpperCase()}`,
        `/files/runs/${a.id}/shot.png?token=${b.token}&token=${a.token}`,
        `/files/runs/${a.id}/shot.png?token[]=${a.token}`,
        `/files/runs/${a.id.toUpperCase()}/shot.png?token=${b.token}`,
      ];
      for (const p of denied) {
        const answer = await anonymous.get(p);
        expect(answer.status, p).toBe(404);
        expect(answer.body).toEqual({ error: "not_found" });
      }
      // A session without access to the space does not open it either; a ro member's does.
      const outsider = (await userWithAccess(server, null)).client;
      expect((await outsider.get(`/files/runs/${a.id}/shot.png`)).status).toBe(404);
      const reader = (await userWithAccess(server, "ro")).client;
      expect((await reader.get(`/files/runs/${a.id}/shot.png`)).status).toBe(200);
    });

    it("refuses traversal, encoded slashes, backslashes, absolute paths and overlong names", async () => {
      const t = `?token=${a.token}`;
      const tries = [
        `/files/runs/${a.id}/..%2f..%2fsecret.key${t}`,
        `/files/runs/${a.id}/..%2F..%2F..%2Fpagewright.db${t}`,
        `/files/runs/${a.id}/..%5c..%5csecret.key${t}`,
        `/files/runs/${a.id}/%2e%2e%2fsecret.key${t}`,
        `/files/runs/${a.id}/%2fetc%2fpasswd${t}`,
        `/files/runs/${a.id}/%2Fetc%2Fpasswd.png${t}`,
        `/files/runs/${a.id}/shot.png%00.html${t}`,
        `/files/runs/${a.id}/shot.png%2f..%2f..%2f${b.id}%2fshot.png${t}`,
        `/files/runs/${a.id}%2f..%2f${b.id}/shot.png${t}`,
        `/files/runs/..%2f..%2fsecret.key/shot.png${t}`,
        `/files/runs/${a.id}/${"a".repeat(65)}.png${t}`,
        `/files/runs/${a.id}/${"a".repeat(5000)}.png${t}`,
        `/files/runs/${a.id}/.png${t}`,
        `/files/runs/${a.id}/shot.PNG${t}`,
        `/files/runs/${a.id}/shot.png.txt${t}`,
        `/files/runs/${a.id}/shot.svg${t}`,
        `/files/runs/${a.id}/C:%5cwindows%5cwin.ini${t}`,
        `/files/runs/${a.id}/~%2f.ssh%2fid_rsa${t}`,
        `/files/runs/${"0".repeat(36)}/shot.png${t}`,
      ];
      for (const p of tries) {
        const answer = await server.admin.get(p);
        expect(answer.status, p).toBe(404);
        expect(answer.text).not.toMatch(STACK_TRACE);
        expect(answer.text).not.toContain("test-secret-key");
        expect(answer.text).not.toContain("SQLite format");
      }
    });
  });
});
