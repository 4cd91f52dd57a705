import crypto from "node:crypto";
import type { Kysely } from "kysely";
import type { SecretBox } from "../../auth/secret-box.js";
import type { DialectName } from "../db.js";
import { insertWithinLimit } from "../limited-insert.js";
import type { Database, SecretHolderRow } from "../schema.js";
import { nowIso } from "../time.js";

/**
 * Delivery interfaces and AI providers share one storage shape: non-secret config as JSON and
 * the secret fields sealed with SECRET_KEY. Decrypted secrets leave this module only through
 * `getWithSecrets`, which the delivery and AI code use, never a presenter.
 */
export type SecretHolder = {
  id: string;
  space: string;
  name: string;
  kind: string;
  config: Record<string, unknown>;
  secretNames: string[];
  createdAt: string;
  updatedAt: string;
};

type Table = "delivery_interfaces" | "ai_providers";
const KIND_COLUMN = { delivery_interfaces: "type", ai_providers: "vendor" } as const;

export function createSecretHoldersRepository(
  db: Kysely<Database>,
  dialect: DialectName,
  table: Table,
  box: SecretBox,
) {
  const kindColumn = KIND_COLUMN[table];
  const toHolder = (row: SecretHolderRow & Record<string, unknown>): SecretHolder => {
    const secrets = box.open<Record<string, unknown>>(row.secrets);
    return {
      id: row.id,
      space: row.space_id,
      name: row.name,
      kind: String(row[kindColumn]),
      config: JSON.parse(row.config),
      secretNames: Object.keys(secrets).filter((k) => !isEmpty(secrets[k])),
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
  };
  const rowOf = async (spaceId: string, id: string) =>
    (await db
      .selectFrom(table as "delivery_interfaces")
      .selectAll()
      .where("id", "=", id)
      .where("space_id", "=", spaceId)
      .executeTakeFirst()) as (SecretHolderRow & Record<string, unknown>) | undefined;

  return {
    async list(spaceId: string) {
      const rows = await db
        .selectFrom(table as "delivery_interfaces")
        .selectAll()
        .where("space_id", "=", spaceId)
        .orderBy("name")
        .execute();
      return rows.map((r) => toHolder(r as SecretHolderRow & Record<string, unknown>));
    },
    async get(spaceId: string, id: string) {
      const row = await rowOf(spaceId, id);
      return row ? toHolder(row) : undefined;
    },
    async getWithSecrets(spaceId: string, id: string) {
      const row = await rowOf(spaceId, id);
      if (!row) return undefined;
      return { ...toHolder(row), secrets: box.open<Record<string, unknown>>(row.secrets) };
    },
    /** The ids among `ids` that exist in the space. */
    async existing(spaceId: string, ids: string[]): Promise<Set<string>> {
      if (ids.length === 0) return new Set();
      const rows = await db
        .selectFrom(table as "delivery_interfaces")
        .select("id")
        .where("space_id", "=", spaceId)
        .where("id", "in", ids)
        .execute();
      return new Set(rows.map((r) => r.id));
    },
    async count(spaceId: string) {
      const { n } = await db
        .selectFrom(table as "delivery_interfaces")
        .select((e) => e.fn.countAll<number>().as("n"))
        .where("space_id", "=", spaceId)
        .executeTakeFirstOrThrow();
      return Number(n);
    },
    async create(
      spaceId: string,
      input: { name: string; kind: string; config: Record<string, unknown>; secrets: Record<string, unknown> },
      max: number | null,
    ) {
      const at = nowIso();
      const row = {
        id: crypto.randomUUID(),
        space_id: spaceId,
        name: input.name,
        [kindColumn]: input.kind,
        config: JSON.stringify(input.config),
        secrets: box.seal(input.secrets),
        created_at: at,
        updated_at: at,
      } as SecretHolderRow & { type: string; vendor: string };
      const outcome = await insertWithinLimit(db, dialect, { table, spaceId, max, row });
      if (outcome !== "ok") return outcome;
      return toHolder(row);
    },
    /** Secrets missing from `secrets` keep their stored value. */
    async update(
      spaceId: string,
      id: string,
      input: { name: string; kind: string; config: Record<string, unknown>; secrets: Record<string, unknown> },
    ) {
      return db.transaction().execute(async (trx) => {
        const row = (await trx
          .selectFrom(table as "delivery_interfaces")
          .selectAll()
          .where("id", "=", id)
          .where("space_id", "=", spaceId)
          .executeTakeFirst()) as SecretHolderRow | undefined;
        if (!row) return undefined;
        const stored = box.open<Record<string, unknown>>(row.secrets);
        const merged = { ...stored };
        for (const [key, value] of Object.entries(input.secrets)) if (value !== undefined) merged[key] = value;
        await trx
          .updateTable(table as "delivery_interfaces")
          .set({
            name: input.name,
            [kindColumn]: input.kind,
            config: JSON.stringify(input.config),
            secrets: box.seal(merged),
            updated_at: nowIso(),
          } as never)
          .where("id", "=", id)
          .execute();
        return true;
      });
    },
    async delete(spaceId: string, id: string) {
      const result = await db
        .deleteFrom(table as "delivery_interfaces")
        .where("id", "=", id)
        .where("space_id", "=", spaceId)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
export type SecretHoldersRepository = ReturnType<typeof createSecretHoldersRepository>;

const isEmpty = (v: unknown) =>
  v === undefined || v === null || v === "" || (typeof v === "object" && Object.keys(v as object).length === 0);
