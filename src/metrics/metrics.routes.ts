import type { FastifyInstance } from "fastify";
import type { AppContext } from "../app-context.js";
import { BEARER_CHALLENGE, observerCredential } from "../auth/observer-key.js";
import { createAllowedAddresses } from "./allowed-addresses.js";

/**
 * GET /metrics in the Prometheus text format. Who may read it (DESIGN.md "Operations endpoints"):
 *
 * - a request with `Authorization: Bearer <observer key>`, from any address;
 * - a request without an Authorization header from an address in METRICS_ALLOW.
 *
 * Everything else is 401: no credential from another address, a wrong or revoked key (even from an
 * allowed address, so that a scraper with a stale key notices), and any other scheme (Basic, a
 * session cookie: metrics are for scrapers, not people). A key in the query string is not read.
 */
export function metricsRoutes(app: FastifyInstance, ctx: AppContext) {
  const allowed = createAllowedAddresses(ctx.config.metricsAllow);

  app.get("/metrics", async (request, reply) => {
    const credential = await observerCredential(ctx.observerKeys, request);
    const admitted = credential === "valid" || (credential === "none" && allowed.allows(request.ip));
    if (!admitted) {
      return reply.code(401).header("www-authenticate", BEARER_CHALLENGE).send({
        error: "unauthorized",
        message: "send an observer key (Authorization: Bearer …) or scrape from an address in METRICS_ALLOW",
      });
    }
    const text = await ctx.metrics.registry.metrics();
    return reply.header("cache-control", "no-store").type(ctx.metrics.registry.contentType).send(text);
  });
}
