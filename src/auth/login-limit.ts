import type { Kysely } from "kysely";
import type { Database } from "../storage/schema.js";
import { nowIso } from "../storage/time.js";

/**
 * Failed logins are counted per user name and address (10) and per address (100, unknown names
 * included) over 15 minutes. At the limit every attempt is refused, the right password too,
 * until the oldest counted failure leaves the window. Stored in the database so that every web
 * process shares the count.
 */
export const LOGIN_WINDOW_MS = 15 * 60 * 1000;
export const MAX_PER_USER_AND_ADDRESS = 10;
export const MAX_PER_ADDRESS = 100;

export function createLoginLimit(db: Kysely<Database>) {
  return {
    /** Seconds to wait, or 0 when an attempt may go ahead. */
    async retryAfter(username: string, address: string, now = new Date()): Promise<number> {
      const since = nowIso(new Date(now.getTime() - LOGIN_WINDOW_MS));
      const perUser = await db
        .selectFrom("login_failures")
        .select("at")
        .where("address", "=", address)
        .where("username", "=", username)
        .where("at", ">", since)
        .orderBy("at", "desc")
        .limit(MAX_PER_USER_AND_ADDRESS)
        .execute();
      const perAddress = await db
        .selectFrom("login_failures")
        .select("at")
        .where("address", "=", address)
        .where("at", ">", since)
        .orderBy("at", "desc")
        .limit(MAX_PER_ADDRESS)
        .execute();
      const waits: number[] = [];
      // The wait ends when the failure that filled the limit leaves the window.
      if (perUser.length >= MAX_PER_USER_AND_ADDRESS) waits.push(until(perUser[perUser.length - 1].at, now));
      if (perAddress.length >= MAX_PER_ADDRESS) waits.push(until(perAddress[perAddress.length - 1].at, now));
      return waits.length ? Math.max(1, ...waits) : 0;
    },
    async recordFailure(username: string, address: string, now = new Date()) {
      await db
        .insertInto("login_failures")
        .values({ username, address, at: nowIso(now) })
        .execute();
    },
    async prune(now = new Date()) {
      await db
        .deleteFrom("login_failures")
        .where("at", "<=", nowIso(new Date(now.getTime() - LOGIN_WINDOW_MS)))
        .execute();
    },
  };
}

const until = (at: string, now: Date) => Math.ceil((Date.parse(at) + LOGIN_WINDOW_MS - now.getTime()) / 1000);
