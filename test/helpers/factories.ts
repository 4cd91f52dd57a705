import crypto from "node:crypto";
import type { JobBodyInput } from "../../src/schemas/job.js";
import type { Client } from "./client.js";
import type { TestServer } from "./server.js";

/** A small valid job body; overrides replace top-level fields. */
export function jobBody(overrides: Partial<JobBodyInput> = {}): JobBodyInput {
  return {
    name: `Job ${crypto.randomBytes(3).toString("hex")}`,
    description: "made by a test",
    cron: "0 9 * * 1-5",
    timezone: "Europe/Rome",
    capture: {
      steps: [
        { type: "navigate", url: "https://dash.example.com/errors" },
        { type: "extract", as: "errors", selector: "#errors .value", parse: "number" },
        { type: "snapshot", as: "dashboard", fullPage: true },
      ],
    },
    ...overrides,
  };
}

let counter = 0;

/**
 * A user with `access` to `space` (created when missing), logged in. `access: null` makes a user
 * with no membership.
 */
export async function userWithAccess(
  server: TestServer,
  access: "ro" | "rw" | "admin" | null,
  space = "default",
): Promise<{ client: Client; id: string; username: string; password: string }> {
  const username = `user${++counter}-${crypto.randomBytes(3).toString("hex")}`;
  const password = "password-1234";
  const created = await server.admin.post("/ui-api/admin/users", { username, password, systemRole: "user" });
  if (created.status !== 201) throw new Error(`user create failed: ${created.text}`);
  if (
    space !== "default" &&
    (await server.admin.get("/ui-api/admin/spaces")).body.items.every((s: { id: string }) => s.id !== space)
  ) {
    await server.admin.post("/ui-api/admin/spaces", { id: space, name: space });
  }
  if (access) await server.admin.put(`/ui-api/admin/spaces/${space}/members/${created.body.id}`, { access });
  const client = server.client();
  await client.login(username, password);
  return { client, id: created.body.id, username, password };
}

/** A webhook interface of `space`, created through /ui-api by the admin. */
export async function webhookInterface(
  server: TestServer,
  space = "default",
  secretUrl = "https://hooks.example.com/T000/B000/secret-token-XYZ",
) {
  const answer = await server.admin.post(`/ui-api/spaces/${space}/delivery-interfaces`, {
    name: `Webhook ${++counter}`,
    type: "webhook",
    config: { url: secretUrl, headers: { Authorization: "Bearer header-secret-ABC" } },
  });
  if (answer.status !== 201) throw new Error(`interface create failed: ${answer.text}`);
  return answer.body as { id: string };
}
