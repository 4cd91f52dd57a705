import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { userWithAccess } from "../helpers/factories.js";
import { DIALECTS, startTestServer, type TestServer } from "../helpers/server.js";

/** GET|PUT /ui-api/admin/settings/health-alerts: defaults, validation, system users only. */

const PATH = "/ui-api/admin/settings/health-alerts";

describe.each(DIALECTS)("health alert settings on %s", (dialect) => {
  let server: TestServer;
  let webhookId: string;
  let smtpId: string;
  let otherSpaceWebhookId: string;

  const create = async (space: string, body: Record<string, unknown>) => {
    const answer = await server.admin.post(`/ui-api/spaces/${space}/delivery-interfaces`, body);
    expect(answer.status, answer.text).toBe(201);
    return answer.body.id as string;
  };

  beforeAll(async () => {
    server = await startTestServer(dialect, {}, { worker: false });
    webhookId = await create("default", {
      name: "Alerts hook",
      type: "webhook",
      config: { url: "https://hooks.example.com/alerts" },
    });
    smtpId = await create("default", {
      name: "Mail",
      type: "smtp",
      config: { host: "127.0.0.1", port: 2525, security: "none", from: "pagewright@example.com" },
    });
    await server.admin.post("/ui-api/admin/spaces", { id: "ops", name: "Ops" });
    otherSpaceWebhookId = await create("ops", {
      name: "Ops hook",
      type: "webhook",
      config: { url: "https://hooks.example.com/ops" },
    });
  });
  afterAll(() => server?.stop());

  const issuePaths = (body: { issues?: { path: (string | number)[] }[] }) =>
    (body.issues ?? []).map((i) => i.path.join(".")).sort();

  it("answers the defaults before anything was saved", async () => {
    const answer = await server.admin.get(PATH);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      enabled: false,
      deliveryInterfaceId: null,
      space: "default",
      recipient: null,
      checkEveryMinutes: 5,
      minIntervalMinutes: null,
    });
  });

  it("saves settings and reads them back; fields left out take their defaults", async () => {
    const saved = await server.admin.put(PATH, {
      enabled: true,
      deliveryInterfaceId: webhookId,
      space: "default",
      recipient: null,
      checkEveryMinutes: 10,
      minIntervalMinutes: 60,
    });
    expect(saved.status, saved.text).toBe(200);
    expect((await server.admin.get(PATH)).body).toEqual({
      enabled: true,
      deliveryInterfaceId: webhookId,
      space: "default",
      recipient: null,
      checkEveryMinutes: 10,
      minIntervalMinutes: 60,
    });
    const short = await server.admin.put(PATH, {
      enabled: true,
      deliveryInterfaceId: otherSpaceWebhookId,
      space: "ops",
    });
    expect(short.status, short.text).toBe(200);
    expect(short.body).toEqual({
      enabled: true,
      deliveryInterfaceId: otherSpaceWebhookId,
      space: "ops",
      recipient: null,
      checkEveryMinutes: 5,
      minIntervalMinutes: null,
    });
  });

  it("refuses bad values with 400 naming every field", async () => {
    const answer = await server.admin.put(PATH, {
      enabled: "yes",
      deliveryInterfaceId: "not-a-uuid",
      space: "Not A Space",
      recipient: "nobody",
      checkEveryMinutes: 0,
      minIntervalMinutes: 10081,
      extra: true,
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe("invalid");
    expect(issuePaths(answer.body)).toEqual([
      "",
      "checkEveryMinutes",
      "deliveryInterfaceId",
      "enabled",
      "minIntervalMinutes",
      "recipient",
      "space",
    ]);
    const tooOften = await server.admin.put(PATH, { enabled: false, checkEveryMinutes: 1441, minIntervalMinutes: 0 });
    expect(issuePaths(tooOften.body)).toEqual(["checkEveryMinutes", "minIntervalMinutes"]);
    const fraction = await server.admin.put(PATH, { enabled: false, checkEveryMinutes: 2.5 });
    expect(issuePaths(fraction.body)).toEqual(["checkEveryMinutes"]);
  });

  it("refuses an interface that is not in the space, alerts without an interface, e-mail without a recipient", async () => {
    const elsewhere = await server.admin.put(PATH, { enabled: true, deliveryInterfaceId: otherSpaceWebhookId });
    expect(elsewhere.status).toBe(400);
    expect(issuePaths(elsewhere.body)).toEqual(["deliveryInterfaceId"]);
    const unknownSpace = await server.admin.put(PATH, {
      enabled: true,
      deliveryInterfaceId: webhookId,
      space: "nowhere",
    });
    expect(issuePaths(unknownSpace.body)).toEqual(["deliveryInterfaceId"]);
    const none = await server.admin.put(PATH, { enabled: true, deliveryInterfaceId: null });
    expect(issuePaths(none.body)).toEqual(["deliveryInterfaceId"]);
    const mail = await server.admin.put(PATH, { enabled: true, deliveryInterfaceId: smtpId });
    expect(mail.status).toBe(400);
    expect(issuePaths(mail.body)).toEqual(["recipient"]);
    const withRecipient = await server.admin.put(PATH, {
      enabled: true,
      deliveryInterfaceId: smtpId,
      recipient: "ops@example.com",
    });
    expect(withRecipient.status, withRecipient.text).toBe(200);
    // A refused body changed nothing.
    expect((await server.admin.get(PATH)).body).toMatchObject({
      deliveryInterfaceId: smtpId,
      recipient: "ops@example.com",
    });
  });

  it("is for system users only", async () => {
    const anonymous = server.client();
    expect((await anonymous.get(PATH)).status).toBe(401);
    expect((await anonymous.put(PATH, { enabled: false })).status).toBe(401);
    const { client } = await userWithAccess(server, "admin");
    expect((await client.get(PATH)).status).toBe(403);
    expect((await client.put(PATH, { enabled: false })).status).toBe(403);
    const crossOrigin = await server.admin.put(PATH, { enabled: false }, { origin: "https://evil.example.com" });
    expect(crossOrigin.status).toBe(403);
  });
});
