import fs from "node:fs";
import path from "node:path";
import { Kysely, type Migration, type MigrationProvider, Migrator, PostgresDialect, SqliteDialect } from "kysely";
import * as m0001 from "./migrations/0001-initial.js";
import * as m0002 from "./migrations/0002-runs.js";
import * as m0003 from "./migrations/0003-deliveries.js";
import * as m0004 from "./migrations/0004-health-indexes.js";
import * as m0005 from "./migrations/0005-job-secrets.js";
import * as m0006 from "./migrations/0006-run-firings.js";
import * as m0007 from "./migrations/0007-observer-keys.js";
import * as m0008 from "./migrations/0008-audit.js";
import type { Database } from "./schema.js";

export type DialectName = "sqlite" | "postgres";

export type Storage = {
  db: Kysely<Database>;
  /** SQLite: the database file (backed up before a migration changes it). */
  file?: string;
  /** SQLite: a consistent copy of the live database into `to` (the online backup API). */
  backup?: (to: string) => Promise<void>;
  dialect: DialectName;
  /** What the start-up log shows: a file path or a URL without its password. */
  description: string;
  /** The PostgreSQL schema in use when one was chosen (tests), for the migration tables. */
  pgSchema?: string;
  destroy(): Promise<void>;
};

export type StorageOptions = {
  /** postgres://… or unset for SQLite. */
  databaseUrl?: string;
  /** Where the SQLite file lives. */
  dataDir: string;
  /** PostgreSQL schema to work in (tests use one per file); default: the server's search_path. */
  pgSchema?: string;
};

/** Migrations listed by hand, in order: the build has no folder to scan. */
const migrations: Record<string, Migration> = {
  "0001-initial": m0001,
  "0002-runs": m0002,
  "0003-deliveries": m0003,
  "0004-health-indexes": m0004,
  "0005-job-secrets": m0005,
  "0006-run-firings": m0006,
  "0007-observer-keys": m0007,
  "0008-audit": m0008,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

export async function openStorage(options: StorageOptions): Promise<Storage> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options.pgSchema);
  return openSqlite(options.dataDir);
}

async function openSqlite(dataDir: string): Promise<Storage> {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, "pagewright.db");
  const { default: SQLite } = await import("better-sqlite3");
  const database = new SQLite(file);
  // WAL lets readers go on while one writer writes; busy_timeout waits for a lock instead of
  // failing when a second process (the CLI) touches the same file.
  database.pragma("journal_mode = WAL");
  database.pragma("synchronous = NORMAL");
  database.pragma("foreign_keys = ON");
  database.pragma("busy_timeout = 5000");
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
  return {
    db,
    dialect: "sqlite",
    file,
    description: `SQLite ${file}`,
    backup: (to: string) => database.backup(to).then(() => undefined),
    destroy: () => db.destroy(),
  };
}

async function openPostgres(url: string, schema?: string): Promise<Storage> {
  const { default: pg } = await import("pg");
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const shown = new URL(url);
  if (shown.password) shown.password = "***";
  return {
    db,
    dialect: "postgres",
    description: `PostgreSQL ${shown.toString()}${schema ? ` (schema ${schema})` : ""}`,
    pgSchema: schema,
    destroy: () => db.destroy(),
  };
}

/** How many pre-migration copies of a SQLite database are kept in DATA_DIR/backups. */
export const KEPT_BACKUPS = 3;

/**
 * Applies pending migrations; returns the names applied. Throws on the first failure. Before a
 * migration changes an existing SQLite database, a copy goes to DATA_DIR/backups (the newest
 * three are kept); when the copy cannot be written, no migration runs.
 */
export async function migrate(storage: Storage): Promise<string[]> {
  // With a chosen schema, Kysely must look for its own tables there, not in any schema.
  const migrator = new Migrator({ db: storage.db, provider, migrationTableSchema: storage.pgSchema });
  if (storage.file && storage.backup) {
    const known = await migrator.getMigrations();
    const applied = known.filter((m) => m.executedAt);
    const pending = known.filter((m) => !m.executedAt);
    if (applied.length > 0 && pending.length > 0) await backupBeforeMigration(storage, pending[0].name);
  }
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
}

export const migrationNames = Object.keys(migrations);

/** The migrations, for tests that build a database of an older version. */
export const migrationsForTests = () => migrations;

async function backupBeforeMigration(storage: Storage, firstPending: string) {
  const folder = path.join(path.dirname(storage.file ?? ""), "backups");
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const target = path.join(folder, `pagewright-${stamp}-before-${firstPending}.db`);
  try {
    fs.mkdirSync(folder, { recursive: true });
    await storage.backup?.(target);
  } catch (error) {
    try {
      fs.rmSync(target, { force: true });
    } catch {
      // nothing was written there
    }
    throw new Error(
      `could not back up the database to ${folder} before migrating it (${(error as Error).message}); no migration was run`,
    );
  }
  const copies = fs
    .readdirSync(folder)
    .filter((name) => /^pagewright-.*-before-.*\.db$/.test(name))
    .sort();
  for (const old of copies.slice(0, Math.max(0, copies.length - KEPT_BACKUPS))) {
    fs.rmSync(path.join(folder, old), { force: true });
  }
}
