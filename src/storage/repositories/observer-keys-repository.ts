import crypto from "node:crypto";
import type { Kysely } from "kysely";
import type { ObserverKey, ObserverKeyCreated } from "../../schemas/observer-key.js";
import type { Database, ObserverKeyRow } from "../schema.js";
import { nowIso } from "../time.js";

/** Every key starts so: a leaked one is recognisable (secret scanners, logs). */
export const OBSERVER_KEY_PREFIX = "pwo_";
/** last_used_at is written at most this often, so that a monitor polling each second costs no writes. */
const TOUCH_EVERY_MS = 60 * 1000;

const hashKey = (key: string) => crypto.createHash("sha256").update(key).digest("hex");

const toObserverKey = (row: ObserverKeyRow): ObserverKey => ({
  id: row.id,
  name: row.name,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
});

export function createObserverKeysRepository(db: Kysely<Database>) {
  return {
    /** A new key of 256 random bits; only its hash is stored, so this is the one time it is seen. */
    async create(name: string, createdBy: string): Promise<ObserverKeyCreated> {
      const key = OBSERVER_KEY_PREFIX + crypto.randomBytes(32).toString("base64url");
      const id = crypto.randomUUID();
      await db
        .insertInto("observer_keys")
        .values({ id, name, key_hash: hashKey(key), created_by: createdBy, created_at: nowIso(), last_used_at: null })
        .execute();
      return { id, name, key };
    },
    async list(): Promise<ObserverKey[]> {
      const rows = await db.selectFrom("observer_keys").selectAll().orderBy("created_at").orderBy("id").execute();
      return rows.map(toObserverKey);
    },
    /** Revokes a key at once: the next request with it is refused. False when there is no such key. */
    async delete(id: string): Promise<boolean> {
      const result = await db.deleteFrom("observer_keys").where("id", "=", id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    /**
     * The id of the key, or undefined when no key has this value (wrong or revoked). The key is
     * found by its hash: the stored value never meets the sent one, so no timing tells a prefix.
     */
    async resolve(key: string): Promise<string | undefined> {
      if (!key.startsWith(OBSERVER_KEY_PREFIX) || key.length > 200) return undefined;
      const row = await db
        .selectFrom("observer_keys")
        .select(["id", "last_used_at"])
        .where("key_hash", "=", hashKey(key))
        .executeTakeFirst();
      if (!row) return undefined;
      const now = new Date();
      if (!row.last_used_at || now.getTime() - Date.parse(row.last_used_at) > TOUCH_EVERY_MS) {
        await db
          .updateTable("observer_keys")
          .set({ last_used_at: nowIso(now) })
          .where("id", "=", row.id)
          .execute();
      }
      return row.id;
    },
  };
}
export type ObserverKeysRepository = ReturnType<typeof createObserverKeysRepository>;
