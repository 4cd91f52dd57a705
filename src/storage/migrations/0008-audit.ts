import type { Kysely } from "kysely";

/** Who created, changed, ran or deleted what, and when, with the change. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("audit_log")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("at", "text", (c) => c.notNull())
    // null: a system-wide entry (users, spaces, settings).
    .addColumn("space_id", "text")
    .addColumn("actor_id", "text")
    .addColumn("actor_name", "text", (c) => c.notNull())
    .addColumn("action", "text", (c) => c.notNull())
    .addColumn("target_type", "text", (c) => c.notNull())
    .addColumn("target_id", "text", (c) => c.notNull())
    .addColumn("target_name", "text", (c) => c.notNull())
    .addColumn("changes", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("audit_log_at").on("audit_log").columns(["at", "id"]).execute();
  await db.schema.createIndex("audit_log_space_at").on("audit_log").columns(["space_id", "at", "id"]).execute();
}
