import type { Transaction } from "kysely";
import type { DialectName } from "./db.js";
import type { Database } from "./schema.js";

/**
 * Serializes writers that count and then insert into one space (edition limits): two creates
 * racing for the last free slot must not both pass. PostgreSQL locks the space row for the rest
 * of the transaction; SQLite already runs one write transaction at a time.
 */
export async function lockSpace(trx: Transaction<Database>, dialect: DialectName, spaceId: string): Promise<void> {
  if (dialect !== "postgres") return;
  await trx.selectFrom("spaces").select("id").where("id", "=", spaceId).forUpdate().execute();
}
