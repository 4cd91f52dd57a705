import type { FastifyInstance } from "fastify";
import type { AppContext } from "../app-context.js";
import { createGuide } from "./guide.js";
import { jsonSchemaOf } from "./json-schemas.js";
import { buildOpenApi } from "./openapi.js";

/** The guide answers without a login. */
export function guideRoutes(app: FastifyInstance, ctx: AppContext) {
  const guide = createGuide(ctx.config);
  let openapi: string | undefined;

  app.get("/llms.txt", async (_request, reply) => reply.type("text/plain; charset=utf-8").send(guide.index()));

  app.get<{ Params: { page: string } }>("/llms/:page", async (request, reply) => {
    const { page } = request.params;
    if (page === "openapi.json") {
      openapi ??= JSON.stringify(buildOpenApi(ctx.config.publicUrl));
      return reply.type("application/json; charset=utf-8").send(openapi);
    }
    const name = page.endsWith(".md") ? page.slice(0, -3) : undefined;
    const text = name ? guide.page(name) : undefined;
    if (text === undefined) return reply.code(404).send({ error: "not_found" });
    return reply.type("text/markdown; charset=utf-8").send(text);
  });

  app.get<{ Params: { name: string } }>("/llms/schema/:name", async (request, reply) => {
    const match = /^([A-Za-z]+)\.json$/.exec(request.params.name);
    const schema = match ? jsonSchemaOf(match[1]) : undefined;
    if (!schema) return reply.code(404).send({ error: "not_found" });
    return reply.type("application/schema+json; charset=utf-8").send(JSON.stringify(schema));
  });
}
