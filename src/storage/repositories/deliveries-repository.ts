import crypto from "node:crypto";
import type { Kysely } from "kysely";
import type { Database, DeliveryRow } from "../schema.js";
import { nowIso } from "../time.js";

/** A delivery attempt as runs and health read it. */
export type DeliveryRecord = {
  interfaceId: string;
  type: string;
  target: string | null;
  state: DeliveryRow["state"];
  error: string | null;
  status: number | null;
  at: string;
};

export function createDeliveriesRepository(db: Kysely<Database>) {
  return {
    async record(
      input: { runId: string; jobId: string; space: string } & Omit<DeliveryRecord, "at">,
    ): Promise<DeliveryRecord> {
      const at = nowIso();
      await db
        .insertInto("deliveries")
        .values({
          id: crypto.randomUUID(),
          run_id: input.runId,
          job_id: input.jobId,
          space_id: input.space,
          interface_id: input.interfaceId,
          type: input.type,
          state: input.state,
          error: input.error,
          status: input.status,
          at,
        })
        .execute();
      return {
        interfaceId: input.interfaceId,
        type: input.type,
        target: input.target,
        state: input.state,
        error: input.error,
        status: input.status,
        at,
      };
    },
    /** When a report of this job last reached someone: throttling counts only real deliveries. */
    async lastSentAt(jobId: string): Promise<string | undefined> {
      const row = await db
        .selectFrom("deliveries")
        .select("at")
        .where("job_id", "=", jobId)
        .where("state", "=", "sent")
        .orderBy("at", "desc")
        .limit(1)
        .executeTakeFirst();
      return row?.at;
    },
    async deleteForRuns(runIds: string[]) {
      if (runIds.length > 0) await db.deleteFrom("deliveries").where("run_id", "in", runIds).execute();
    },
  };
}
export type DeliveriesRepository = ReturnType<typeof createDeliveriesRepository>;
