import crypto from "node:crypto";
import type { Kysely } from "kysely";
import type { BlueprintBody } from "../../schemas/blueprint.js";
import type { BlueprintRow, Database } from "../schema.js";
import { nowIso } from "../time.js";

type StoredBlueprintBody = Omit<BlueprintBody, "id" | "builtIn" | "space" | "createdAt" | "updatedAt">;

export type StoredBlueprint = StoredBlueprintBody & {
  id: string;
  builtIn: false;
  space: string;
  createdAt: string;
  updatedAt: string;
};

const toBlueprint = (row: BlueprintRow): StoredBlueprint => ({
  id: row.id,
  builtIn: false,
  space: row.space_id,
  ...(JSON.parse(row.body) as StoredBlueprintBody),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export function createBlueprintsRepository(db: Kysely<Database>) {
  return {
    async list(spaceId: string) {
      const rows = await db
        .selectFrom("blueprints")
        .selectAll()
        .where("space_id", "=", spaceId)
        .orderBy("name")
        .execute();
      return rows.map(toBlueprint);
    },
    async get(spaceId: string, id: string) {
      const row = await db
        .selectFrom("blueprints")
        .selectAll()
        .where("id", "=", id)
        .where("space_id", "=", spaceId)
        .executeTakeFirst();
      return row ? toBlueprint(row) : undefined;
    },
    async create(spaceId: string, body: StoredBlueprintBody) {
      const at = nowIso();
      const row: BlueprintRow = {
        id: crypto.randomUUID(),
        space_id: spaceId,
        name: body.name,
        body: JSON.stringify(body),
        created_at: at,
        updated_at: at,
      };
      await db.insertInto("blueprints").values(row).execute();
      return toBlueprint(row);
    },
    async replace(spaceId: string, id: string, body: StoredBlueprintBody) {
      const result = await db
        .updateTable("blueprints")
        .set({ name: body.name, body: JSON.stringify(body), updated_at: nowIso() })
        .where("id", "=", id)
        .where("space_id", "=", spaceId)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0 ? this.get(spaceId, id) : undefined;
    },
    async delete(spaceId: string, id: string) {
      const result = await db
        .deleteFrom("blueprints")
        .where("id", "=", id)
        .where("space_id", "=", spaceId)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
export type BlueprintsRepository = ReturnType<typeof createBlueprintsRepository>;
