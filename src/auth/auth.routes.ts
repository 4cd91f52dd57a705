import type { FastifyInstance } from "fastify";
import type { AppContext } from "../app-context.js";
import { parseBody } from "../http/validate.js";
import { LoginSchema } from "../schemas/context.js";
import { toUser } from "../storage/repositories/users-repository.js";
import { createLoginLimit } from "./login-limit.js";
import { DUMMY_HASH, verifyPassword } from "./passwords.js";
import { clearSessionCookie, SESSION_COOKIE, setSessionCookie } from "./session-cookie.js";

export function authRoutes(app: FastifyInstance, ctx: AppContext) {
  const limit = createLoginLimit(ctx.storage.db);

  app.post("/auth/login-local", async (request, reply) => {
    const { username, password } = parseBody(LoginSchema, request.body);
    const address = request.ip;
    const wait = await limit.retryAfter(username, address);
    if (wait > 0) {
      return reply
        .code(429)
        .header("retry-after", String(wait))
        .send({ error: "too_many_requests", message: `too many failed logins; try again in ${wait} s` });
    }
    const row = await ctx.users.findByUsername(username);
    const ok = await verifyPassword(password, row?.password_hash ?? DUMMY_HASH);
    if (!row || !ok) {
      await limit.recordFailure(username, address);
      await limit.prune();
      return reply.code(401).send({ error: "unauthorized", message: "wrong user name or password" });
    }
    const token = await ctx.sessions.create(row.id);
    setSessionCookie(request, reply, token);
    return { user: toUser(row) };
  });

  app.post("/auth/logout", async (request, reply) => {
    const token = request.cookies[SESSION_COOKIE];
    if (token) await ctx.sessions.delete(token);
    clearSessionCookie(reply);
    return reply.code(204).send();
  });
}
