import type { FastifyError, FastifyInstance } from "fastify";
import { HttpError } from "../errors.js";

/** Every failure answers a JSON body of DESIGN.md's shape; none carries a stack trace. */
export function registerErrorHandling(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError | HttpError, request, reply) => {
    if (error instanceof HttpError) return reply.code(error.statusCode).send(error.body);
    switch (error.code) {
      case "FST_ERR_CTP_BODY_TOO_LARGE":
        return reply.code(413).send({ error: "payload_too_large", message: "the body is larger than 5 MB" });
      case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
        return reply.code(415).send({ error: "unsupported_media_type", message: "send application/json" });
      case "FST_ERR_CTP_EMPTY_JSON_BODY":
      case "FST_ERR_CTP_INVALID_JSON_BODY":
        return reply.code(400).send({
          error: "invalid",
          issues: [{ path: [], code: "invalid_json", message: "the body is not valid JSON" }],
        });
    }
    if (error instanceof SyntaxError || error.statusCode === 400) {
      return reply.code(400).send({
        error: "invalid",
        issues: [{ path: [], code: "invalid_json", message: "the body is not valid JSON" }],
      });
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.code(error.statusCode).send({ error: "invalid", message: error.message });
    }
    request.log.error({ err: error }, "request failed");
    return reply.code(500).send({ error: "internal", message: "internal error; see the server log" });
  });
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ error: "not_found" }));
}
