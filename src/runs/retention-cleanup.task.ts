import type { AppContext } from "../app-context.js";
import { removeRuns } from "./remove-runs.js";

/** Runs of unsaved jobs (tests) are kept this long. */
export const TEST_RUN_RETENTION_DAYS = 7;

/**
 * Deletes finished runs older than their job's `retentionDays`, files first (a crash between the
 * two leaves a run without files, never files without a run to find them by). Runs hourly.
 */
export async function deleteExpiredRuns(
  ctx: Pick<AppContext, "storage" | "runs" | "deliveries" | "files" | "log">,
  now = new Date(),
) {
  const { db } = ctx.storage;
  let deleted = 0;
  const jobs = await db.selectFrom("jobs").select(["id", "body"]).execute();
  const retention = new Map(jobs.map((j) => [j.id, (JSON.parse(j.body) as { retentionDays: number }).retentionDays]));
  const jobIds = await db.selectFrom("runs").select("job_id").distinct().execute();
  for (const { job_id: jobId } of jobIds) {
    const days = retention.get(jobId) ?? TEST_RUN_RETENTION_DAYS;
    const before = new Date(now.getTime() - days * 86_400_000);
    for (;;) {
      const ids = await ctx.runs.finishedBefore(jobId, before);
      if (ids.length === 0) break;
      await removeRuns(ctx, ids);
      deleted += ids.length;
    }
  }
  if (deleted > 0) ctx.log.info(`retention: deleted ${deleted} run(s) and their files`);
  return deleted;
}
