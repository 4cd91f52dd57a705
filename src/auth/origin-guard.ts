import type { FastifyReply, FastifyRequest } from "fastify";

const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * Refuses a state-changing request that a browser sent from another origin, even with the
 * session cookie: an `Origin` that is not ours, or `Sec-Fetch-Site` cross-site or same-site.
 * A client that sends neither header (curl, scripts) is allowed: it holds the cookie itself.
 */
export function createOriginGuard(publicUrl: string) {
  const publicOrigin = new URL(publicUrl).origin;
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (!UNSAFE.has(request.method)) return;
    const site = request.headers["sec-fetch-site"];
    const origin = request.headers.origin;
    const ownOrigin = `${request.protocol}://${request.host}`;
    const crossSite = site === "cross-site" || site === "same-site";
    const foreignOrigin = origin !== undefined && origin !== publicOrigin && origin !== ownOrigin;
    if (crossSite || foreignOrigin) {
      return reply.code(403).send({ error: "cross_origin" });
    }
  };
}
