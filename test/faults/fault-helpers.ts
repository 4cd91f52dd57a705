import pino from "pino";
import { loadConfig } from "../../src/config/config.js";
import { type RunningServer, startServer } from "../../src/server.js";
import { Client } from "../helpers/client.js";
import { ADMIN } from "../helpers/server.js";

/** Shared by the fault tests: waiting, reading runs, and starting a server on an existing store. */

export const SECRET_KEY = "test-secret-key-0123456789abcdef";

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `fn` until it answers something truthy; fails naming `what` after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  fn: () => Promise<T | undefined | false>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`not in ${timeoutMs} ms: ${what}`);
    await sleep(150);
  }
}

export type RunRead = {
  id: string;
  jobId: string;
  state: string;
  trigger: string;
  attempt: number;
  retryOf: string | null;
  error: { message: string; stepId?: string } | null;
  // biome-ignore lint/suspicious/noExplicitAny: steps are read field by field
  steps: any[];
  // biome-ignore lint/suspicious/noExplicitAny: deliveries are read field by field
  deliveries: any[];
};

export async function runsOf(client: Client, jobId: string): Promise<RunRead[]> {
  const answer = await client.get(`/api/spaces/default/runs?jobId=${jobId}&limit=200`);
  if (answer.status !== 200) throw new Error(`runs of ${jobId}: ${answer.status} ${answer.text}`);
  return answer.body.items;
}

export async function readRun(client: Client, runId: string): Promise<RunRead> {
  const answer = await client.get(`/api/spaces/default/runs/${runId}`);
  if (answer.status !== 200) throw new Error(`run ${runId}: ${answer.status} ${answer.text}`);
  return answer.body;
}

/**
 * Queues a run of a saved job and hangs up as soon as the stream answers (the run goes on
 * without its client); answers the new run's id. Works for a run that has to wait for a slot,
 * whose `start` event would only come when it starts.
 */
export async function queueRun(client: Client, jobId: string): Promise<string> {
  const before = new Set((await runsOf(client, jobId)).map((r) => r.id));
  const controller = new AbortController();
  const response = await fetch(`${client.baseUrl}/api/spaces/default/jobs/${jobId}/run`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie: client.cookieHeader ?? "" },
    body: "{}",
    signal: controller.signal,
  });
  if (response.status !== 200) throw new Error(`run of ${jobId}: ${response.status} ${await response.text()}`);
  controller.abort();
  return waitFor(
    `the run of ${jobId} is recorded`,
    async () => (await runsOf(client, jobId)).find((r) => !before.has(r.id))?.id,
  );
}

export type PlainServer = RunningServer & { admin: Client };

/**
 * A server in this process on a store that already exists (DATA_DIR of a killed process, or
 * its PostgreSQL database): the restart after a crash, as an operator restarts it.
 */
export async function startServerOn(env: Record<string, string>): Promise<PlainServer> {
  const config = loadConfig({
    PORT: "0",
    HOST: "127.0.0.1",
    ADMIN_USERNAME: ADMIN.username,
    ADMIN_PASSWORD: ADMIN.password,
    SECRET_KEY,
    LOG_LEVEL: "silent",
    ...env,
  });
  const server = await startServer(config, pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" }), { graceMs: 2000 });
  const admin = new Client(server.url);
  await admin.login(ADMIN.username, ADMIN.password);
  return { ...server, admin };
}
