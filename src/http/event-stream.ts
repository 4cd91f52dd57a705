import type { FastifyReply, FastifyRequest } from "fastify";

/** A comment line this often keeps proxies from closing a quiet stream (DESIGN.md: 15 s). */
export const KEEP_ALIVE_MS = 15_000;

export type EventStream = {
  send(event: string, data: unknown): void;
  close(): void;
  /** Aborted when the client goes away (or the stream is closed). */
  readonly signal: AbortSignal;
};

/** Takes over the reply and answers `text/event-stream`. */
export function openEventStream(
  request: FastifyRequest,
  reply: FastifyReply,
  keepAliveMs = KEEP_ALIVE_MS,
): EventStream {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, no-transform",
    connection: "keep-alive",
    "x-accel-buffering": "no",
    "x-content-type-options": "nosniff",
  });
  raw.write(": stream open\n\n");
  const gone = new AbortController();
  let closed = false;
  const keepAlive = setInterval(() => raw.write(": keep-alive\n\n"), keepAliveMs);
  const end = () => {
    if (closed) return;
    closed = true;
    clearInterval(keepAlive);
    gone.abort(new Error("the client closed the stream"));
  };
  request.raw.on("close", end);
  raw.on("close", end);
  return {
    send(event, data) {
      if (closed) return;
      raw.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    close() {
      if (closed) return;
      end();
      raw.end();
    },
    signal: gone.signal,
  };
}
