import type { Kysely } from "kysely";
import type { SecretBox } from "../../auth/secret-box.js";
import { extractSecrets, type JobSecrets, restoreSecrets } from "../../jobs/job-secrets.js";
import type { JobBody } from "../../schemas/job.js";
import type { DialectName } from "../db.js";
import { insertWithinLimit } from "../limited-insert.js";
import type { Database, JobRow } from "../schema.js";
import { nowIso } from "../time.js";

/** What is stored of a job: the validated body without the fields the row holds itself. */
export type StoredJobBody = Omit<JobBody, "id" | "space" | "createdAt" | "updatedAt">;

export type StoredJob = StoredJobBody & { id: string; space: string; createdAt: string; updatedAt: string };

export function createJobsRepository(db: Kysely<Database>, dialect: DialectName, box: SecretBox) {
  const toJob = (row: JobRow): StoredJob => {
    const body = JSON.parse(row.body) as StoredJobBody;
    return {
      id: row.id,
      space: row.space_id,
      ...(row.secrets ? restoreSecrets(body, box.open<JobSecrets>(row.secrets)) : body),
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
  };
  /** The columns that store a body: its public JSON and its sealed secrets. */
  const stored = (full: StoredJobBody) => {
    const { body, secrets } = extractSecrets(full);
    return { body: JSON.stringify(body), secrets: secrets ? box.seal(secrets) : null };
  };
  /** A space's jobs by name, on the (space_id, name, id) index. */
  const rowsOfSpace = (spaceId: string) =>
    db.selectFrom("jobs").selectAll().where("space_id", "=", spaceId).orderBy("name").orderBy("id").execute();
  return {
    async list(spaceId: string): Promise<StoredJob[]> {
      return (await rowsOfSpace(spaceId)).map(toJob);
    },
    /**
     * The jobs of a space as one JSON text `{"items":[…]}`, built from the stored bodies without
     * parsing them: a list of a thousand jobs costs a string join, not a parse and a serialise.
     */
    async listJson(spaceId: string): Promise<string> {
      const items = (await rowsOfSpace(spaceId)).map((row) => {
        // A job with secrets is parsed to put them back; the others are spliced as stored.
        if (row.secrets) return JSON.stringify(toJob(row));
        const body = row.body.slice(1, -1);
        return `{"id":${JSON.stringify(row.id)},"space":${JSON.stringify(row.space_id)}${body ? `,${body}` : ""},"createdAt":${JSON.stringify(row.created_at)},"updatedAt":${JSON.stringify(row.updated_at)}}`;
      });
      return `{"items":[${items.join(",")}]}`;
    },
    async get(spaceId: string, id: string): Promise<StoredJob | undefined> {
      const row = await db
        .selectFrom("jobs")
        .selectAll()
        .where("id", "=", id)
        .where("space_id", "=", spaceId)
        .executeTakeFirst();
      return row ? toJob(row) : undefined;
    },
    /** Enabled jobs with a schedule, in every space (the scheduler's start). */
    async listScheduled(): Promise<StoredJob[]> {
      const rows = await db
        .selectFrom("jobs")
        .selectAll()
        .where("enabled", "=", 1)
        .where("cron", "is not", null)
        .execute();
      return rows.map(toJob);
    },
    async count(spaceId: string): Promise<number> {
      const row = await db
        .selectFrom("jobs")
        .select((e) => e.fn.countAll<number>().as("n"))
        .where("space_id", "=", spaceId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    /**
     * Inserts unless the space already holds `max` jobs (null: no limit). Returns "limit" when
     * full, "conflict" when the id is taken.
     */
    async create(spaceId: string, id: string, body: StoredJobBody, max: number | null) {
      const at = nowIso();
      const row: JobRow = {
        id,
        space_id: spaceId,
        name: body.name,
        enabled: body.enabled ? 1 : 0,
        cron: body.cron,
        ...stored(body),
        created_at: at,
        updated_at: at,
      };
      const outcome = await insertWithinLimit(db, dialect, { table: "jobs", spaceId, max, row });
      return outcome === "ok" ? toJob(row) : outcome;
    },
    async replace(spaceId: string, id: string, body: StoredJobBody): Promise<StoredJob | undefined> {
      const result = await db
        .updateTable("jobs")
        .set({
          name: body.name,
          enabled: body.enabled ? 1 : 0,
          cron: body.cron,
          ...stored(body),
          updated_at: nowIso(),
        })
        .where("id", "=", id)
        .where("space_id", "=", spaceId)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) return undefined;
      return this.get(spaceId, id);
    },
    async delete(spaceId: string, id: string): Promise<boolean> {
      const result = await db
        .deleteFrom("jobs")
        .where("id", "=", id)
        .where("space_id", "=", spaceId)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
export type JobsRepository = ReturnType<typeof createJobsRepository>;
