import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobBody, userWithAccess } from "../helpers/factories.js";
import { DIALECTS, startTestServer, type TestServer } from "../helpers/server.js";

/** Secret values used below: none may appear in any answer of the agent API, nor in the database. */
const SECRETS = {
  webhookUrl: "https://hooks.example.com/services/T0/B0/webhook-secret-1",
  header: "Bearer header-secret-2",
  slack: "https://hooks.slack.com/services/T1/B1/slack-secret-3",
  smtp: "smtp-secret-4",
  mailgun: "key-mailgun-secret-5",
  s3Key: "AKIAS3SECRET6",
  s3Secret: "s3-secret-access-7",
  ai: "sk-ai-secret-8",
};

const INTERFACES = [
  {
    name: "Ops webhook",
    type: "webhook",
    config: {
      url: SECRETS.webhookUrl,
      method: "POST",
      headers: { Authorization: SECRETS.header },
      bodyTemplate: '{"text":"$MESSAGE"}',
    },
  },
  { name: "Slack", type: "slack", config: { webhookUrl: SECRETS.slack } },
  {
    name: "Mail",
    type: "smtp",
    config: {
      host: "smtp.example.com",
      port: 587,
      security: "starttls",
      username: "reports",
      password: SECRETS.smtp,
      from: "Reports <reports@example.com>",
    },
  },
  {
    name: "Mailgun",
    type: "mailgun",
    config: { domain: "mg.example.com", region: "eu", apiKey: SECRETS.mailgun, from: "reports@example.com" },
  },
  {
    name: "Archive",
    type: "s3",
    config: {
      bucket: "reports",
      region: "eu-west-1",
      prefix: "daily/",
      accessKeyId: SECRETS.s3Key,
      secretAccessKey: SECRETS.s3Secret,
    },
  },
];

