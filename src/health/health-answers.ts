import { sql } from "kysely";
import type { Storage } from "../storage/db.js";
import type { HealthReader } from "./health-queries.js";
import { buildHealth, summarizeHealth } from "./health-report.js";

/**
 * The serialized health answers, computed again only when the database changed. Monitors poll
 * this endpoint every few seconds; between two writes the answer cannot differ, so it is kept
 * together with a stamp of the database's write state, and a request costs one tiny query
 * while the stamp matches:
 *
 * - PostgreSQL: the current snapshot (`xmin:xmax:in-progress ids`). Any transaction that wrote
 *   something, in any process, has an id that changes it when it starts or ends.
 * - SQLite: total_changes() of the server's one connection (every row its statements wrote)
 *   with PRAGMA data_version (commits by other connections, such as the CLI).
 *
 * The stamp is read before the answer is computed, so a write landing in between only causes
 * one more computation, never a stale answer. The time windows (30 days, 24 hours) slide
 * without writes, so an answer is also recomputed once it is `maxAgeMs` old. At most one
 * computation runs at a time; requests arriving meanwhile wait for it and share it.
 */
/** Encoded once per computation: a thousand jobs make a body of about half a megabyte. */
export type HealthAnswers = { full: Buffer; summary: Buffer };

export function createHealthAnswers(
  storage: Pick<Storage, "db" | "dialect">,
  reader: HealthReader,
  options: { maxAgeMs?: number } = {},
) {
  const maxAgeMs = options.maxAgeMs ?? 5000;
  const stampQuery =
    storage.dialect === "postgres"
      ? sql<{ stamp: string }>`select pg_current_snapshot()::text as stamp`
      : sql<{
          stamp: string;
        }>`select total_changes() || ':' || (select data_version from pragma_data_version) as stamp`;
  let cached: (HealthAnswers & { stamp: string; at: number }) | undefined;
  let computing: Promise<HealthAnswers & { stamp: string; at: number }> | undefined;

  const readStamp = async () => (await stampQuery.execute(storage.db)).rows[0].stamp;

  async function compute(stamp: string) {
    const at = Date.now();
    const full = await buildHealth(reader, new Date(at));
    const answers = {
      stamp,
      at,
      full: Buffer.from(JSON.stringify(full)),
      summary: Buffer.from(JSON.stringify(summarizeHealth(full))),
    };
    cached = answers;
    return answers;
  }

  return {
    async get(): Promise<HealthAnswers> {
      for (;;) {
        const stamp = await readStamp();
        if (cached && cached.stamp === stamp && Date.now() - cached.at < maxAgeMs) return cached;
        if (computing) {
          const current = await computing.catch(() => undefined);
          // Computed for the state this request saw: share it. Otherwise look again.
          if (current?.stamp === stamp) return current;
          continue;
        }
        computing = compute(stamp).finally(() => {
          computing = undefined;
        });
        return computing;
      }
    },
  };
}
