import type { Kysely } from "kysely";
import type { Database } from "../storage/schema.js";

/**
 * Queued runs, read from the runs table (the queue, shared by every process): retries waiting for
 * their delay count too. The (state, heartbeat_at) index makes it a range scan of queued rows.
 */
export async function countQueuedRuns(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom("runs")
    .select((e) => e.fn.countAll<number>().as("n"))
    .where("state", "=", "queued")
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
