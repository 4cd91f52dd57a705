import type { AppContext } from "../app-context.js";
import { runFolderKey } from "../files/file-store.js";

/**
 * Deletes runs with what belongs to them: their files (snapshots, reports), their delivery
 * records, then the rows. Files go first: a crash half-way leaves rows whose files are missing
 * (their links answer 404), never files that nothing points to.
 */
export async function removeRuns(ctx: Pick<AppContext, "files" | "deliveries" | "runs">, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  for (const id of ids) await ctx.files.deletePrefix(runFolderKey(id)).catch(() => undefined);
  await ctx.deliveries.deleteForRuns(ids);
  await ctx.runs.delete(ids);
}
