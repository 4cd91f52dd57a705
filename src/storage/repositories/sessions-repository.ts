import crypto from "node:crypto";
import type { Kysely } from "kysely";
import type { Database } from "../schema.js";
import { nowIso } from "../time.js";

/** Sessions expire after this long without a request. */
export const SESSION_IDLE_MS = 7 * 24 * 60 * 60 * 1000;
/** last_seen_at is written at most this often, so that reads do not each cost a write. */
const TOUCH_EVERY_MS = 60 * 1000;

const hashToken = (token: string) => crypto.createHash("sha256").update(token).digest("base64url");

export function createSessionsRepository(db: Kysely<Database>) {
  return {
    /** Returns the cookie token; only its hash is stored. */
    async create(userId: string): Promise<string> {
      const token = crypto.randomBytes(32).toString("base64url");
      const now = new Date();
      await db
        .insertInto("sessions")
        .values({
          id: hashToken(token),
          user_id: userId,
          created_at: nowIso(now),
          last_seen_at: nowIso(now),
          expires_at: nowIso(new Date(now.getTime() + SESSION_IDLE_MS)),
        })
        .execute();
      return token;
    },
    /** The user id of a live session, sliding its expiry forward. */
    async resolve(token: string): Promise<string | undefined> {
      const id = hashToken(token);
      const row = await db.selectFrom("sessions").selectAll().where("id", "=", id).executeTakeFirst();
      const now = new Date();
      if (!row) return undefined;
      if (row.expires_at <= nowIso(now)) {
        await db.deleteFrom("sessions").where("id", "=", id).execute();
        return undefined;
      }
      if (now.getTime() - Date.parse(row.last_seen_at) > TOUCH_EVERY_MS) {
        await db
          .updateTable("sessions")
          .set({ last_seen_at: nowIso(now), expires_at: nowIso(new Date(now.getTime() + SESSION_IDLE_MS)) })
          .where("id", "=", id)
          .execute();
      }
      return row.user_id;
    },
    async delete(token: string) {
      await db.deleteFrom("sessions").where("id", "=", hashToken(token)).execute();
    },
    async deleteForUser(userId: string) {
      await db.deleteFrom("sessions").where("user_id", "=", userId).execute();
    },
    async deleteExpired() {
      await db.deleteFrom("sessions").where("expires_at", "<=", nowIso()).execute();
    },
  };
}
export type SessionsRepository = ReturnType<typeof createSessionsRepository>;
