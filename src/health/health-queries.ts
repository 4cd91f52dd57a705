import { type Kysely, sql } from "kysely";
import type { DialectName, Storage } from "../storage/db.js";
import type { RunState } from "../storage/repositories/runs-repository.js";
import type { Database } from "../storage/schema.js";
import { nowIso } from "../storage/time.js";
import { INTERFACE_WINDOW_MS, JOB_RUNS_COUNTED, JOB_WINDOW_MS } from "./health-colours.js";

/**
 * The reads behind the health answer. They must stay fast with millions of runs, so none scans
 * a window of history: each job's last runs come from a correlated subquery that seeks the
 * covering index runs (job_id, finished_at, trigger, state) backwards and stops after five
 * rows, and each interface's counts from seeks on deliveries (interface_id, at, state)
 * (migration 0004). The same SQL serves SQLite and PostgreSQL except for the error listing,
 * which uses a LATERAL join where PostgreSQL has one and a correlated `IN (… LIMIT n)` on SQLite.
 */

export type JobRuns = {
  id: string;
  name: string;
  description: string;
  cron: string | null;
  /** Newest first, at most five; `finishedAt` as stored (ISO 8601 UTC with milliseconds). */
  runs: { state: RunState; finishedAt: string }[];
};

export type InterfaceDeliveries = {
  id: string;
  name: string;
  type: string;
  totalCount: number;
  errorCount: number;
  /** The newest failures, newest first, at most INTERFACE_ERRORS_SHOWN. */
  errors: { at: string; runId: string; jobId: string; message: string }[];
};

/** errorCount counts every failure; the listing shows the newest ones, so an answer stays small. */
export const INTERFACE_ERRORS_SHOWN = 10;

export type HealthReader = ReturnType<typeof createHealthReader>;

export function createHealthReader(storage: Pick<Storage, "db" | "dialect">) {
  const { db, dialect } = storage;
  /**
   * Descriptions live inside the stored job body; parsing a thousand bodies per answer costs
   * more than the rest of it, so they are kept per job and read again when `updated_at` moves.
   */
  const descriptions = new Map<string, { updatedAt: string; description: string }>();

  async function refreshDescriptions(jobs: { id: string; updated_at: string }[]) {
    const stale = jobs.filter((job) => descriptions.get(job.id)?.updatedAt !== job.updated_at).map((j) => j.id);
    if (stale.length === 0) return;
    let query = db.selectFrom("jobs").select(["id", "updated_at", descriptionOf(dialect).as("description")]);
    // Few changed jobs: read those; many (the first answer): read all rather than list ids.
    if (stale.length <= 200) query = query.where("id", "in", stale);
    for (const row of await query.execute()) {
      descriptions.set(row.id, { updatedAt: row.updated_at, description: row.description ?? "" });
    }
    if (descriptions.size > jobs.length) {
      const present = new Set(jobs.map((j) => j.id));
      for (const id of descriptions.keys()) if (!present.has(id)) descriptions.delete(id);
    }
  }

  return {
    /** Every job of every space with its last counted runs (not `test`, finished in the last 30 days). */
    async jobs(now: Date): Promise<JobRuns[]> {
      const since = nowIso(new Date(now.getTime() - JOB_WINDOW_MS));
      const rows = await db
        .selectFrom("jobs as j")
        .select((eb) => [
          "j.id",
          "j.name",
          "j.cron",
          "j.updated_at",
          eb
            .selectFrom(
              eb
                .selectFrom("runs as r")
                .select(["r.state", "r.finished_at"])
                .whereRef("r.job_id", "=", "j.id")
                .where("r.finished_at", ">", since)
                .where("r.trigger", "!=", "test")
                // By finished_at alone: a tie-breaker would make the database sort the window.
                .orderBy("r.finished_at", "desc")
                .limit(JOB_RUNS_COUNTED)
                .as("recent"),
            )
            // One text per job ("success 2026-…Z,failed 2026-…Z"): 1,000 rows, not 5,000.
            .select(sql<string | null>`string_agg(recent.state || ' ' || recent.finished_at, ',')`.as("runs"))
            .as("runs"),
        ])
        .execute();
      await refreshDescriptions(rows);
      return rows.map((row) => ({
        id: row.id,
        name: row.name,
        description: descriptions.get(row.id)?.description ?? "",
        cron: row.cron,
        runs: parseRuns(row.runs),
      }));
    },

    /** Every delivery interface of every space with its deliveries of the last 24 h (throttled ones aside). */
    async interfaces(now: Date): Promise<InterfaceDeliveries[]> {
      const since = nowIso(new Date(now.getTime() - INTERFACE_WINDOW_MS));
      const [rows, errors] = await Promise.all([
        db
          .selectFrom("delivery_interfaces as i")
          .select((eb) => [
            "i.id",
            "i.name",
            "i.type",
            eb
              .selectFrom("deliveries as d")
              .select(eb.fn.countAll<number | string>().as("n"))
              .whereRef("d.interface_id", "=", "i.id")
              .where("d.at", ">", since)
              .where("d.state", "!=", "throttled")
              .as("total"),
            eb
              .selectFrom("deliveries as d")
              .select(eb.fn.countAll<number | string>().as("n"))
              .whereRef("d.interface_id", "=", "i.id")
              .where("d.at", ">", since)
              .where("d.state", "=", "failed")
              .as("failed"),
          ])
          .execute(),
        lastErrors(db, dialect, since),
      ]);
      const errorsById = new Map<string, InterfaceDeliveries["errors"]>();
      for (const e of errors) {
        const list = errorsById.get(e.interface_id) ?? [];
        if (list.length === 0) errorsById.set(e.interface_id, list);
        list.push({ at: e.at, runId: e.run_id, jobId: e.job_id, message: e.error ?? "failed" });
      }
      return rows.map((row) => ({
        id: row.id,
        name: row.name,
        type: row.type,
        totalCount: Number(row.total ?? 0),
        errorCount: Number(row.failed ?? 0),
        errors: (errorsById.get(row.id) ?? []).sort((a, b) => descending(a.at, b.at)),
      }));
    },
  };
}

