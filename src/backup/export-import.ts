import type { Kysely } from "kysely";
import type { AppContext } from "../app-context.js";
import { conflict, invalid } from "../errors.js";
import { HEALTH_ALERTS_LEASE_KEY } from "../health/health-monitor.js";
import type { Issue } from "../schemas/errors.js";
import { migrationNames } from "../storage/db.js";
import type { Database } from "../storage/schema.js";
import { nowIso } from "../storage/time.js";
import { VERSION } from "../version.js";

/**
 * Export and import: everything Pagewright stores but files, as one versioned JSON document.
 * Rows travel as stored: password hashes, and secrets still sealed with SECRET_KEY. An import is a
 * restore: it checks the whole document first, then replaces every table in one transaction.
 */

export const EXPORT_FORMAT = "pagewright-export";
/** The document's own shape; rows follow the database schema, named by `schema`. */
export const EXPORT_VERSION = 1;

/** Parents before children: the order of inserts (and, reversed, of deletes). */
const TABLES = [
  "users",
  "spaces",
  "space_members",
  "observer_keys",
  "delivery_interfaces",
  "ai_providers",
  "jobs",
  "blueprints",
  "settings",
  "audit_log",
  "runs",
  "deliveries",
] as const satisfies readonly (keyof Database)[];
type Table = (typeof TABLES)[number];
/** Run history, optional in an export. */
const HISTORY = new Set<Table>(["runs", "deliveries"]);
/** Not exported: sign-ins and the failed-login window belong to the running instance. */
const WIPED: (keyof Database)[] = ["sessions", "login_failures"];

/** Settings that describe the running process, not the data: never exported or imported. */
const LOCAL_SETTINGS = new Set(["scheduler.lastAliveAt", "import.running", HEALTH_ALERTS_LEASE_KEY]);
const IMPORT_LOCK = "import.running";
/** An import lock older than this belongs to a process that died during an import. */
const LOCK_STALE_MS = 60 * 60 * 1000;

export type ExportDocument = {
  format: typeof EXPORT_FORMAT;
  version: number;
  appVersion: string;
  /** The last migration of the database it came from. */
  schema: string;
  exportedAt: string;
  includesRuns: boolean;
  /** A value sealed with the SECRET_KEY of the exporting instance: an import checks it opens. */
  keyCheck: string;
  tables: Partial<Record<Table, Record<string, unknown>[]>>;
};

export async function exportData(ctx: AppContext, options: { runs: boolean }): Promise<ExportDocument> {
  const tables: ExportDocument["tables"] = {};
  for (const table of TABLES) {
    if (HISTORY.has(table) && !options.runs) continue;
    let rows = (await ctx.storage.db.selectFrom(table).selectAll().execute()) as Record<string, unknown>[];
    if (table === "settings") rows = rows.filter((r) => !LOCAL_SETTINGS.has(String(r.key)));
    tables[table] = rows;
  }
  return {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    appVersion: VERSION,
    schema: migrationNames[migrationNames.length - 1],
    exportedAt: nowIso(),
    includesRuns: options.runs,
    keyCheck: ctx.box.seal({ check: "pagewright" }),
    tables,
  };
}

/** Does the sealed value open with this instance's SECRET_KEY? */
function opens(ctx: AppContext, sealed: string): boolean {
  try {
    ctx.box.open(sealed);
    return true;
  } catch {
    return false;
  }
}

type Column = { name: string; nullable: boolean; numeric: boolean; hasDefault: boolean };

async function columnsOf(db: Kysely<Database>, pgSchema: string | undefined): Promise<Map<string, Column[]>> {
  // PostgreSQL lists the tables of every schema: keep those of ours (tests give each server one).
  const all = await db.introspection.getTables();
  const ours = all.filter((t) => t.schema === undefined || t.schema === (pgSchema ?? "public"));
  const tables = ours.some((t) => t.name === "users") ? ours : all;
  return new Map(
    tables.map((t) => [
      t.name,
      t.columns.map((c) => ({
        name: c.name,
        nullable: c.isNullable,
        numeric: /int|numeric|real|double|float/i.test(c.dataType),
        hasDefault: c.hasDefaultValue,
      })),
    ]),
  );
}

/**
 * Checks the whole document and brings it to the current schema: every table known, every row an
 * object of known columns with values of the column's type, every required column there (a column
 * added by a later migration, when it may be null, is filled with null: that is how a file of an
 * older version is upgraded), references between tables intact. Throws 400 naming each problem.
 */
