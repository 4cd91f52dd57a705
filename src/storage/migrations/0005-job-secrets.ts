import type { Kysely } from "kysely";

/** A job's own secrets (capture password, sensitive texts), sealed with SECRET_KEY. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("jobs").addColumn("secrets", "text").execute();
}
