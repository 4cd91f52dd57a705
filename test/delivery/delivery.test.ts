import { GetObjectCommand, ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHttpReceiver, startS3Receiver, startSmtpReceiver } from "../fixtures/receivers.js";
import { startTestSite, type TestSite } from "../fixtures/test-site.js";
import { jobBody } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { postStream } from "../helpers/sse.js";

/** Reports delivered to real receivers started by the test: HTTP, SMTP and an S3-compatible store. */
describe("delivery of a run's report", () => {
  let server: TestServer;
  let site: TestSite;
  let http: Awaited<ReturnType<typeof startHttpReceiver>>;
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
  let s3: Awaited<ReturnType<typeof startS3Receiver>>;
  beforeAll(async () => {
    [server, site, http, smtp, s3] = await Promise.all([
      startTestServer("sqlite"),
      startTestSite(),
      startHttpReceiver(),
      startSmtpReceiver({ refuse: (address) => address.startsWith("nobody@") }),
      startS3Receiver("reports"),
    ]);
  });
  afterAll(async () => {
    await server?.stop();
    await Promise.all([site?.stop(), http?.stop(), smtp?.stop(), s3?.stop()]);
  });

  const iface = async (body: Record<string, unknown>) => {
    const answer = await server.admin.post("/ui-api/spaces/default/delivery-interfaces", body);
    expect(answer.status, answer.text).toBe(201);
    return answer.body.id as string;
  };
  const capture = () => ({
    steps: [
      { type: "navigate", url: `${site.url}/table` },
      { type: "extract", as: "orders", selector: "#orders", attribute: "data-value", parse: "number" },
      { type: "snapshot", as: "table", selector: "table" },
    ],
  });
  const runJob = async (body: Record<string, unknown>) => {
    const job = await server.admin.post(
      "/api/spaces/default/jobs",
      jobBody({ cron: null, capture: capture(), ...body }),
    );
    expect(job.status, job.text).toBe(201);
    const stream = await postStream(server.admin, `/api/spaces/default/jobs/${job.body.id}/run`);
    return { job: job.body, stream, end: stream.end };
  };

  it("posts to a webhook with the message in the body template, its method and headers", async () => {
    http.calls.length = 0;
    const id = await iface({
      name: "Ops hook",
      type: "webhook",
      config: {
        url: `${http.url}/hooks/ops?key=secret-query`,
        method: "PUT",
        headers: { "X-Token": "header-secret-1" },
        bodyTemplate: '{"text": "$MESSAGE", "source": "pagewright"}',
      },
    });
    const { end, stream } = await runJob({
      deliveries: [{ interfaceId: id, message: 'Orders: {{ orders }} "quoted"\n{{ run.reportUrl }}' }],
    });
    expect(end.error).toBeNull();
    expect(end.state).toBe("success");
    expect(http.calls).toHaveLength(1);
    const call = http.calls[0];
    expect(call.method).toBe("PUT");
    expect(call.path).toBe("/hooks/ops?key=secret-query");
    expect(call.headers["x-token"]).toBe("header-secret-1");
    expect(call.headers["content-type"]).toBe("application/json");
    const body = JSON.parse(call.body.toString());
    expect(body.source).toBe("pagewright");
    expect(body.text).toMatch(
      /^Orders: 777 "quoted"\nhttp:\/\/localhost:\d+\/files\/runs\/[0-9a-f-]+\/report\.html\?token=/,
    );
    expect(end.deliveries).toEqual([
      expect.objectContaining({
        interfaceId: id,
        type: "webhook",
        state: "sent",
        status: 200,
        error: null,
        target: `127.0.0.1:${new URL(http.url).port}`,
      }),
    ]);
    expect(stream.events.filter((e) => e.event === "delivery")).toHaveLength(1);
    // The report files are on the run behind its token; the record never shows the secret URL or header.
    expect(end.files.map((f: { name: string }) => f.name)).toEqual(["table.png", "report.html", "report.pdf"]);
    const pdf = await fetch(server.url + end.files.find((f: { kind: string }) => f.kind === "pdf").url);
    expect(pdf.headers.get("content-type")).toBe("application/pdf");
    expect(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe("%PDF-");
    const read = await server.admin.get(`/api/spaces/default/runs/${end.runId}`);
    expect(read.text).not.toContain("secret-query");
    expect(read.text).not.toContain("header-secret-1");
  });

  it("fails a delivery on a non-2xx answer, records status and answer, and retries a run that reached nobody", async () => {
    http.calls.length = 0;
    http.answerWith(() => ({ status: 500, body: "database is down" }));
    try {
      const id = await iface({ name: "Broken hook", type: "webhook", config: { url: `${http.url}/broken` } });
      const { end, job } = await runJob({
        retry: { attempts: 1, delayMinutes: 60 },
        deliveries: [{ interfaceId: id, message: "x" }],
      });
      expect(end.state).toBe("failed");
      expect(end.deliveries[0]).toMatchObject({ state: "failed", status: 500, error: "HTTP 500: database is down" });
      expect(end.error.message).toMatch(/no delivery reached/);
      const runs = (await server.admin.get(`/api/spaces/default/runs?jobId=${job.id}`)).body.items;
      expect(runs.map((r: { trigger: string; state: string }) => [r.trigger, r.state])).toContainEqual([
        "retry",
        "queued",
      ]);
    } finally {
      http.answerWith(() => ({ status: 200 }));
    }
  });

  it("sends JSON bodies of the job only when the interface allows it, and form bodies URL-encoded", async () => {
    http.calls.length = 0;
    const allowed = await iface({
      name: "Open hook",
      type: "webhook",
      config: { url: `${http.url}/open`, allowJobBody: true },
    });
    const form = await iface({
      name: "Form hook",
      type: "webhook",
      config: { url: `${http.url}/form`, bodyType: "form", bodyTemplate: "msg=$MESSAGE&v=1" },
    });
    const { end } = await runJob({
      deliveries: [
        { interfaceId: allowed, jsonBody: '{"orders": {{ orders }}, "job": "{{ job.name }}"}' },
        { interfaceId: form, message: "a&b = {{ orders }}" },
      ],
    });
    expect(end.state).toBe("success");
    const open = http.calls.find((c) => c.path === "/open");
    expect(JSON.parse(open?.body.toString() ?? "")).toMatchObject({ orders: 777 });
    const posted = http.calls.find((c) => c.path === "/form");
    expect(posted?.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(new URLSearchParams(posted?.body.toString()).get("msg")).toBe("a&b = 777");
  });

  it("sends a Slack message with a link to the report", async () => {
    http.calls.length = 0;
    const id = await iface({ name: "Slack", type: "slack", config: { webhookUrl: `${http.url}/services/T/B/x` } });
    const { end } = await runJob({ deliveries: [{ interfaceId: id, message: "Orders today: {{ orders }}" }] });
    expect(end.state).toBe("success");
    const text = JSON.parse(http.calls[0].body.toString()).text as string;
    expect(text).toMatch(/^Orders today: 777\n<http:\/\/localhost:\d+\/files\/runs\/.*report\.html\?token=.*\|.*>$/);
  });

  it("e-mails the report as a PDF attachment, one message per recipient; a refused recipient makes the run partial", async () => {
    smtp.messages.length = 0;
    const id = await iface({
      name: "Mail",
      type: "smtp",
      config: { host: "127.0.0.1", port: smtp.port, security: "none", from: "Reports <reports@example.com>" },
    });
    const { end } = await runJob({
      name: "Daily: orders",
      report: {
        title: "Orders {{ orders }}",
        pages: [{ rows: [{ cells: [{ blocks: [{ type: "variable", name: "orders" }] }] }] }],
      },
      deliveries: [
        {
          interfaceId: id,
          subject: "Orders: {{ orders }}",
          recipients: ["ops@example.com", "nobody@example.com", "cto@example.com"],
          message: "See the attached report.",
          attach: "pdf",
        },
      ],
    });
    expect(end.state).toBe("partial");
    expect(
      end.deliveries.map((d: { target: string; state: string; status: number }) => [d.target, d.state, d.status]),
    ).toEqual([
      ["ops@example.com", "sent", 250],
      ["nobody@example.com", "failed", 550],
      ["cto@example.com", "sent", 250],
    ]);
    expect(smtp.messages.map((m) => m.envelopeTo[0]).sort()).toEqual(["cto@example.com", "ops@example.com"]);
    const mail = smtp.messages[0];
    expect(mail.subject).toBe("Orders: 777");
    expect(mail.text?.trim()).toBe("See the attached report.");
    expect(mail.from?.value[0]).toMatchObject({ name: "Reports", address: "reports@example.com" });
    expect(mail.attachments).toHaveLength(1);
    expect(mail.attachments[0].contentType).toBe("application/pdf");
    expect(mail.attachments[0].filename).toMatch(/^orders-777-\d{4}-\d{2}-\d{2}-\d{4}\.pdf$/);
    expect(mail.attachments[0].filename).not.toContain(":");
    expect(mail.attachments[0].content.subarray(0, 5).toString()).toBe("%PDF-");
  });

  it("sends through Mailgun's HTTP API with the key, the form fields and the attachment", async () => {
    http.calls.length = 0;
    const id = await iface({
      name: "Mailgun",
      type: "mailgun",
      config: {
        domain: "mg.example.com",
        region: "eu",
        apiKey: "key-mailgun-1",
        from: "reports@example.com",
        endpoint: http.url,
      },
    });
    const { end } = await runJob({
      deliveries: [{ interfaceId: id, subject: "Hi", recipients: ["a@example.com"], attach: "html" }],
    });
    expect(end.state).toBe("success");
    const call = http.calls[0];
    expect(call.method).toBe("POST");
    expect(call.path).toBe("/v3/mg.example.com/messages");
    expect(call.headers.authorization).toBe(`Basic ${Buffer.from("api:key-mailgun-1").toString("base64")}`);
    const form = await new Response(new Uint8Array(call.body), {
      headers: { "content-type": String(call.headers["content-type"]) },
    }).formData();
    expect(form.get("to")).toBe("a@example.com");
    expect(form.get("subject")).toBe("Hi");
    const file = form.get("attachment") as File;
    expect(file.name).toMatch(/\.html$/);
    expect(await file.text()).toContain("<html");
  });

  it("uploads the PDF and HTML to an S3-compatible bucket under keys with a 24-hour clock", async () => {
    const id = await iface({
      name: "Archive",
      type: "s3",
      config: { bucket: "reports", region: "us-east-1", endpoint: s3.endpoint, prefix: "daily/", ...s3.credentials },
    });
    const { end } = await runJob({ name: "Night Report", deliveries: [{ interfaceId: id, formats: ["pdf", "html"] }] });
    expect(end.state, JSON.stringify(end)).toBe("success");
    const client = new S3Client({
      region: "us-east-1",
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: s3.credentials,
    });
    const listed = await client.send(new ListObjectsV2Command({ Bucket: "reports", Prefix: "daily/night-report/" }));
    const keys = (listed.Contents ?? []).map((o) => o.Key ?? "");
    expect(keys).toHaveLength(2);
    for (const key of keys)
      expect(key).toMatch(
        /^daily\/night-report\/\d{4}-\d{2}-\d{2}\/([01]\d|2[0-3])-[0-5]\d-[0-5]\d-[0-9a-f]{8}\.(pdf|html)$/,
      );
    const pdf = await client.send(
      new GetObjectCommand({ Bucket: "reports", Key: keys.find((k) => k.endsWith(".pdf")) }),
    );
    expect(
      Buffer.from(await (pdf.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray())
        .subarray(0, 5)
        .toString(),
    ).toBe("%PDF-");
    client.destroy();
  });

  it("throttles over three runs, counting only runs that were really delivered", async () => {
    http.calls.length = 0;
    const id = await iface({ name: "Throttled hook", type: "webhook", config: { url: `${http.url}/throttle` } });
    const job = (
      await server.admin.post(
        "/api/spaces/default/jobs",
        jobBody({
          cron: null,
          capture: capture(),
          notify: { minIntervalMinutes: 60 },
          deliveries: [{ interfaceId: id, message: "m" }],
        }),
      )
    ).body;
    const run = async () => (await postStream(server.admin, `/api/spaces/default/jobs/${job.id}/run`)).end;
    http.answerWith(() => ({ status: 503 }));
    const failed = await run();
    expect(failed.deliveries[0].state).toBe("failed");
    http.answerWith(() => ({ status: 200 }));
    const sent = await run();
    expect(sent.deliveries[0].state).toBe("sent");
    const throttled = await run();
    expect(throttled.state).toBe("success");
    expect(throttled.deliveries[0]).toMatchObject({ state: "throttled" });
    expect(http.calls.filter((c) => c.path === "/throttle")).toHaveLength(2);
  });

  it("keeps a report whose template fails on the run, delivers it to nobody and names the block", async () => {
    http.calls.length = 0;
    const id = await iface({ name: "Never", type: "webhook", config: { url: `${http.url}/never` } });
    const job = await server.admin.post(
      "/api/spaces/default/jobs",
      jobBody({
        cron: null,
        capture: capture(),
        report: {
          pages: [
            { rows: [{ cells: [{ blocks: [{ type: "text", content: "fine" }] }] }] },
            // A loopback image is refused at render time: the block fails in place.
            {
              rows: [{ cells: [{ blocks: [] }, { blocks: [{ type: "image", url: "http://127.0.0.1:9/chart.png" }] }] }],
            },
          ],
        },
        deliveries: [{ interfaceId: id, message: "m" }],
      }),
    );
    const { end } = await postStream(server.admin, `/api/spaces/default/jobs/${job.body.id}/run`);
    expect(end.state).toBe("failed");
    expect(end.error.message).toMatch(/^report: page 2, row 1, cell 2, block 1: .*not delivered/);
    expect(end.deliveries).toEqual([]);
    expect(end.files.map((f: { kind: string }) => f.kind)).toEqual(["snapshot", "html", "pdf"]);
    expect(http.calls).toHaveLength(0);
  });

  it("delivers a test run only when asked, and sends a test message from the interface's Test button", async () => {
    http.calls.length = 0;
    const id = await iface({ name: "Test hook", type: "webhook", config: { url: `${http.url}/test-hook` } });
    const body = jobBody({ cron: null, capture: capture(), deliveries: [{ interfaceId: id, message: "from a test" }] });
    const quiet = await postStream(server.admin, "/api/spaces/default/jobs/test", { ...body, deliver: false });
    expect(quiet.end).toMatchObject({ state: "success", deliveries: [] });
    expect(http.calls).toHaveLength(0);
    const loud = await postStream(server.admin, "/api/spaces/default/jobs/test", { ...body, deliver: true });
    expect(loud.end.deliveries[0].state).toBe("sent");
    expect(http.calls).toHaveLength(1);

    const test = await server.admin.post(`/ui-api/spaces/default/delivery-interfaces/${id}/test`, {});
    expect(test.status).toBe(200);
    expect(test.body.ok).toBe(true);
    expect(JSON.parse(http.calls[1].body.toString()).text).toMatch(/Pagewright test message/);
    const mail = await iface({
      name: "Mail test",
      type: "smtp",
      config: { host: "127.0.0.1", port: smtp.port, security: "none", from: "r@example.com" },
    });
    expect((await server.admin.post(`/ui-api/spaces/default/delivery-interfaces/${mail}/test`, {})).status).toBe(400);
    const sent = await server.admin.post(`/ui-api/spaces/default/delivery-interfaces/${mail}/test`, {
      recipients: ["ops@example.com"],
    });
    expect(sent.body.outcomes[0]).toMatchObject({ state: "sent", target: "ops@example.com" });
  });
});