const descending = (a: string, b: string) => (a < b ? 1 : a > b ? -1 : 0);

function parseRuns(text: string | null): JobRuns["runs"] {
  if (!text) return [];
  return text
    .split(",")
    .map((part) => {
      const space = part.indexOf(" ");
      return { state: part.slice(0, space) as RunState, finishedAt: part.slice(space + 1) };
    })
    .sort((a, b) => descending(a.finishedAt, b.finishedAt));
}

const descriptionOf = (dialect: DialectName) =>
  dialect === "postgres"
    ? sql<string | null>`(body::json ->> 'description')`
    : sql<string | null>`json_extract(body, '$.description')`;

function lastErrors(db: Kysely<Database>, dialect: DialectName, since: string) {
  const columns = ["d.interface_id", "d.at", "d.run_id", "d.job_id", "d.error"] as const;
  if (dialect === "postgres") {
    return db
      .selectFrom("delivery_interfaces as i")
      .innerJoinLateral(
        (eb) =>
          eb
            .selectFrom("deliveries")
            .select(["interface_id", "at", "run_id", "job_id", "error"])
            .whereRef("deliveries.interface_id", "=", "i.id")
            .where("deliveries.at", ">", since)
            .where("deliveries.state", "=", "failed")
            .orderBy("deliveries.at", "desc")
            .limit(INTERFACE_ERRORS_SHOWN)
            .as("d"),
        (join) => join.onTrue(),
      )
      .select(columns)
      .execute();
  }
  return db
    .selectFrom("delivery_interfaces as i")
    .innerJoin("deliveries as d", (join) =>
      join.on((eb) =>
        eb(
          "d.id",
          "in",
          eb
            .selectFrom("deliveries as l")
            .select("l.id")
            .whereRef("l.interface_id", "=", "i.id")
            .where("l.at", ">", since)
            .where("l.state", "=", "failed")
            .orderBy("l.at", "desc")
            .limit(INTERFACE_ERRORS_SHOWN),
        ),
      ),
    )
    .select(columns)
    .execute();
}
