import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobBody } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { postStream } from "../helpers/sse.js";
import { type Recorder, slowestAnswerWhile, startRecorder } from "./security-helpers.js";

/**
 * DESIGN.md: Liquid "runs with a time and memory limit". Report templates run in a worker
 * (report.test.ts); these attack the other places Liquid runs: a delivery binding's message
 * and a capture step's strings. While a hostile template runs, another request must be answered
 * within 2.5 s (a second when the machine is quiet; the margin keeps a busy CI machine green). The loops are sized to end on their own within a few seconds, so that a
 * server without limits stalls but the suite does not hang.
 */

describe("security: Liquid limits outside reports (sqlite)", () => {
  let server: TestServer;
  let site: Recorder;
  let hook: Recorder;

  beforeAll(async () => {
    [site, hook] = await Promise.all([startRecorder(), startRecorder()]);
    server = await startTestServer("sqlite");
  });
  afterAll(async () => {
    await server?.stop();
    await Promise.all([site?.stop(), hook?.stop()]);
  });

  const webhook = async () => {
    const answer = await server.admin.post("/ui-api/spaces/default/delivery-interfaces", {
      name: `hook ${Math.random()}`,
      type: "webhook",
      config: { url: `${hook.url}/hook` },
    });
    expect(answer.status, answer.text).toBe(201);
    return answer.body.id as string;
  };

  it("stops a memory bomb in a delivery message quickly", async () => {
    const interfaceId = await webhook();
    const work = postStream(server.admin, "/api/spaces/default/jobs/test", {
      ...jobBody({
        cron: null,
        capture: { steps: [{ type: "navigate", url: `${site.url}/` }] },
        deliveries: [
          {
            interfaceId,
            message:
              "{% assign s = 'xxxxxxxxxxxxxxxx' %}{% for i in (1..40) %}{% assign s = s | append: s %}{% endfor %}{{ s | size }}",
          },
        ],
      } as never),
      deliver: true,
    });
    const slowest = await slowestAnswerWhile(server.admin, "/api/agent/context", work);
    const { end } = await work;
    expect(end.state).toBe("failed");
    expect(end.deliveries[0].error).toMatch(/message template/);
    expect(slowest).toBeLessThan(2500);
  });

  it("a hostile delivery message (a long loop) does not stall the server", async () => {
    const interfaceId = await webhook();
    const loop = "{% for i in (1..100000) %}{% for j in (1..100000) %}{% endfor %}{% endfor %}";
    const work = postStream(server.admin, "/api/spaces/default/jobs/test", {
      ...jobBody({
        cron: null,
        capture: { steps: [{ type: "navigate", url: `${site.url}/` }] },
        deliveries: [{ interfaceId, message: loop, subject: loop }],
      } as never),
      deliver: true,
    });
    const slowest = await slowestAnswerWhile(server.admin, "/api/agent/context", work);
    const { end } = await work;
    expect(end.state).toBe("failed");
    expect(end.deliveries[0].error).toMatch(/message template/);
    // Another request waits for the render: the message renders on the server's event loop.
    expect(slowest).toBeLessThan(2500);
  });

  it("a hostile template in a capture step string is limited and does not stall the server", async () => {
    // 36 million turns: ten seconds and more on the event loop, were there no limit.
    const loop = "{% for i in (1..6000) %}{% for j in (1..6000) %}{% endfor %}{% endfor %}";
    const work = postStream(
      server.admin,
      "/api/spaces/default/jobs/preview",
      jobBody({
        cron: null,
        capture: {
          steps: [
            { type: "navigate", url: `${site.url}/` },
            { type: "waitFor", selector: `${loop}#v`, timeoutMs: 1000 },
          ],
        },
      } as never),
    );
    const slowest = await slowestAnswerWhile(server.admin, "/api/agent/context", work);
    await work;
    expect(slowest).toBeLessThan(2500);
  });
});
