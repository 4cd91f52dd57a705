import crypto from "node:crypto";
import type { FastifyRequest } from "fastify";
import type { AppContext } from "../app-context.js";
import { currentUser } from "../auth/access.js";
import { createLoginLimit } from "../auth/login-limit.js";
import { BEARER_CHALLENGE, observerCredential } from "../auth/observer-key.js";
import { DUMMY_HASH, verifyPassword } from "../auth/passwords.js";

/**
 * Who may see the full health listing: a system user, by session cookie or by HTTP Basic with a
 * system user's user name and password (what a monitor sends), or an observer key
 * (`Authorization: Bearer <key>`, see auth/observer-key.ts); everyone when HEALTH_ANONYMOUS is
 * `full`. Anyone else, a signed-in non-system user included, gets the summary. Credentials that
 * are sent and wrong are refused with 401, so that a monitor notices a changed password instead
 * of silently reading the summary.
 */
export type HealthView = "full" | "summary";

export type HealthAccessDecision =
  | { view: HealthView }
  | { refused: { status: 401 | 429; headers: Record<string, string>; body: Record<string, unknown> } };

/** A verified Basic credential stays good this long without another scrypt (≈ 50 ms each). */
export const BASIC_CACHE_MS = 60_000;
const BASIC_CACHE_MAX = 1000;

const BASIC_CHALLENGE = 'Basic realm="Pagewright health", charset="UTF-8"';

const UNAUTHORIZED = {
  refused: { status: 401, headers: { "www-authenticate": BASIC_CHALLENGE }, body: { error: "unauthorized" } },
} as const satisfies HealthAccessDecision;

/** A wrong or revoked observer key: both schemes are offered, Basic first as before (RFC 9110 §11.6.1). */
const BEARER_UNAUTHORIZED = {
  refused: {
    status: 401,
    headers: { "www-authenticate": `${BASIC_CHALLENGE}, ${BEARER_CHALLENGE}` },
    body: { error: "unauthorized" },
  },
} as const satisfies HealthAccessDecision;

export function createHealthAccess(ctx: AppContext) {
  const limit = createLoginLimit(ctx.storage.db);
  /**
   * Keyed by a SHA-256 of the credentials (never the password itself); the entry remembers the
   * password hash it was verified against, so a changed password or role ends it at once.
   */
  const verified = new Map<string, { passwordHash: string; until: number }>();

  const remember = (key: string, passwordHash: string) => {
    if (verified.size >= BASIC_CACHE_MAX) {
      const now = Date.now();
      for (const [k, entry] of verified) if (entry.until <= now) verified.delete(k);
      // Still full: drop the oldest (a Map iterates in insertion order).
      if (verified.size >= BASIC_CACHE_MAX) verified.delete(verified.keys().next().value as string);
    }
    verified.set(key, { passwordHash, until: Date.now() + BASIC_CACHE_MS });
  };

  async function basic(request: FastifyRequest, encoded: string): Promise<HealthAccessDecision> {
    const decoded = Buffer.from(encoded, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    // No user name holds NUL, and PostgreSQL refuses it in a query (a 500 rather than a 401).
    if (colon <= 0 || decoded.includes("\u0000")) return UNAUTHORIZED;
    const username = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);
    const key = crypto.createHash("sha256").update(decoded).digest("hex");
    const row = await ctx.users.findByUsername(username);

    const cached = verified.get(key);
    if (cached && cached.until > Date.now() && row && row.password_hash === cached.passwordHash) {
      return row.system_role === "system" ? { view: "full" } : UNAUTHORIZED;
    }
    verified.delete(key);

    // The same limit as /auth/login-local: Basic must not be a way around it.
    const address = request.ip;
    const wait = await limit.retryAfter(username, address);
    if (wait > 0) {
      return {
        refused: {
          status: 429,
          headers: { "retry-after": String(wait) },
          body: { error: "too_many_requests", message: `too many failed logins; try again in ${wait} s` },
        },
      };
    }
    const ok = await verifyPassword(password, row?.password_hash ?? DUMMY_HASH);
    if (!row || !ok) {
      await limit.recordFailure(username, address);
      await limit.prune();
      return UNAUTHORIZED;
    }
    remember(key, row.password_hash);
    // The right password of a user who may not read the listing: refused all the same.
    return row.system_role === "system" ? { view: "full" } : UNAUTHORIZED;
  }

  return {
    async decide(request: FastifyRequest): Promise<HealthAccessDecision> {
      const authorization = request.headers.authorization;
      if (authorization !== undefined) {
        const match = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(authorization);
        if (match) return basic(request, match[1]);
        // An observer key (Bearer) reads the full listing; a wrong or revoked one is refused.
        const observer = await observerCredential(ctx.observerKeys, request);
        if (observer === "valid") return { view: "full" };
        // Credentials of another scheme are wrong credentials here too; and wrong credentials
        // are refused even when HEALTH_ANONYMOUS=full would show the listing without any.
        return observer === "invalid" ? BEARER_UNAUTHORIZED : UNAUTHORIZED;
      }
      if (ctx.config.healthAnonymous === "full") return { view: "full" };
      const user = await currentUser(ctx, request);
      return { view: user?.systemRole === "system" ? "full" : "summary" };
    },
  };
}
