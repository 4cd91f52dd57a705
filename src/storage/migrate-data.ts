import type { Storage } from "./db.js";
import { migrate } from "./db.js";
import type { Database } from "./schema.js";

/**
 * Every table, parents before children, with the columns that order its rows for paging. Login
 * failures (a 15-minute window) and sessions (sign-ins) are copied too, so nobody is signed out.
 */
const TABLES: { name: keyof Database; order: string[] }[] = [
  { name: "users", order: ["id"] },
  { name: "spaces", order: ["id"] },
  { name: "space_members", order: ["space_id", "user_id"] },
  { name: "sessions", order: ["id"] },
  { name: "observer_keys", order: ["id"] },
  { name: "delivery_interfaces", order: ["id"] },
  { name: "ai_providers", order: ["id"] },
  { name: "jobs", order: ["id"] },
  { name: "blueprints", order: ["id"] },
  { name: "settings", order: ["key"] },
  { name: "login_failures", order: ["username", "address", "at"] },
  { name: "runs", order: ["id"] },
  { name: "deliveries", order: ["id"] },
  { name: "audit_log", order: ["id"] },
];

const BATCH = 500;

export class MigrateDataError extends Error {}

/**
 * Copies every row of `source` into `target` (migrated first, and required to be empty) in one
 * transaction: it all arrives, or nothing does. Values are copied as stored: both databases keep
 * JSON as text, booleans as integers and times as ISO text. Report files are not rows; they stay
 * where FILES_URL (or DATA_DIR/files) keeps them. `progress` gets a line per table.
 */
export async function migrateData(
  source: Storage,
  target: Storage,
  progress: (line: string) => void,
): Promise<Record<string, number>> {
  await migrate(source);
  const users = await source.db
    .selectFrom("users")
    .select((e) => e.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  if (Number(users.n) === 0) {
    throw new MigrateDataError(`${source.description} holds no users: is DATA_DIR (or DATABASE_URL) the one to copy?`);
  }
  const applied = await migrate(target);
  if (applied.length) progress(`${target.description}: applied migrations ${applied.join(", ")}`);
  for (const { name } of TABLES) {
    const row = await target.db
      .selectFrom(name)
      .select((e) => e.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    if (Number(row.n) > 0) {
      throw new MigrateDataError(
        `the target database is not empty (${name} has ${row.n} rows): copy into a new, empty database`,
      );
    }
  }
  const copied: Record<string, number> = {};
  await target.db.transaction().execute(async (trx) => {
    for (const { name, order } of TABLES) {
      let count = 0;
      for (let offset = 0; ; offset += BATCH) {
        let query = source.db.selectFrom(name).selectAll();
        for (const column of order) query = query.orderBy(column as never);
        const rows = await query.limit(BATCH).offset(offset).execute();
        if (rows.length === 0) break;
        await trx
          .insertInto(name)
          .values(rows as never)
          .execute();
        count += rows.length;
        if (count % 10_000 < BATCH && count >= 10_000) progress(`  ${name}: ${count} rows …`);
      }
      copied[name] = count;
      progress(`${name}: ${count} row${count === 1 ? "" : "s"}`);
    }
  });
  return copied;
}
