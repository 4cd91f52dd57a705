import type { Kysely } from "kysely";

/**
 * Deliveries: one row per attempt to send a run's report through an interface. Health reads
 * an interface's last 24 hours by (interface_id, at); throttling reads a job's last sent one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("deliveries")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("run_id", "text", (c) => c.notNull())
    .addColumn("job_id", "text", (c) => c.notNull())
    .addColumn("space_id", "text", (c) => c.notNull().references("spaces.id").onDelete("cascade"))
    .addColumn("interface_id", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("error", "text")
    .addColumn("status", "integer")
    .addColumn("at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("deliveries_interface_at").on("deliveries").columns(["interface_id", "at"]).execute();
  await db.schema.createIndex("deliveries_run").on("deliveries").column("run_id").execute();
  await db.schema.createIndex("deliveries_job_state_at").on("deliveries").columns(["job_id", "state", "at"]).execute();
  // Health reads each job's latest finished runs.
  await db.schema.createIndex("runs_job_finished").on("runs").columns(["job_id", "finished_at"]).execute();
}
