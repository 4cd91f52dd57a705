import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { DIALECTS, TEST_DATABASE_URL } from "../../test/helpers/server.js";
import { migrate, migrationNames, openStorage, type Storage } from "./db.js";

/**
 * The tables and columns the migrations produce, on both databases. A migration that changes
 * the schema must change this list (and src/storage/schema.ts) in the same commit.
 */
const EXPECTED: Record<string, string[]> = {
  audit_log: [
    "action",
    "actor_id",
    "actor_name",
    "at",
    "changes",
    "id",
    "space_id",
    "target_id",
    "target_name",
    "target_type",
  ],
  ai_providers: ["config", "created_at", "id", "name", "secrets", "space_id", "updated_at", "vendor"],
  blueprints: ["body", "created_at", "id", "name", "space_id", "updated_at"],
  deliveries: ["at", "error", "id", "interface_id", "job_id", "run_id", "space_id", "state", "status", "type"],
  delivery_interfaces: ["config", "created_at", "id", "name", "secrets", "space_id", "type", "updated_at"],
  jobs: ["body", "created_at", "cron", "enabled", "id", "name", "secrets", "space_id", "updated_at"],
  login_failures: ["address", "at", "username"],
  observer_keys: ["created_at", "created_by", "id", "key_hash", "last_used_at", "name"],
  runs: [
    "attempt",
    "deliveries",
    "duration_ms",
    "error",
    "files",
    "finished_at",
    "heartbeat_at",
    "id",
    "job_body",
    "job_id",
    "job_name",
    "not_before",
    "queued_at",
    "retry_of",
    "scheduled_for",
    "snapshots",
    "space_id",
    "started_at",
    "state",
    "steps",
    "token",
    "trigger",
    "variables",
    "worker",
  ],
  sessions: ["created_at", "expires_at", "id", "last_seen_at", "user_id"],
  settings: ["key", "value"],
  space_members: ["access", "space_id", "user_id"],
  spaces: ["created_at", "id", "name"],
  users: ["created_at", "email", "id", "password_hash", "system_role", "updated_at", "username"],
};

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function freshStorage(dialect: "sqlite" | "postgres"): Promise<Storage> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "pagewright-migrations-"));
  cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
  if (dialect === "sqlite") return openStorage({ dataDir });
  const schema = `m_${crypto.randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  cleanups.push(async () => {
    await admin.query(`drop schema ${schema} cascade`);
    await admin.end();
  });
  return openStorage({ dataDir, databaseUrl: TEST_DATABASE_URL, pgSchema: schema });
}

describe.each(DIALECTS)("migrations on %s", (dialect) => {
  it("produce exactly the expected tables and columns, and apply once", async () => {
    const storage = await freshStorage(dialect);
    try {
      expect(await migrate(storage)).toEqual(migrationNames);
      expect(await migrate(storage)).toEqual([]);
      const tables = await storage.db.introspection.getTables();
      const found = Object.fromEntries(
        tables
          .filter((t) => !t.name.startsWith("kysely_") && (!storage.pgSchema || t.schema === storage.pgSchema))
          .map((t) => [t.name, t.columns.map((c) => c.name).sort()]),
      );
      expect(found).toEqual(EXPECTED);
    } finally {
      await storage.destroy();
    }
  });
});
