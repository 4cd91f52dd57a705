import type { AppContext } from "../app-context.js";
import { hashPassword } from "../auth/passwords.js";
import { createSpacesRepository } from "./repositories/spaces-repository.js";
import { createUsersRepository } from "./repositories/users-repository.js";

/**
 * On a database without users: the system user from ADMIN_USERNAME / ADMIN_PASSWORD and the
 * space `default`, with the admin as its member, in one transaction. When two processes start
 * together on one PostgreSQL, the second one's insert collides with the first one's user name
 * and it rolls back: the work is already done. Returns what this call created.
 */
export async function ensureFirstStart(ctx: AppContext): Promise<{ createdAdmin: boolean }> {
  if ((await ctx.users.count()) > 0) return { createdAdmin: false };
  const passwordHash = await hashPassword(ctx.config.adminPassword);
  try {
    await ctx.storage.db.transaction().execute(async (trx) => {
      const users = createUsersRepository(trx);
      const spaces = createSpacesRepository(trx);
      const admin = await users.create({ username: ctx.config.adminUsername, passwordHash, systemRole: "system" });
      if (!(await spaces.get("default"))) await spaces.create("default", "Default");
      await spaces.setMember("default", admin.id, "admin");
    });
    return { createdAdmin: true };
  } catch (error) {
    if ((await ctx.users.count()) > 0) return { createdAdmin: false };
    throw error;
  }
}
