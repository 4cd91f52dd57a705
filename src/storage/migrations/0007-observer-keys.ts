import type { Kysely } from "kysely";

/**
 * Observer keys: named read-only credentials for monitors (the full health listing and
 * /metrics). Only a SHA-256 of the key is kept; the unique index is how a key is looked up.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("observer_keys")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("key_hash", "text", (c) => c.notNull().unique())
    // Who created it; the key outlives its creator's account (it belongs to the installation).
    .addColumn("created_by", "text", (c) => c.references("users.id").onDelete("set null"))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("last_used_at", "text")
    .execute();
}