export async function checkImport(ctx: AppContext, raw: unknown): Promise<ExportDocument> {
  const issues: Issue[] = [];
  const fail = (path: (string | number)[], message: string) => {
    if (issues.length < 50) issues.push({ path, code: "custom", message });
  };
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw invalid([{ path: [], code: "invalid_type", message: "an export document (a JSON object) is expected" }]);
  }
  const doc = raw as Partial<ExportDocument>;
  if (doc.format !== EXPORT_FORMAT) fail(["format"], `must be "${EXPORT_FORMAT}": this is not a Pagewright export`);
  if (typeof doc.version !== "number" || doc.version < 1 || doc.version > EXPORT_VERSION) {
    fail(["version"], `this Pagewright reads export versions 1 to ${EXPORT_VERSION}`);
  }
  if (typeof doc.schema !== "string" || !migrationNames.includes(doc.schema)) {
    fail(["schema"], "comes from a newer or unknown Pagewright: upgrade this instance first");
  }
  if (typeof doc.keyCheck !== "string" || !opens(ctx, doc.keyCheck)) {
    fail(["keyCheck"], "was exported with another SECRET_KEY: start this instance with the exporting one's key");
  }
  if (typeof doc.tables !== "object" || doc.tables === null) fail(["tables"], "the tables are missing");
  if (issues.length > 0) throw invalid(issues);

  const columns = await columnsOf(ctx.storage.db, ctx.storage.pgSchema);
  const tables = doc.tables as Record<string, unknown>;
  for (const name of Object.keys(tables)) {
    if (!(TABLES as readonly string[]).includes(name)) fail(["tables", name], "not a table of Pagewright's exports");
  }
  const upgraded: ExportDocument["tables"] = {};
  for (const table of TABLES) {
    const rows = tables[table];
    if (rows === undefined) {
      if (!HISTORY.has(table) && table !== "observer_keys" && table !== "audit_log") {
        fail(["tables", table], "missing");
      }
      continue;
    }
    if (!Array.isArray(rows)) {
      fail(["tables", table], "must be a list of rows");
      continue;
    }
    const known = columns.get(table) ?? [];
    upgraded[table] = rows.map((row, index) => {
      const at = ["tables", table, index];
      if (typeof row !== "object" || row === null || Array.isArray(row)) {
        fail(at, "a row must be an object");
        return {};
      }
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(row)) {
        if (!known.some((c) => c.name === key)) fail([...at, key], "not a column of this table");
      }
      for (const column of known) {
        const value = (row as Record<string, unknown>)[column.name];
        if (value === undefined || value === null) {
          if (!column.nullable && !column.hasDefault) fail([...at, column.name], "required");
          else if (value === null || column.nullable) out[column.name] = null;
          continue;
        }
        const ok = column.numeric ? typeof value === "number" && Number.isFinite(value) : typeof value === "string";
        if (!ok) fail([...at, column.name], `must be ${column.numeric ? "a number" : "a string"}`);
        out[column.name] = value;
      }
      return out;
    });
  }
  if (issues.length === 0) checkReferences(upgraded, fail);
  if (issues.length > 0) throw invalid(issues);
  return { ...(doc as ExportDocument), tables: upgraded };
}

function checkReferences(tables: ExportDocument["tables"], fail: (path: (string | number)[], message: string) => void) {
  const ids = (table: Table, key = "id") => new Set((tables[table] ?? []).map((r) => String(r[key])));
  const users = ids("users");
  const spaces = ids("spaces");
  if (users.size === 0) fail(["tables", "users"], "holds no user: nobody could sign in");
  const check = (table: Table, column: string, known: Set<string>, what: string) => {
    (tables[table] ?? []).forEach((row, index) => {
      if (row[column] !== null && !known.has(String(row[column]))) {
        fail(["tables", table, index, column], `names a ${what} that is not in the file`);
      }
    });
  };
  check("space_members", "space_id", spaces, "space");
  check("space_members", "user_id", users, "user");
  for (const table of ["jobs", "blueprints", "delivery_interfaces", "ai_providers", "runs"] as const) {
    check(table, "space_id", spaces, "space");
  }
  check("observer_keys", "created_by", users, "user");
}

/**
 * Replaces everything with the document's rows, in one transaction, while no other import runs
 * (409 otherwise, on any process: the lock is a row). Sessions end: everyone signs in again.
 */
export async function importData(ctx: AppContext, raw: unknown): Promise<Record<string, number>> {
  const doc = await checkImport(ctx, raw);
  const db = ctx.storage.db;
  const staleBefore = new Date(Date.now() - LOCK_STALE_MS).toISOString();
  await db
    .deleteFrom("settings")
    .where("key", "=", IMPORT_LOCK)
    .where("value", "<", JSON.stringify(staleBefore))
    .execute();
  const locked = await db
    .insertInto("settings")
    .values({ key: IMPORT_LOCK, value: JSON.stringify(nowIso()) })
    .onConflict((oc) => oc.column("key").doNothing())
    .executeTakeFirst();
  if (Number(locked.numInsertedOrUpdatedRows ?? 0) !== 1)
    throw conflict("another import is running; try again when it has ended");
  const counts: Record<string, number> = {};
  try {
    const oldJobIds = (await db.selectFrom("jobs").select("id").execute()).map((r) => r.id);
    await db.transaction().execute(async (trx) => {
      for (const table of [...TABLES].reverse()) {
        if (HISTORY.has(table) && !doc.includesRuns) continue;
        if (table === "settings") await trx.deleteFrom("settings").where("key", "!=", IMPORT_LOCK).execute();
        else await trx.deleteFrom(table).execute();
      }
      for (const table of WIPED) await trx.deleteFrom(table).execute();
      for (const table of TABLES) {
        const rows = (doc.tables[table] ?? []).filter(
          (r) => table !== "settings" || !LOCAL_SETTINGS.has(String(r.key)),
        );
        for (let i = 0; i < rows.length; i += 200) {
          await trx
            .insertInto(table)
            .values(rows.slice(i, i + 200) as never)
            .execute();
        }
        counts[table] = rows.length;
      }
    });
    // The schedule follows the restored jobs.
    for (const id of oldJobIds) ctx.jobEvents.emit("deleted", id);
    for (const space of await ctx.spaces.list()) {
      for (const job of await ctx.jobs.list(space.id)) ctx.jobEvents.emit("changed", job);
    }
    return counts;
  } finally {
    await db.deleteFrom("settings").where("key", "=", IMPORT_LOCK).execute();
  }
}
