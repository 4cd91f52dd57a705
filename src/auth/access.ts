import type { FastifyRequest } from "fastify";
import type { AppContext } from "../app-context.js";
import { forbidden, unauthorized } from "../errors.js";
import type { Access } from "../storage/repositories/spaces-repository.js";
import type { User } from "../storage/repositories/users-repository.js";
import { SESSION_COOKIE } from "./session-cookie.js";

const RANK: Record<Access, number> = { ro: 1, rw: 2, admin: 3 };

export const SPACE_ID = /^[a-z0-9][a-z0-9-]{0,62}$/;

declare module "fastify" {
  interface FastifyRequest {
    /** Resolved once per request by currentUser(). */
    pagewrightUser?: User | null;
  }
}

/** The signed-in user, or null. The session is looked up once per request. */
export async function currentUser(ctx: AppContext, request: FastifyRequest): Promise<User | null> {
  if (request.pagewrightUser !== undefined) return request.pagewrightUser;
  const token = request.cookies[SESSION_COOKIE];
  let user: User | null = null;
  if (token) {
    const userId = await ctx.sessions.resolve(token);
    if (userId) user = (await ctx.users.findById(userId)) ?? null;
  }
  request.pagewrightUser = user;
  return user;
}

export async function requireUser(ctx: AppContext, request: FastifyRequest): Promise<User> {
  const user = await currentUser(ctx, request);
  if (!user) throw unauthorized();
  return user;
}

export async function requireSystemUser(ctx: AppContext, request: FastifyRequest): Promise<User> {
  const user = await requireUser(ctx, request);
  if (user.systemRole !== "system") throw forbidden();
  return user;
}

/** The caller's access to a space. System users are admins of every space. */
export async function accessTo(ctx: AppContext, user: User, spaceId: string): Promise<Access | undefined> {
  if (!SPACE_ID.test(spaceId)) return undefined;
  if (user.systemRole === "system") return (await ctx.spaces.get(spaceId)) ? "admin" : undefined;
  return ctx.spaces.accessOf(user.id, spaceId);
}

/**
 * 401 without a session; 403 without access at `required` level, and 403 too for a space that
 * does not exist, so that space names do not leak.
 */
export async function requireSpaceAccess(
  ctx: AppContext,
  request: FastifyRequest,
  spaceId: string,
  required: Access,
): Promise<{ user: User; access: Access }> {
  const user = await requireUser(ctx, request);
  const access = await accessTo(ctx, user, spaceId);
  if (!access || RANK[access] < RANK[required]) throw forbidden();
  return { user, access };
}
