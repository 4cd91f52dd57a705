import crypto from "node:crypto";
import type { Kysely } from "kysely";
import type { Database, UserRow } from "../schema.js";
import { nowIso } from "../time.js";

export type User = {
  id: string;
  username: string;
  systemRole: "system" | "user";
  email: string | null;
  createdAt: string;
};

export const toUser = (row: UserRow): User => ({
  id: row.id,
  username: row.username,
  systemRole: row.system_role,
  email: row.email,
  createdAt: row.created_at,
});

export function createUsersRepository(db: Kysely<Database>) {
  return {
    async findByUsername(username: string) {
      return db.selectFrom("users").selectAll().where("username", "=", username).executeTakeFirst();
    },
    async findById(id: string) {
      const row = await db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst();
      return row ? toUser(row) : undefined;
    },
    async list() {
      const rows = await db.selectFrom("users").selectAll().orderBy("username").execute();
      return rows.map(toUser);
    },
    async count() {
      const row = await db
        .selectFrom("users")
        .select((e) => e.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async create(input: {
      username: string;
      passwordHash: string;
      systemRole: "system" | "user";
      email?: string | null;
    }) {
      const at = nowIso();
      const row: UserRow = {
        id: crypto.randomUUID(),
        username: input.username,
        password_hash: input.passwordHash,
        system_role: input.systemRole,
        email: input.email ?? null,
        created_at: at,
        updated_at: at,
      };
      await db.insertInto("users").values(row).execute();
      return toUser(row);
    },
    async update(
      id: string,
      changes: { username?: string; passwordHash?: string; systemRole?: "system" | "user"; email?: string | null },
    ) {
      const result = await db
        .updateTable("users")
        .set({
          ...(changes.username !== undefined ? { username: changes.username } : {}),
          ...(changes.passwordHash !== undefined ? { password_hash: changes.passwordHash } : {}),
          ...(changes.systemRole !== undefined ? { system_role: changes.systemRole } : {}),
          ...(changes.email !== undefined ? { email: changes.email } : {}),
          updated_at: nowIso(),
        })
        .where("id", "=", id)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async delete(id: string) {
      const result = await db.deleteFrom("users").where("id", "=", id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    async countSystemUsers() {
      const row = await db
        .selectFrom("users")
        .select((e) => e.fn.countAll<number>().as("n"))
        .where("system_role", "=", "system")
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}
export type UsersRepository = ReturnType<typeof createUsersRepository>;
