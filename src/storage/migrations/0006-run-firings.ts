import type { Kysely } from "kysely";

/**
 * The cron firing a scheduled run belongs to (the minute, ISO). The unique index makes a firing
 * produce one run however many processes try to record it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("runs").addColumn("scheduled_for", "text").execute();
  await db.schema.createIndex("runs_job_firing").unique().on("runs").columns(["job_id", "scheduled_for"]).execute();
  // The sweeper looks for running runs whose worker has gone quiet.
  await db.schema.createIndex("runs_state_heartbeat").on("runs").columns(["state", "heartbeat_at"]).execute();
}
