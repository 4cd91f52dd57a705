import type { Kysely } from "kysely";
import type { DialectName } from "./db.js";
import { lockSpace } from "./lock.js";
import type { Database } from "./schema.js";

type LimitedTable = "jobs" | "delivery_interfaces" | "ai_providers";

/**
 * Counts a space's rows and inserts one more in a single transaction, with the space locked, so
 * that an edition limit holds under concurrent creates. A taken primary key is a "conflict".
 */
export async function insertWithinLimit<T extends LimitedTable>(
  db: Kysely<Database>,
  dialect: DialectName,
  input: { table: T; spaceId: string; max: number | null; row: Database[T] },
): Promise<"ok" | "limit" | "conflict"> {
  return db.transaction().execute(async (trx) => {
    if (input.max !== null) {
      // Only a limited create needs the lock; unlimited ones must not queue behind each other.
      await lockSpace(trx, dialect, input.spaceId);
      const { n } = await trx
        .selectFrom(input.table as LimitedTable)
        .select((e) => e.fn.countAll<number>().as("n"))
        .where("space_id", "=", input.spaceId)
        .executeTakeFirstOrThrow();
      if (Number(n) >= input.max) return "limit";
    }
    const inserted = await trx
      // biome-ignore lint/suspicious/noExplicitAny: the row type follows the table by construction
      .insertInto(input.table as any)
      .values(input.row as never)
      .onConflict((oc) => oc.column("id").doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 0 ? "conflict" : "ok";
  });
}
