import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import pino from "pino";
import { loadConfig } from "../../src/config/config.js";
import { type RunningServer, startServer } from "../../src/server.js";
import { Client } from "./client.js";

export type Dialect = "sqlite" | "postgres";

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;
export const ADMIN = { username: "admin", password: "admin-password-1" };

/** The databases a suite runs on: SQLite always, PostgreSQL when TEST_DATABASE_URL is set. */
export const DIALECTS: Dialect[] = TEST_DATABASE_URL ? ["sqlite", "postgres"] : ["sqlite"];

let warned = false;
/** Says once per file that PostgreSQL cases are skipped, and why. */
export function notePostgresSkip() {
  if (!TEST_DATABASE_URL && !warned) {
    warned = true;
    console.warn("PostgreSQL cases skipped: TEST_DATABASE_URL is not set (.ci/run sets it to the local server).");
  }
}

export type TestServer = RunningServer & {
  dialect: Dialect;
  dataDir: string;
  /** A client logged in as the system admin. */
  admin: Client;
  client(): Client;
};

/**
 * A real server on a random port with a database of its own: a temporary folder for SQLite, a
 * fresh schema for PostgreSQL (dropped on stop).
 */
export async function startTestServer(
  dialect: Dialect,
  env: Record<string, string> = {},
  options: {
    worker?: boolean;
    graceMs?: number;
    maxCaptureMs?: number;
    /** Start on this folder (a restart); it is then not removed on stop. */
    dataDir?: string;
    /** Called with the logger's lines (JSON objects), for tests of what is logged. */
    onLog?: (line: Record<string, unknown>) => void;
  } = {},
): Promise<TestServer> {
  notePostgresSkip();
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "pagewright-test-"));
  let pgSchema: string | undefined;
  if (dialect === "postgres") {
    if (!TEST_DATABASE_URL) throw new Error("TEST_DATABASE_URL is not set");
    pgSchema = `t_${crypto.randomBytes(6).toString("hex")}`;
    await withPg((c) => c.query(`create schema ${pgSchema}`));
  }
  const config = loadConfig({
    PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    ADMIN_USERNAME: ADMIN.username,
    ADMIN_PASSWORD: ADMIN.password,
    SECRET_KEY: "test-secret-key-0123456789abcdef",
    LOG_LEVEL: "silent",
    ...(dialect === "postgres" ? { DATABASE_URL: TEST_DATABASE_URL } : {}),
    ...env,
  });
  const logger = options.onLog
    ? pino({ level: "info" }, { write: (line: string) => options.onLog?.(JSON.parse(line)) })
    : pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" });
  const server = await startServer(config, logger, {
    pgSchema,
    graceMs: options.graceMs ?? 2000,
    worker: options.worker,
    maxCaptureMs: options.maxCaptureMs,
  });
  const admin = new Client(server.url);
  await admin.login(ADMIN.username, ADMIN.password);
  return {
    ...server,
    dialect,
    dataDir,
    admin,
    client: () => new Client(server.url),
    async stop() {
      await server.stop();
      if (!options.dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
      if (pgSchema) {
        await withPg((c) => c.query(`drop schema ${pgSchema} cascade; drop schema if exists ${pgSchema}_boss cascade`));
      }
    },
  };
}

async function withPg<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
