import type { Kysely } from "kysely";

/** Runs: one row per attempt; lists are read newest first by (space, queued_at, id). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("runs")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("space_id", "text", (c) => c.notNull().references("spaces.id").onDelete("cascade"))
    .addColumn("job_id", "text", (c) => c.notNull())
    .addColumn("job_name", "text", (c) => c.notNull())
    .addColumn("trigger", "text", (c) => c.notNull())
    .addColumn("attempt", "integer", (c) => c.notNull())
    .addColumn("retry_of", "text")
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("queued_at", "text", (c) => c.notNull())
    .addColumn("not_before", "text", (c) => c.notNull())
    .addColumn("started_at", "text")
    .addColumn("finished_at", "text")
    .addColumn("duration_ms", "integer")
    .addColumn("error", "text")
    .addColumn("variables", "text", (c) => c.notNull())
    .addColumn("steps", "text", (c) => c.notNull())
    .addColumn("snapshots", "text", (c) => c.notNull())
    .addColumn("files", "text", (c) => c.notNull())
    .addColumn("deliveries", "text", (c) => c.notNull())
    .addColumn("token", "text", (c) => c.notNull())
    .addColumn("job_body", "text")
    .addColumn("worker", "text")
    .addColumn("heartbeat_at", "text")
    .execute();
  await db.schema.createIndex("runs_space_queued").on("runs").columns(["space_id", "queued_at", "id"]).execute();
  await db.schema.createIndex("runs_job_queued").on("runs").columns(["job_id", "queued_at"]).execute();
  await db.schema.createIndex("runs_state_not_before").on("runs").columns(["state", "not_before"]).execute();
  await db.schema.createIndex("runs_finished_at").on("runs").column("finished_at").execute();
}
