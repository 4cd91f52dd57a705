import type { FastifyRequest } from "fastify";
import type { ObserverKeysRepository } from "../storage/repositories/observer-keys-repository.js";

/**
 * Observer keys authenticate with `Authorization: Bearer <key>` and nothing else: a key in a
 * query string would end up in proxy logs and browser histories, so it is never read (such a
 * request counts as anonymous). A key reads the full health listing and /metrics; every other
 * route looks only at sessions, so the key opens nothing there.
 */
export type ObserverCredential =
  /** No Authorization header at all. */
  | "none"
  /** A Bearer key that is a live observer key. */
  | "valid"
  /** A Bearer key that is wrong or revoked. */
  | "invalid"
  /** Another scheme (Basic, …): the caller decides what it means. */
  | "other";

const BEARER = /^Bearer\s+(\S+)\s*$/i;

export async function observerCredential(
  keys: ObserverKeysRepository,
  request: FastifyRequest,
): Promise<ObserverCredential> {
  const authorization = request.headers.authorization;
  if (authorization === undefined) return "none";
  const key = BEARER.exec(authorization)?.[1];
  if (key === undefined) return /^Bearer(\s|$)/i.test(authorization) ? "invalid" : "other";
  return (await keys.resolve(key)) ? "valid" : "invalid";
}

/** What a refused Bearer credential is answered with (RFC 6750). */
export const BEARER_CHALLENGE = 'Bearer realm="Pagewright", error="invalid_token"';
