import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobBody, userWithAccess } from "../helpers/factories.js";
import { DIALECTS, startTestServer, type TestServer } from "../helpers/server.js";

describe.each(DIALECTS)("edition limits on %s", (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect, {
      LIMIT_JOBS: "3",
      LIMIT_DELIVERY_INTERFACES: "1",
      LIMIT_AI_PROVIDERS: "1",
      LIMIT_CAPTURE_STEPS: "4",
    });
  });
  afterAll(() => server?.stop());

  it("publishes the limits and the usage per space in the context", async () => {
    const context = await server.admin.get("/api/agent/context");
    expect(context.body.limits).toEqual({
      edition: "limited",
      jobs: 3,
      deliveryInterfaces: 1,
      aiProviders: 1,
      captureSteps: 4,
    });
    expect(context.body.usage.default).toEqual({ jobs: 0, deliveryInterfaces: 0, aiProviders: 0 });
  });

  it("lets exactly one of many concurrent creates take the last free job slot", async () => {
    for (let i = 0; i < 2; i++)
      expect((await server.admin.post("/api/spaces/default/jobs", jobBody())).status).toBe(201);
    const racing = await Promise.all(
      Array.from({ length: 8 }, () => server.admin.post("/api/spaces/default/jobs", jobBody())),
    );
    const statuses = racing.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 403)).toHaveLength(7);
    const refused = racing.find((r) => r.status === 403);
    expect(refused?.body).toEqual({ error: "forbidden", code: "licenseLimit", limit: "jobs", max: 3 });
    expect((await server.admin.get("/api/spaces/default/jobs")).body.items).toHaveLength(3);
    expect((await server.admin.get("/api/agent/context")).body.usage.default.jobs).toBe(3);
  });

  it("binds system users too, counts per space, and frees a slot on delete", async () => {
    await userWithAccess(server, "admin", "team-b");
    expect((await server.admin.post("/api/spaces/team-b/jobs", jobBody())).status).toBe(201);
    const jobs = (await server.admin.get("/api/spaces/default/jobs")).body.items;
    expect((await server.admin.post("/api/spaces/default/jobs", jobBody())).status).toBe(403);
    await server.admin.delete(`/api/spaces/default/jobs/${jobs[0].id}`);
    expect((await server.admin.post("/api/spaces/default/jobs", jobBody())).status).toBe(201);
  });

  it("limits delivery interfaces and AI providers per space", async () => {
    const hook = { name: "Hook", type: "slack", config: { webhookUrl: "https://hooks.slack.com/services/x" } };
    const racing = await Promise.all(
      Array.from({ length: 4 }, () => server.admin.post("/ui-api/spaces/default/delivery-interfaces", hook)),
    );
    expect(racing.map((r) => r.status).sort()).toEqual([201, 403, 403, 403]);
    expect(racing.find((r) => r.status === 403)?.body).toMatchObject({
      code: "licenseLimit",
      limit: "deliveryInterfaces",
      max: 1,
    });
    const provider = { name: "AI", vendor: "openai", model: "m", apiKey: "k" };
    expect((await server.admin.post("/ui-api/spaces/default/ai-providers", provider)).status).toBe(201);
    const second = await server.admin.post("/ui-api/spaces/default/ai-providers", provider);
    expect(second.body).toMatchObject({ error: "forbidden", code: "licenseLimit", limit: "aiProviders", max: 1 });
  });

  it("lowers the step bound with LIMIT_CAPTURE_STEPS, nested steps included", async () => {
    await userWithAccess(server, "admin", "steps");
    const nav = { type: "navigate", url: "https://x.example.com" };
    const nested = jobBody({ capture: { steps: [nav, { type: "if", condition: "1 > 0", then: [nav, nav, nav] }] } });
    const answer = await server.admin.post("/api/spaces/steps/jobs", nested);
    expect(answer.status).toBe(400);
    expect(answer.body.issues[0]).toMatchObject({ path: ["capture", "steps"], code: "too_big" });
    expect(answer.body.issues[0].message).toMatch(/at most 4 steps/);
    const fits = jobBody({ capture: { steps: [nav, { type: "if", condition: "1 > 0", then: [nav, nav] }] } });
    expect((await server.admin.post("/api/spaces/steps/jobs", fits)).status).toBe(201);
  });
});
