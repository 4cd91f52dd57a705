import crypto from "node:crypto";
import type { Kysely } from "kysely";
import type { SecretBox } from "../../auth/secret-box.js";
import type { Database, RunRow } from "../schema.js";
import { nowIso } from "../time.js";

export type RunState = RunRow["state"];
export type RunTrigger = RunRow["trigger"];
export const FINISHED_STATES: RunState[] = ["success", "partial", "failed", "skipped"];

/** A run as stored, with its JSON columns parsed. */
export type StoredRun = {
  id: string;
  space: string;
  jobId: string;
  jobName: string;
  trigger: RunTrigger;
  attempt: number;
  retryOf: string | null;
  state: RunState;
  queuedAt: string;
  notBefore: string;
  startedAt: string | null;
  finishedAt: string | null;
  durationMs: number | null;
  error: { message: string; stepId?: string } | null;
  variables: Record<string, unknown>;
  steps: unknown[];
  snapshots: { name: string; file: string }[];
  files: { name: string; kind: "html" | "pdf"; file: string }[];
  deliveries: unknown[];
  token: string;
  jobBody: unknown | null;
  worker: string | null;
};

const toRunWith =
  (box: SecretBox) =>
  (row: RunRow): StoredRun => ({
    id: row.id,
    space: row.space_id,
    jobId: row.job_id,
    jobName: row.job_name,
    trigger: row.trigger,
    attempt: row.attempt,
    retryOf: row.retry_of,
    state: row.state,
    queuedAt: row.queued_at,
    notBefore: row.not_before,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    durationMs: row.duration_ms,
    error: row.error ? JSON.parse(row.error) : null,
    variables: JSON.parse(row.variables),
    steps: JSON.parse(row.steps),
    snapshots: JSON.parse(row.snapshots),
    files: JSON.parse(row.files),
    deliveries: JSON.parse(row.deliveries),
    token: row.token,
    // A test run's body holds capture passwords: it is stored sealed.
    jobBody: row.job_body ? box.open(row.job_body) : null,
    worker: row.worker,
  });

export type RunFilter = {
  jobId?: string;
  state?: RunState;
  trigger?: StoredRun["trigger"];
  since?: string;
  until?: string;
};

/** Keyset cursor: the (queued_at, id) of the last row of a page. */
const encodeCursor = (row: { queued_at: string; id: string }) =>
  Buffer.from(`${row.queued_at}|${row.id}`).toString("base64url");
export function decodeCursor(cursor: string): { queuedAt: string; id: string } | undefined {
  const [queuedAt, id] = Buffer.from(cursor, "base64url").toString("utf8").split("|");
  // Exactly what encodeCursor writes: Date.parse alone accepts "Jan 1 2024 (\0)", which no
  // database column holds (PostgreSQL refuses the NUL with an error).
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/.test(queuedAt ?? "") || !/^[0-9a-f-]{36}$/.test(id ?? "")) {
    return undefined;
  }
  return { queuedAt, id };
}

type NewRun = {
  space: string;
  jobId: string;
  jobName: string;
  trigger: RunTrigger;
  attempt?: number;
  retryOf?: string | null;
  notBefore?: Date;
  jobBody?: unknown;
  state?: RunState;
};

