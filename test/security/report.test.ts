import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findChromium } from "../../src/capture/chromium.js";
import { jobBody } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { postStream } from "../helpers/sse.js";
import { PNG_1PX, type Recorder, slowestAnswerWhile, startRecorder } from "./security-helpers.js";

/**
 * Attacks on the report renderer (no loopback/private/link-local loads unless allowed, no page
 * script, nothing reaches a local server while a hostile report is composed, printed or opened)
 * and on Liquid (no file access at save or at render time; time and memory limits in reports).
 */

describe("security: the report renderer and Liquid in reports (sqlite)", () => {
  let server: TestServer;
  /** Serves the captured page; its texts look like templates. */
  let page: Recorder;
  /** Every URL of the hostile report points here: it must see nothing. */
  let target: Recorder;
  /** Allowed through REPORT_ALLOWED_HOSTS on the second server: the positive control. */
  let allowed: Recorder;
  /** Allowed too, but redirects to the loopback target. */
  let redirector: Recorder;
  /** A server that allows `allowed` and `redirector`. */
  let permissive: TestServer;

  beforeAll(async () => {
    const image = (_req: unknown, res: import("node:http").ServerResponse) =>
      res.writeHead(200, { "content-type": "image/png" }).end(PNG_1PX);
    [page, target, allowed] = await Promise.all([
      startRecorder((_req, res) =>
        res
          .writeHead(200, { "content-type": "text/html" })
          .end(
            `<!doctype html><p id=inc>{% include '/etc/passwd' %}</p><p id=calc>{{ 7 | times: 6 }}</p><p id=rend>{% render 'secret.key' %}</p><input id=field>`,
          ),
      ),
      startRecorder(image),
      startRecorder(image),
    ]);
    redirector = await startRecorder((_req, res) =>
      res.writeHead(302, { location: `http://localhost:${target.port}/via-redirect.png` }).end(),
    );
    [server, permissive] = await Promise.all([
      startTestServer("sqlite"),
      startTestServer("sqlite", {
        REPORT_ALLOWED_HOSTS: `localhost:${allowed.port},127.0.0.1:${redirector.port}`,
      }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([server?.stop(), permissive?.stop()]);
    await Promise.all([page?.stop(), target?.stop(), allowed?.stop(), redirector?.stop()]);
  });

  const reportOf = (blocks: unknown[]) => ({
    pages: [{ rows: blocks.map((block) => ({ cells: [{ blocks: [block] }] })) }],
  });
  const runTest = (s: TestServer, body: Record<string, unknown>) =>
    postStream(s.admin, "/api/spaces/default/jobs/test", jobBody({ cron: null, ...body } as never), {
      timeoutMs: 50_000,
    });
  const filesOf = async (s: TestServer, runId: string) => {
    const run = (await s.admin.get(`/api/spaces/default/runs/${runId}`)).body;
    return Object.fromEntries(run.files.map((f: { name: string; url: string }) => [f.name, f.url])) as Record<
      string,
      string
    >;
  };

  const targetHost = () => `127.0.0.1:${target.port}`;
  const loopbackImages = () => [
    `http://${targetHost()}/literal.png`,
    `http://localhost:${target.port}/localhost.png`,
    `http://LOCALHOST:${target.port}/upper.png`,
    `http://localhost.:${target.port}/dot.png`,
    `http://[::1]:${target.port}/v6.png`,
    `http://[::ffff:127.0.0.1]:${target.port}/mapped.png`,
    `http://[::ffff:7f00:1]:${target.port}/mapped-hex.png`,
    `http://2130706433:${target.port}/decimal.png`,
    `http://0x7f.1:${target.port}/hex.png`,
    `http://127.1:${target.port}/short.png`,
    `http://0.0.0.0:${target.port}/zero.png`,
    `http://0:${target.port}/zero-short.png`,
    "http://169.254.169.254/latest/meta-data/",
    "http://10.0.0.1/private.png",
    "http://192.168.1.1/private.png",
    "http://[fe80::1]/link-local.png",
    "http://[fd00::1]/ula.png",
  ];
  const hostileText = () => {
    const u = `http://${targetHost()}`;
    return [
      `![md](${u}/markdown.png)`,
      `![md2](http://localhost:${target.port}/markdown-localhost.png "t")`,
      `<img src="${u}/img.png">`,
      `<IMG SRC=${u}/img-upper.png>`,
      `<img src="data:image/png;base64,iVBORw0KGgo=" srcset="${u}/srcset.png 2x">`,
      `<img srcset="${u}/srcset-only.png 1x">`,
      `<picture><source srcset="${u}/source.png"><img src="data:image/png;base64,iVBORw0KGgo="></picture>`,
      `<iframe src="${u}/iframe"></iframe>`,
      `<object data="${u}/object"></object>`,
      `<embed src="${u}/embed">`,
      `<div style="background-image: url('${u}/css-url.png')">css</div>`,
      `<div style="background: url(${u}/css-url2.png)">css2</div>`,
      `<style>@import url("${u}/import.css"); body { background: url(${u}/style-bg.png) }</style>`,
      `<link rel="stylesheet" href="${u}/link.css">`,
      `<link rel="prefetch" href="${u}/prefetch">`,
      `<meta http-equiv="refresh" content="0; url=${u}/refresh">`,
      `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><image href="${u}/svg-image.png" width="10" height="10"/><image xlink:href="${u}/svg-xlink.png"/><use href="${u}/svg-use.svg#x"/></svg>`,
      `<video poster="${u}/poster.png" src="${u}/video.mp4"></video>`,
      `<audio src="${u}/audio.mp3" autoplay></audio>`,
      `<input type="image" src="${u}/input.png">`,
      `<table background="${u}/table-bg.png"><tr><td>t</td></tr></table>`,
      `<body background="${u}/body-bg.png">`,
      `<script>fetch("${u}/script")</script>`,
      `<scr<script>ipt>fetch("${u}/split-script")</script>`,
      `<img src=x onerror="fetch('${u}/onerror')">`,
      `<img/src=x/onerror=fetch('${u}/onerror-slash')>`,
      `<svg onload="fetch('${u}/svg-onload')"></svg>`,
      `<body onload="fetch('${u}/body-onload')">`,
      `<a href="javascript:fetch('${u}/js-href')" id=a>a</a>`,
      `<form action="${u}/form"><button>go</button></form>`,
      `<base href="${u}/base/"><img src="relative.png">`,
      `<math><mtext><img src="${u}/math.png"></mtext></math>`,
      `<noscript><img src="${u}/noscript.png"></noscript>`,
      `<template><img src="${u}/template.png"></template>`,
      `<div id=x style="behavior: url(${u}/htc); -webkit-mask-image: url(${u}/mask.png)">m</div>`,
      `<p style="font-family: x; src: url(${u}/font.woff)">f</p>`,
      `<style>@font-face { font-family: evil; src: url(${u}/font-face.woff) } p { font-family: evil }</style>`,
    ].join("\n\n");
  };

  it("loads no loopback, private or link-local address for image and text blocks; no script runs; nothing reaches a local server while composing, printing or opening the report", async () => {
    target.requests.length = 0;
    const { end } = await runTest(server, {
      capture: {
        steps: [
          { type: "navigate", url: `${page.url}/` },
          { type: "snapshot", as: "shot" },
        ],
      },
      report: reportOf([
        ...loopbackImages().map((url) => ({ type: "image", url })),
        { type: "text", content: hostileText() },
        { type: "snapshot", ref: "shot" },
      ]),
    });
    // A refused image fails its block: the run fails and delivers nothing, but keeps its report.
    expect(end.state).toBe("failed");
    expect(end.error.message).toMatch(/refused/);
    const files = await filesOf(server, end.runId);
    const html = await server.client().get(files["report.html"]);
    expect(html.status).toBe(200);
    expect(html.text).toMatch(/loopback address/);
    const body = html.text.slice(html.text.indexOf("<body"));
    expect(body).not.toMatch(/<script/i);
    expect(body).not.toMatch(/<iframe|<object|<embed|<link|<meta|<base /i);
    expect(body).not.toMatch(/\sonerror\s*=|\sonload\s*=/i);
    // The PDF is printed from this HTML on the first request of its link.
    const pdf = await server.client().get(files["report.pdf"]);
    expect(pdf.status).toBe(200);
    // Opening the report in a browser (scripts on) loads nothing either: its CSP forbids it.
    const { chromium } = await import("playwright-core");
    const browser = await chromium.launch({ executablePath: findChromium(undefined), args: ["--no-sandbox"] });
    try {
      const tab = await browser.newPage();
      await tab.goto(`${server.url}${files["report.html"]}`, { waitUntil: "load" });
      await tab.waitForTimeout(300);
      await tab.click("#a").catch(() => undefined);
      await tab.waitForTimeout(200);
    } finally {
      await browser.close();
    }
    await new Promise((r) => setTimeout(r, 200));
    expect(target.requests.map((r) => r.path)).toEqual([]);
  });

  it("allows a loopback host listed in REPORT_ALLOWED_HOSTS, and only that host and port", async () => {
    allowed.requests.length = 0;
    target.requests.length = 0;
    const ok = await runTest(permissive, {
      capture: { steps: [{ type: "navigate", url: `${page.url}/` }] },
      report: reportOf([{ type: "image", url: `http://localhost:${allowed.port}/allowed.png` }]),
    });
    expect(ok.end.state).toBe("success");
    expect(allowed.requests.map((r) => r.path)).toEqual(["/allowed.png"]);
    // Another port of the same host, the same port under another name, and an allowed host that
    // redirects to a refused one: all refused.
    const refused = await runTest(permissive, {
      capture: { steps: [{ type: "navigate", url: `${page.url}/` }] },
      report: reportOf([
        { type: "image", url: `http://localhost:${target.port}/other-port.png` },
        { type: "image", url: `http://127.0.0.1:${allowed.port}/other-name.png` },
        { type: "image", url: `http://127.0.0.1:${redirector.port}/redirect.png` },
        { type: "text", content: `<img src="http://localhost:${target.port}/text-other-port.png">` },
      ]),
    });
    expect(refused.end.state).toBe("failed");
    expect(redirector.requests.length).toBe(1);
    expect(allowed.requests.map((r) => r.path)).toEqual(["/allowed.png"]);
    expect(target.requests).toEqual([]);
  });

  it("refuses include, render and layout at save, in every template field", async () => {
    const hostile = [
      "{% include '/etc/passwd' %}",
      '{%- render "secret.key" -%}',
      "{% layout 'x' %}",
      "{% liquid include 'x' %}",
      "{% liquid\n  render 'x'\n%}",
      "{% raw %}ok{% endraw %}{% include 'x' %}",
      "{% if true %}{% include 'x' %}{% endif %}",
      "{% for i in (1..2) %}{% render 'x' with i %}{% endfor %}",
      "{% capture c %}{% include 'x' %}{% endcapture %}{{ c }}",
    ];
    const fields = (t: string): Record<string, unknown>[] => [
      { report: { title: t, pages: reportOf([{ type: "divider" }]).pages } },
      { report: reportOf([{ type: "text", content: t }]) },
      {
        capture: {
          steps: [
            { type: "navigate", url: "https://example.com/" },
            { type: "snapshot", as: "s" },
          ],
        },
        report: reportOf([{ type: "snapshot", ref: "s", caption: t }]),
      },
      { capture: { steps: [{ type: "navigate", url: `https://example.com/${t}` }] } },
      {
        capture: {
          steps: [
            { type: "navigate", url: "https://example.com/" },
            { type: "type", selector: "#f", text: t },
          ],
        },
      },
      {
        capture: {
          steps: [
            { type: "navigate", url: "https://example.com/" },
            { type: "click", selector: t },
          ],
        },
      },
      {
        capture: {
          steps: [
            { type: "navigate", url: "https://example.com/" },
            { type: "waitForText", text: t },
          ],
        },
      },
    ];
    for (const t of hostile) {
      for (const body of fields(t)) {
        const answer = await server.admin.post("/api/spaces/default/jobs", jobBody({ cron: null, ...body } as never));
        expect(answer.status, `${t} in ${JSON.stringify(body).slice(0, 80)}`).toBe(400);
        expect(answer.text).toMatch(/file access|not allowed/);
      }
      const message = await server.admin.post(
        "/api/spaces/default/jobs",
        jobBody({
          cron: null,
          deliveries: [{ interfaceId: "4d5fba03-561e-4503-bf4d-c41817133aca", message: t, subject: t, jsonBody: t }],
        } as never),
      );
      expect(message.status).toBe(400);
      const paths = message.body.issues.map((i: { path: unknown[] }) => i.path.join("."));
      expect(paths).toEqual(
        expect.arrayContaining(["deliveries.0.message", "deliveries.0.subject", "deliveries.0.jsonBody"]),
      );
    }
  });

  it("renders a captured value that looks like a template as text, never as a template (no file access at render time)", async () => {
    const hook = await startRecorder();
    try {
      const iface = await server.admin.post("/ui-api/spaces/default/delivery-interfaces", {
        name: "render-time hook",
        type: "webhook",
        config: { url: `${hook.url}/hook`, bodyTemplate: '{"text": "$MESSAGE"}' },
      });
      expect(iface.status).toBe(201);
      const { end } = await runTest(server, {
        capture: {
          steps: [
            { type: "navigate", url: `${page.url}/` },
            { type: "extract", as: "inc", selector: "#inc" },
            { type: "extract", as: "calc", selector: "#calc" },
            { type: "extract", as: "rend", selector: "#rend" },
            { type: "navigate", url: `${page.url}/step?x={{ calc }}` },
          ],
        },
        report: reportOf([
          { type: "text", content: "A {{ inc }} B {{ calc }} C {{ rend }}" },
          { type: "variable", name: "inc", label: "{{ calc }}" },
        ]),
        deliveries: [{ interfaceId: iface.body.id, message: "{{ inc }} {{ calc }} {{ rend }}" }],
      });
      const test = { ...end };
      // A step string renders the value once: the page is asked for the text, not for 42.
      const step = page.requests.find((r) => r.path.startsWith("/step"));
      expect(decodeURIComponent(step?.path ?? "")).toBe("/step?x={{ 7 | times: 6 }}");
      const files = await filesOf(server, test.runId);
      const html = (await server.client().get(files["report.html"])).text;
      expect(html).not.toMatch(/root:.*:0:0/);
      expect(html).not.toContain(">42<");
      expect(html).toContain("{% include");
      expect(html).toContain("{{ 7 | times: 6 }}");
      const delivered = (
        await postStream(server.admin, "/api/spaces/default/jobs/test", {
          ...jobBody({
            cron: null,
            capture: {
              steps: [
                { type: "navigate", url: `${page.url}/` },
                { type: "extract", as: "inc", selector: "#inc" },
                { type: "extract", as: "calc", selector: "#calc" },
              ],
            },
            deliveries: [{ interfaceId: iface.body.id, message: "{{ inc }} {{ calc }}" }],
          } as never),
          deliver: true,
        })
      ).end;
      expect(delivered.state).toBe("success");
      await new Promise((r) => setTimeout(r, 100));
      const sent = hook.requests.map((r) => r.body).join("\n");
      expect(sent).toContain("{% include '/etc/passwd' %} {{ 7 | times: 6 }}");
      expect(sent).not.toMatch(/root:.*:0:0/);
    } finally {
      await hook.stop();
    }
  });

  it("stops a runaway report template by time and by memory, and the server answers meanwhile", async () => {
    const work = runTest(server, {
      capture: { steps: [{ type: "navigate", url: `${page.url}/` }] },
      report: reportOf([
        {
          type: "text",
          content:
            "{% assign s = 'xxxxxxxxxxxxxxxx' %}{% for i in (1..40) %}{% assign s = s | append: s %}{% endfor %}{{ s | size }}",
        },
        { type: "text", content: "{% for i in (1..100000) %}{% for j in (1..100000) %}{% endfor %}{% endfor %}" },
      ]),
    });
    const slowest = await slowestAnswerWhile(server.admin, "/api/agent/context", work);
    const { end } = await work;
    expect(end.state).toBe("failed");
    expect(end.error.message).toMatch(/memory|longer than/);
    expect(slowest).toBeLessThan(2500);
  });
});
