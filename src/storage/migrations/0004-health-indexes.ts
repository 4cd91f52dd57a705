import type { Kysely } from "kysely";

/**
 * Covering indexes for the health answer, which reads each job's last five runs and each
 * interface's deliveries of the last 24 hours on every request. With trigger and state in the
 * index those reads never touch the table rows (an index-only scan on PostgreSQL), which keeps
 * the answer fast at millions of runs. Each replaces the narrower index that is its prefix: the
 * queries that used those (retention, throttling) are served by the wider one as well.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex("runs_job_finished_trigger_state")
    .on("runs")
    .columns(["job_id", "finished_at", "trigger", "state"])
    .execute();
  await db.schema.dropIndex("runs_job_finished").execute();
  await db.schema
    .createIndex("deliveries_interface_at_state")
    .on("deliveries")
    .columns(["interface_id", "at", "state"])
    .execute();
  await db.schema.dropIndex("deliveries_interface_at").execute();
}
