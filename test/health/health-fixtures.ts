import crypto from "node:crypto";
import type { DeliveryRow, RunRow } from "../../src/storage/schema.js";
import type { TestServer } from "../helpers/server.js";

/**
 * History written straight into the database, so that each health case is set up exactly: a
 * finished run at a chosen time, with a chosen state and trigger; a delivery attempt likewise.
 */

const MINUTE = 60_000;
export const minutesAgo = (minutes: number, from = Date.now()) => new Date(from - minutes * MINUTE).toISOString();
export const daysAgo = (days: number) => minutesAgo(days * 24 * 60);

export async function insertRun(
  server: TestServer,
  input: {
    jobId: string;
    state: RunRow["state"];
    /** ISO time; null for a run that has not finished. Default: a minute ago. */
    finishedAt?: string | null;
    trigger?: RunRow["trigger"];
    space?: string;
  },
): Promise<string> {
  const finishedAt = input.finishedAt === undefined ? minutesAgo(1) : input.finishedAt;
  const startedAt = new Date(Date.parse(finishedAt ?? new Date().toISOString()) - 5000).toISOString();
  const row: RunRow = {
    id: crypto.randomUUID(),
    space_id: input.space ?? "default",
    job_id: input.jobId,
    job_name: "a job",
    trigger: input.trigger ?? "schedule",
    attempt: 1,
    retry_of: null,
    state: input.state,
    queued_at: startedAt,
    not_before: startedAt,
    started_at: input.state === "queued" ? null : startedAt,
    finished_at: finishedAt,
    duration_ms: finishedAt ? 5000 : null,
    error: input.state === "failed" ? JSON.stringify({ message: "the page did not load" }) : null,
    variables: "{}",
    steps: "[]",
    snapshots: "[]",
    files: "[]",
    deliveries: "[]",
    token: crypto.randomBytes(12).toString("hex"),
    job_body: null,
    worker: null,
    heartbeat_at: null,
    scheduled_for: null,
  };
  await server.ctx.storage.db.insertInto("runs").values(row).execute();
  return row.id;
}

/** Runs of a job, newest first: `states[0]` finished `stepMinutes` ago, the next one earlier. */
export async function insertRuns(
  server: TestServer,
  jobId: string,
  states: RunRow["state"][],
  options: { trigger?: RunRow["trigger"]; startMinutesAgo?: number; stepMinutes?: number } = {},
): Promise<string[]> {
  const ids: string[] = [];
  const start = options.startMinutesAgo ?? 1;
  for (const [i, state] of states.entries()) {
    ids.push(
      await insertRun(server, {
        jobId,
        state,
        trigger: options.trigger,
        finishedAt: minutesAgo(start + i * (options.stepMinutes ?? 10)),
      }),
    );
  }
  return ids;
}

export async function insertDelivery(
  server: TestServer,
  input: {
    interfaceId: string;
    state: DeliveryRow["state"];
    at?: string;
    error?: string | null;
    runId?: string;
    jobId?: string;
  },
): Promise<DeliveryRow> {
  const row: DeliveryRow = {
    id: crypto.randomUUID(),
    run_id: input.runId ?? crypto.randomUUID(),
    job_id: input.jobId ?? crypto.randomUUID(),
    space_id: "default",
    interface_id: input.interfaceId,
    type: "webhook",
    state: input.state,
    error: input.state === "failed" ? (input.error ?? "HTTP 500: receiver failed") : null,
    status: input.state === "failed" ? 500 : input.state === "sent" ? 200 : null,
    at: input.at ?? minutesAgo(5),
  };
  await server.ctx.storage.db.insertInto("deliveries").values(row).execute();
  return row;
}

export const basic = (username: string, password: string) =>
  `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`;
