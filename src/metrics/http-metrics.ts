import type { FastifyInstance } from "fastify";
import type { Metrics } from "./metrics.js";

/**
 * Counts every answered request by its route pattern (`/api/spaces/:space/jobs/:jobId`), never by
 * its URL: ids and query strings would make a series per request. Requests that matched no route
 * share the label `unmatched`. Time is to the last byte sent, so an event stream counts its whole
 * length.
 */
export function registerHttpMetrics(app: FastifyInstance, metrics: Metrics) {
  app.addHook("onResponse", async (request, reply) => {
    const labels = { route: request.routeOptions.url ?? "unmatched", status: String(reply.statusCode) };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, reply.elapsedTime / 1000);
  });
}
