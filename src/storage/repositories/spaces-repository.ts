import type { Kysely } from "kysely";
import type { Database } from "../schema.js";
import { nowIso } from "../time.js";

export type Access = "ro" | "rw" | "admin";
export type Space = { id: string; name: string; createdAt: string };

export function createSpacesRepository(db: Kysely<Database>) {
  return {
    async list(): Promise<Space[]> {
      const rows = await db.selectFrom("spaces").selectAll().orderBy("id").execute();
      return rows.map((r) => ({ id: r.id, name: r.name, createdAt: r.created_at }));
    },
    async get(id: string): Promise<Space | undefined> {
      const r = await db.selectFrom("spaces").selectAll().where("id", "=", id).executeTakeFirst();
      return r ? { id: r.id, name: r.name, createdAt: r.created_at } : undefined;
    },
    async create(id: string, name: string): Promise<Space> {
      const createdAt = nowIso();
      await db.insertInto("spaces").values({ id, name, created_at: createdAt }).execute();
      return { id, name, createdAt };
    },
    async rename(id: string, name: string) {
      const result = await db.updateTable("spaces").set({ name }).where("id", "=", id).executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async delete(id: string) {
      const result = await db.deleteFrom("spaces").where("id", "=", id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    /** The spaces a user is a member of, with the access level. */
    async membershipsOf(userId: string): Promise<(Space & { access: Access })[]> {
      const rows = await db
        .selectFrom("space_members")
        .innerJoin("spaces", "spaces.id", "space_members.space_id")
        .select(["spaces.id", "spaces.name", "spaces.created_at", "space_members.access"])
        .where("space_members.user_id", "=", userId)
        .orderBy("spaces.id")
        .execute();
      return rows.map((r) => ({ id: r.id, name: r.name, createdAt: r.created_at, access: r.access }));
    },
    async accessOf(userId: string, spaceId: string): Promise<Access | undefined> {
      const row = await db
        .selectFrom("space_members")
        .select("access")
        .where("user_id", "=", userId)
        .where("space_id", "=", spaceId)
        .executeTakeFirst();
      return row?.access;
    },
    async members(spaceId: string) {
      return db
        .selectFrom("space_members")
        .innerJoin("users", "users.id", "space_members.user_id")
        .select(["users.id as userId", "users.username", "space_members.access"])
        .where("space_members.space_id", "=", spaceId)
        .orderBy("users.username")
        .execute();
    },
    async setMember(spaceId: string, userId: string, access: Access) {
      await db
        .insertInto("space_members")
        .values({ space_id: spaceId, user_id: userId, access })
        .onConflict((oc) => oc.columns(["space_id", "user_id"]).doUpdateSet({ access }))
        .execute();
    },
    async removeMember(spaceId: string, userId: string) {
      const result = await db
        .deleteFrom("space_members")
        .where("space_id", "=", spaceId)
        .where("user_id", "=", userId)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
export type SpacesRepository = ReturnType<typeof createSpacesRepository>;