export function createRunsRepository(
  db: Kysely<Database>,
  box: SecretBox,
  /** Told of every queued run recorded (scale-out: it is sent to the workers' pg-boss queue). */
  onQueued: (run: StoredRun) => void = () => {},
) {
  const toRun = toRunWith(box);
  const newRow = (input: NewRun): RunRow => {
    const now = nowIso();
    const row: RunRow = {
      id: crypto.randomUUID(),
      space_id: input.space,
      job_id: input.jobId,
      job_name: input.jobName,
      trigger: input.trigger,
      attempt: input.attempt ?? 1,
      retry_of: input.retryOf ?? null,
      state: input.state ?? "queued",
      queued_at: now,
      not_before: input.notBefore ? nowIso(input.notBefore) : now,
      started_at: null,
      finished_at: null,
      duration_ms: null,
      error: null,
      variables: "{}",
      steps: "[]",
      snapshots: "[]",
      files: "[]",
      deliveries: "[]",
      token: crypto.randomBytes(24).toString("base64url"),
      job_body: input.jobBody === undefined ? null : box.seal(input.jobBody),
      worker: null,
      heartbeat_at: null,
      scheduled_for: null,
    };
    return row;
  };

  return {
    async create(input: NewRun): Promise<StoredRun> {
      const row = newRow(input);
      await db.insertInto("runs").values(row).execute();
      const run = toRun(row);
      if (run.state === "queued") onQueued(run);
      return run;
    },

    /**
     * The run of a cron firing (`at`: the minute it fired for), or undefined when another process
     * recorded that firing first: the unique (job_id, scheduled_for) index decides, atomically.
     */
    async createForFiring(input: { space: string; jobId: string; jobName: string; at: Date }) {
      const row = newRow({ ...input, trigger: "schedule" });
      row.scheduled_for = nowIso(input.at);
      const result = await db
        .insertInto("runs")
        .values(row)
        .onConflict((oc) => oc.columns(["job_id", "scheduled_for"]).doNothing())
        .executeTakeFirst();
      if (Number(result.numInsertedOrUpdatedRows ?? 0) !== 1) return undefined;
      const run = toRun(row);
      onQueued(run);
      return run;
    },

    async get(id: string): Promise<StoredRun | undefined> {
      const row = await db.selectFrom("runs").selectAll().where("id", "=", id).executeTakeFirst();
      return row ? toRun(row) : undefined;
    },

    async getInSpace(space: string, id: string): Promise<StoredRun | undefined> {
      const row = await db
        .selectFrom("runs")
        .selectAll()
        .where("id", "=", id)
        .where("space_id", "=", space)
        .executeTakeFirst();
      return row ? toRun(row) : undefined;
    },

    /** Newest first, `limit` at a time, continuing after `cursor`: on the (space, queued_at, id) index. */
    async page(space: string, filter: RunFilter, limit: number, cursor?: { queuedAt: string; id: string }) {
      let query = db.selectFrom("runs").selectAll().where("space_id", "=", space);
      if (filter.jobId) query = query.where("job_id", "=", filter.jobId);
      if (filter.state) query = query.where("state", "=", filter.state);
      if (filter.trigger) query = query.where("trigger", "=", filter.trigger);
      if (filter.since) query = query.where("queued_at", ">=", filter.since);
      if (filter.until) query = query.where("queued_at", "<", filter.until);
      if (cursor) {
        query = query.where((e) =>
          e.or([
            e("queued_at", "<", cursor.queuedAt),
            e.and([e("queued_at", "=", cursor.queuedAt), e("id", "<", cursor.id)]),
          ]),
        );
      }
      const rows = await query
        .orderBy("queued_at", "desc")
        .orderBy("id", "desc")
        .limit(limit + 1)
        .execute();
      const items = rows.slice(0, limit);
      return {
        items: items.map(toRun),
        nextCursor: rows.length > limit ? encodeCursor(items[items.length - 1]) : null,
      };
    },

    /** Is a run of this job queued or running (a firing now would overlap)? */
    async hasActive(jobId: string): Promise<boolean> {
      const row = await db
        .selectFrom("runs")
        .select("id")
        .where("job_id", "=", jobId)
        .where("state", "in", ["queued", "running"])
        .where("trigger", "!=", "test")
        .executeTakeFirst();
      return row !== undefined;
    },

    /**
     * Takes the oldest due queued run for `worker`, or nothing. The conditional update makes the
     * claim safe when several workers poll: only one sees its update count 1.
     */
    async claimNext(worker: string, now = new Date()): Promise<StoredRun | undefined> {
      for (let tries = 0; tries < 5; tries++) {
        const candidate = await db
          .selectFrom("runs")
          .select("id")
          .where("state", "=", "queued")
          .where("not_before", "<=", nowIso(now))
          .orderBy("not_before")
          .orderBy("id")
          .limit(1)
          .executeTakeFirst();
        if (!candidate) return undefined;
        const at = nowIso();
        const result = await db
          .updateTable("runs")
          .set({ state: "running", worker, started_at: at, heartbeat_at: at })
          .where("id", "=", candidate.id)
          .where("state", "=", "queued")
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) === 1) return this.get(candidate.id);
      }
      return undefined;
    },

    /** Takes queued run `id` for `worker`, or nothing when it is gone, taken or no longer queued. */
    async claim(id: string, worker: string): Promise<StoredRun | undefined> {
      const at = nowIso();
      const result = await db
        .updateTable("runs")
        .set({ state: "running", worker, started_at: at, heartbeat_at: at })
        .where("id", "=", id)
        .where("state", "=", "queued")
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1 ? this.get(id) : undefined;
    },

    async heartbeat(worker: string, ids: string[]) {
      if (ids.length === 0) return;
      await db
        .updateTable("runs")
        .set({ heartbeat_at: nowIso() })
        .where("worker", "=", worker)
        .where("id", "in", ids)
        .execute();
    },

    /** Saves the progress of a running run, so that a crash keeps what was captured. */
    async saveProgress(
      id: string,
      progress: { steps: unknown[]; snapshots: unknown[]; variables: Record<string, unknown> },
    ) {
      await db
        .updateTable("runs")
        .set({
          steps: JSON.stringify(progress.steps),
          snapshots: JSON.stringify(progress.snapshots),
          variables: JSON.stringify(progress.variables),
        })
        .where("id", "=", id)
        .execute();
    },

    async finish(
      id: string,
      result: {
        state: RunState;
        error: { message: string; stepId?: string } | null;
        variables: Record<string, unknown>;
        steps: unknown[];
        snapshots: unknown[];
        files?: unknown[];
        deliveries?: unknown[];
      },
    ): Promise<StoredRun | undefined> {
      const run = await this.get(id);
      if (!run) return undefined;
      const finishedAt = new Date();
      await db
        .updateTable("runs")
        .set({
          state: result.state,
          error: result.error ? JSON.stringify(result.error) : null,
          variables: JSON.stringify(result.variables),
          steps: JSON.stringify(result.steps),
          snapshots: JSON.stringify(result.snapshots),
          files: JSON.stringify(result.files ?? run.files),
          deliveries: JSON.stringify(result.deliveries ?? run.deliveries),
          finished_at: nowIso(finishedAt),
          duration_ms: run.startedAt ? finishedAt.getTime() - Date.parse(run.startedAt) : null,
        })
        .where("id", "=", id)
        .execute();
      return this.get(id);
    },

    /**
     * Running runs whose worker has not beaten since `before` (its process died or hangs):
     * recorded failed with `message`, in one conditional update, so that of several sweeping
     * processes exactly one fails each run. Answers the runs it failed.
     */
    async failStale(before: Date, message: string): Promise<StoredRun[]> {
      const rows = await db
        .updateTable("runs")
        .set({ state: "failed", error: JSON.stringify({ message }), finished_at: nowIso() })
        .where("state", "=", "running")
        .where((e) =>
          e.or([
            e("heartbeat_at", "<", nowIso(before)),
            e.and([e("heartbeat_at", "is", null), e("started_at", "<", nowIso(before))]),
          ]),
        )
        .returningAll()
        .execute();
      return rows.map(toRun);
    },

    /** Runs marked running by another worker than `exceptWorker` (a process that died). */
    async orphaned(options: { exceptWorker: string }): Promise<StoredRun[]> {
      const except = options.exceptWorker;
      const rows = await db
        .selectFrom("runs")
        .selectAll()
        .where("state", "=", "running")
        .where((e) => e.or([e("worker", "is", null), e("worker", "!=", except)]))
        .execute();
      return rows.map(toRun);
    },

    /** A queued run that nobody will take any more (its job is gone): marked failed. */
    async failQueued(id: string, message: string) {
      await db
        .updateTable("runs")
        .set({ state: "failed", error: JSON.stringify({ message }), finished_at: nowIso() })
        .where("id", "=", id)
        .where("state", "=", "queued")
        .execute();
    },

    /** Finished runs of a job older than `before`: their ids, for deleting files then rows. */
    async finishedBefore(jobId: string, before: Date, limit = 500): Promise<string[]> {
      const rows = await db
        .selectFrom("runs")
        .select("id")
        .where("job_id", "=", jobId)
        .where("finished_at", "<", nowIso(before))
        .limit(limit)
        .execute();
      return rows.map((r) => r.id);
    },

    async idsOfJob(jobId: string): Promise<string[]> {
      return (await db.selectFrom("runs").select("id").where("job_id", "=", jobId).execute()).map((r) => r.id);
    },

    async delete(ids: string[]) {
      if (ids.length === 0) return;
      await db.deleteFrom("runs").where("id", "in", ids).execute();
    },
  };
}
export type RunsRepository = ReturnType<typeof createRunsRepository>;
