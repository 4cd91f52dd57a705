import type { FastifyInstance } from "fastify";
import type { AppContext } from "../app-context.js";
import { createHealthAccess } from "./health-access.js";
import { createHealthAnswers } from "./health-answers.js";
import { createHealthReader } from "./health-queries.js";

/**
 * GET /guest/api/health: no login needed; health-access.ts decides who sees the full listing
 * and who the summary, health-answers.ts keeps the answers while the database is unchanged.
 */
export function healthRoutes(app: FastifyInstance, ctx: AppContext) {
  const access = createHealthAccess(ctx);
  const answers = createHealthAnswers(ctx.storage, createHealthReader(ctx.storage));

  app.get("/guest/api/health", async (request, reply) => {
    const decision = await access.decide(request);
    if ("refused" in decision) {
      const { status, headers, body } = decision.refused;
      return reply.code(status).headers(headers).send(body);
    }
    const current = await answers.get();
    return reply
      .header("cache-control", "no-store")
      .type("application/json; charset=utf-8")
      .send(decision.view === "full" ? current.full : current.summary);
  });
}
