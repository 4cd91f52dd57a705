import type { AppContext } from "../app-context.js";
import { hashPassword } from "../auth/passwords.js";

/**
 * On a database without users: the system user from ADMIN_USERNAME / ADMIN_PASSWORD and the
 * space `default`, with the admin as its member. Returns what it created, for the start-up log.
 */
export async function ensureFirstStart(ctx: AppContext): Promise<{ createdAdmin: boolean; createdSpace: boolean }> {
  let createdAdmin = false;
  let createdSpace = false;
  if ((await ctx.users.count()) === 0) {
    const admin = await ctx.users.create({
      username: ctx.config.adminUsername,
      passwordHash: await hashPassword(ctx.config.adminPassword),
      systemRole: "system",
    });
    createdAdmin = true;
    if (!(await ctx.spaces.get("default"))) {
      await ctx.spaces.create("default", "Default");
      createdSpace = true;
    }
    await ctx.spaces.setMember("default", admin.id, "admin");
  }
  return { createdAdmin, createdSpace };
}
