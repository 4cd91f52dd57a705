import http from "node:http";
import type { Socket } from "node:net";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { HttpError } from "../errors.js";

/** PostgreSQL's unique_violation; better-sqlite3's codes for a UNIQUE or PRIMARY KEY refusal. */
const UNIQUE_VIOLATIONS = new Set(["23505", "SQLITE_CONSTRAINT_UNIQUE", "SQLITE_CONSTRAINT_PRIMARYKEY"]);

/** The body limit of the request's route (uploads and imports take more than the 5 MB default). */
const bodyLimitOf = (request: FastifyRequest) => request.routeOptions.bodyLimit ?? 5 * 1024 * 1024;
const megabytes = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`;

/** Every failure answers a JSON body of DESIGN.md's shape; none carries a stack trace. */
export function registerErrorHandling(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError | HttpError, request, reply) => {
    if (error instanceof HttpError) return reply.code(error.statusCode).send(error.body);
    switch (error.code) {
      case "FST_ERR_CTP_BODY_TOO_LARGE":
        return reply
          .code(413)
          .send({ error: "payload_too_large", message: `the body is larger than ${megabytes(bodyLimitOf(request))}` });
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
    // Routes check a name or id is free before they insert it; two requests racing for the same
    // one both pass that check, and the database's unique constraint refuses the second.
    if (UNIQUE_VIOLATIONS.has(String((error as { code?: unknown }).code))) {
      return reply.code(409).send({ error: "conflict", message: "another request took this name or id first" });
    }
    request.log.error({ err: error }, "request failed");
    return reply.code(500).send({ error: "internal", message: "internal error; see the server log" });
  });
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ error: "not_found" }));
}

/**
 * Fastify's refusals before any route runs (its `frameworkErrors` option), in the same shape:
 * a malformed percent-encoding is a 400; a path segment over 100 characters is a 404, since no
 * space name or id is that long (Fastify's own answers are `{"error":"Bad Request",…}`).
 */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  switch (error.code) {
    case "FST_ERR_BAD_URL":
      return reply.code(400).send({
        error: "invalid",
        issues: [{ path: [], code: "invalid_format", message: "the URL has a malformed percent-encoding" }],
      });
    case "FST_ERR_MAX_PARAM_LENGTH":
      return reply.code(404).send({ error: "not_found" });
  }
  request.log.error({ err: error }, "request failed");
  return reply.code(500).send({ error: "internal", message: "internal error; see the server log" });
}

/**
 * Requests Node's HTTP parser refuses (headers over 16 KB, malformed, too slow), as Fastify's
 * default `clientErrorHandler` answers them, but in DESIGN.md's shape. The connection is closed.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket) {
  // A reset connection has nobody left to answer.
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const [status, body] =
    error.code === "HPE_HEADER_OVERFLOW"
      ? [431, { error: "invalid", message: "the request headers are larger than the server accepts" }]
      : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? [408, { error: "invalid", message: "the request did not arrive in time" }]
        : [
            400,
            { error: "invalid", issues: [{ path: [], code: "invalid_format", message: "not a valid HTTP request" }] },
          ];
  const text = JSON.stringify(body);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(text)}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${text}`,
    );
  }
  socket.destroy(error);
}