describe.each(DIALECTS)("delivery interfaces and AI providers on %s", (dialect) => {
  let server: TestServer;
  const ids: Record<string, string> = {};
  let providerId = "";

  beforeAll(async () => {
    server = await startTestServer(dialect);
    for (const body of INTERFACES) {
      const answer = await server.admin.post("/ui-api/spaces/default/delivery-interfaces", body);
      expect(answer.status, answer.text).toBe(201);
      ids[body.type] = answer.body.id;
    }
    const provider = await server.admin.post("/ui-api/spaces/default/ai-providers", {
      name: "GPT",
      vendor: "openai",
      model: "gpt-4o-mini",
      apiKey: SECRETS.ai,
    });
    expect(provider.status, provider.text).toBe(201);
    providerId = provider.body.id;
    // A job bound to them, read back through every agent path.
    await server.admin.post(
      "/api/spaces/default/jobs",
      jobBody({
        deliveries: [{ interfaceId: ids.webhook, message: "hi" }],
        capture: {
          steps: [
            { type: "navigate", url: "https://x.example.com" },
            { type: "ai", as: "summary", providerId, prompt: "Summarise" },
          ],
        },
      }),
    );
  });
  afterAll(() => server?.stop());

  it("never returns a secret through the agent API, at any access level", async () => {
    const ro = await userWithAccess(server, "ro");
    const spaceAdmin = await userWithAccess(server, "admin");
    for (const client of [ro.client, spaceAdmin.client, server.admin]) {
      const answers = await Promise.all(
        ["delivery-interfaces", "ai-providers", "jobs", "blueprints"].map((p) =>
          client.get(`/api/spaces/default/${p}`),
        ),
      );
      answers.push(await client.get("/api/agent/context"));
      for (const answer of answers) {
        expect(answer.status).toBe(200);
        for (const secret of Object.values(SECRETS)) expect(answer.text).not.toContain(secret);
      }
    }
  });

  it("lists interfaces with their non-secret settings and which secrets are set", async () => {
    const list = await server.admin.get("/api/spaces/default/delivery-interfaces");
    const byType = Object.fromEntries(list.body.items.map((i: { type: string }) => [i.type, i]));
    expect(byType.webhook).toMatchObject({
      name: "Ops webhook",
      config: { host: "hooks.example.com", headerNames: ["Authorization"], method: "POST" },
      secretsSet: { url: true, headers: true },
    });
    expect(byType.smtp.config).toMatchObject({
      host: "smtp.example.com",
      port: 587,
      from: "Reports <reports@example.com>",
    });
    expect(byType.smtp.secretsSet).toEqual({ password: true });
    expect(byType.s3.secretsSet).toEqual({ accessKeyId: true, secretAccessKey: true });
    const providers = await server.admin.get("/api/spaces/default/ai-providers");
    expect(providers.body.items).toEqual([
      expect.objectContaining({ id: providerId, vendor: "openai", model: "gpt-4o-mini", apiKeySet: true }),
    ]);
    expect(providers.body.items[0].apiKey).toBeUndefined();
  });

  it("stores secrets encrypted at rest", async () => {
    const rows = [
      ...(await server.ctx.storage.db.selectFrom("delivery_interfaces").selectAll().execute()),
      ...(await server.ctx.storage.db.selectFrom("ai_providers").selectAll().execute()),
    ];
    const dump = JSON.stringify(rows);
    for (const secret of Object.values(SECRETS)) expect(dump).not.toContain(secret);
    expect(rows.every((r) => r.secrets.startsWith("v1:"))).toBe(true);
  });

  it("seals a job's own secrets at rest and gives them back to rw readers unchanged", async () => {
    const body = jobBody({
      cron: null,
      capture: {
        auth: { type: "basic", username: "svc", password: "job-basic-secret-9" },
        steps: [
          { type: "navigate", url: "https://x.example.com/login" },
          { type: "type", selector: "#pw", text: "job-typed-secret-10", sensitive: true },
          {
            type: "if",
            condition: "1 > 0",
            then: [{ type: "type", selector: "#otp", text: "job-nested-secret-11", sensitive: true }],
          },
        ],
      },
    });
    const created = await server.admin.post("/api/spaces/default/jobs", body);
    expect(created.status).toBe(201);
    // Readers with rw see the job as they wrote it, in the single read and in the list.
    const read = (await server.admin.get(`/api/spaces/default/jobs/${created.body.id}`)).body;
    expect(read).toEqual(created.body);
    expect(read.capture.auth.password).toBe("job-basic-secret-9");
    expect(read.capture.steps[2].then[0].text).toBe("job-nested-secret-11");
    const listed = (await server.admin.get("/api/spaces/default/jobs")).body.items.find(
      (j: { id: string }) => j.id === read.id,
    );
    expect(listed).toEqual(read);
    // A replacement keeps them sealed too.
    await server.admin.put(`/api/spaces/default/jobs/${read.id}`, { ...read, name: "Renamed" });
    const rows = JSON.stringify(await server.ctx.storage.db.selectFrom("jobs").selectAll().execute());
    for (const secret of ["job-basic-secret-9", "job-typed-secret-10", "job-nested-secret-11"])
      expect(rows).not.toContain(secret);
    expect((await server.admin.get(`/api/spaces/default/jobs/${read.id}`)).body.capture.steps[1].text).toBe(
      "job-typed-secret-10",
    );
  });

  it("keeps a secret that an update leaves out, and replaces one that it sends", async () => {
    const updated = await server.admin.put(`/ui-api/spaces/default/delivery-interfaces/${ids.smtp}`, {
      name: "Mail (renamed)",
      type: "smtp",
      config: {
        host: "smtp2.example.com",
        port: 465,
        security: "tls",
        username: "reports",
        from: "reports@example.com",
      },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.secretsSet).toEqual({ password: true });
    const stored = await server.ctx.interfaces.getWithSecrets("default", ids.smtp);
    expect(stored?.secrets.password).toBe(SECRETS.smtp);
    expect(stored?.config.host).toBe("smtp2.example.com");

    await server.admin.put(`/ui-api/spaces/default/delivery-interfaces/${ids.smtp}`, {
      name: "Mail",
      type: "smtp",
      config: { host: "smtp2.example.com", password: "new-password", from: "reports@example.com" },
    });
    expect((await server.ctx.interfaces.getWithSecrets("default", ids.smtp))?.secrets.password).toBe("new-password");

    const webhook = await server.admin.put(`/ui-api/spaces/default/delivery-interfaces/${ids.webhook}`, {
      name: "Ops webhook",
      type: "webhook",
      config: { method: "PUT" },
    });
    expect(webhook.body.config).toMatchObject({
      host: "hooks.example.com",
      headerNames: ["Authorization"],
      method: "PUT",
    });
    const provider = await server.admin.put(`/ui-api/spaces/default/ai-providers/${providerId}`, {
      name: "GPT",
      vendor: "openai",
      model: "gpt-4.1",
    });
    expect(provider.body).toMatchObject({ model: "gpt-4.1", apiKeySet: true });
    expect((await server.ctx.providers.getWithSecrets("default", providerId))?.secrets.apiKey).toBe(SECRETS.ai);
  });

  it("lets only space admins set up interfaces and providers", async () => {
    const rw = await userWithAccess(server, "rw");
    expect((await rw.client.post("/ui-api/spaces/default/delivery-interfaces", INTERFACES[1])).status).toBe(403);
    expect((await rw.client.put(`/ui-api/spaces/default/delivery-interfaces/${ids.slack}`, INTERFACES[1])).status).toBe(
      403,
    );
    expect((await rw.client.delete(`/ui-api/spaces/default/delivery-interfaces/${ids.slack}`)).status).toBe(403);
    expect(
      (
        await rw.client.post("/ui-api/spaces/default/ai-providers", {
          name: "x",
          vendor: "openai",
          model: "m",
          apiKey: "k",
        })
      ).status,
    ).toBe(403);
    // The agent API has no way to create them.
    expect((await server.admin.post("/api/spaces/default/delivery-interfaces", INTERFACES[1])).status).toBe(404);
    expect((await server.admin.post("/api/spaces/default/ai-providers", {})).status).toBe(404);
  });

  it("validates interface and provider bodies with field paths", async () => {
    const bad = await server.admin.post("/ui-api/spaces/default/delivery-interfaces", {
      name: "bad",
      type: "smtp",
      config: { host: "", port: 70000, security: "ssl", from: "nobody" },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.issues.map((i: { path: string[] }) => i.path.join(".")).sort()).toEqual([
      "config.from",
      "config.host",
      "config.port",
      "config.security",
    ]);
    const unknownType = await server.admin.post("/ui-api/spaces/default/delivery-interfaces", {
      name: "x",
      type: "fax",
      config: {},
    });
    expect(unknownType.status).toBe(400);
    const fileUrl = await server.admin.post("/ui-api/spaces/default/delivery-interfaces", {
      name: "x",
      type: "webhook",
      config: { url: "file:///etc/passwd" },
    });
    expect(fileUrl.body.issues[0].path).toEqual(["config", "url"]);
    const noEndpoint = await server.admin.post("/ui-api/spaces/default/ai-providers", {
      name: "x",
      vendor: "openai-compatible",
      model: "m",
      apiKey: "k",
    });
    expect(noEndpoint.body.issues[0].path).toEqual(["endpoint"]);
  });

  it("deletes interfaces and providers", async () => {
    const created = await server.admin.post("/ui-api/spaces/default/delivery-interfaces", {
      ...INTERFACES[1],
      name: "Temp",
    });
    expect((await server.admin.delete(`/ui-api/spaces/default/delivery-interfaces/${created.body.id}`)).status).toBe(
      204,
    );
    expect((await server.admin.delete(`/ui-api/spaces/default/delivery-interfaces/${created.body.id}`)).status).toBe(
      404,
    );
    const provider = await server.admin.post("/ui-api/spaces/default/ai-providers", {
      name: "T",
      vendor: "openai",
      model: "m",
      apiKey: "k",
    });
    expect((await server.admin.delete(`/ui-api/spaces/default/ai-providers/${provider.body.id}`)).status).toBe(204);
  });
});
