import type { FastifyReply, FastifyRequest } from "fastify";
import { SESSION_IDLE_MS } from "../storage/repositories/sessions-repository.js";

export const SESSION_COOKIE = "pagewright_session";

/** HttpOnly, SameSite=Lax, Secure when the request came over https (after trusted proxies). */
export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string) {
  reply.setCookie(SESSION_COOKIE, token, {
    path: "/",
    httpOnly: true,
    sameSite: "lax",
    secure: request.protocol === "https",
    maxAge: Math.floor(SESSION_IDLE_MS / 1000),
  });
}

export function clearSessionCookie(reply: FastifyReply) {
  reply.clearCookie(SESSION_COOKIE, { path: "/" });
}
