import Fastify from "fastify";
import { afterAll, describe, expect, it } from "vitest";
import { openEventStream } from "./event-stream.js";

describe("event stream", () => {
  const app = Fastify();
  let closedByClient = false;
  app.get("/stream", async (request, reply) => {
    const stream = openEventStream(request, reply, 50);
    stream.signal.addEventListener("abort", () => {
      closedByClient = true;
    });
    stream.send("start", { a: 1 });
    setTimeout(() => {
      stream.send("end", { ok: true });
      stream.close();
    }, 180);
  });
  app.get("/endless", async (request, reply) => {
    const stream = openEventStream(request, reply, 50);
    stream.signal.addEventListener("abort", () => {
      closedByClient = true;
    });
  });
  afterAll(() => app.close());

  it("answers text/event-stream with events and keep-alive comments", async () => {
    const url = await app.listen({ port: 0, host: "127.0.0.1" });
    const response = await fetch(`${url}/stream`);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(response.headers.get("cache-control")).toMatch(/no-cache/);
    const text = await response.text();
    expect(text).toContain('event: start\ndata: {"a":1}\n\n');
    expect(text.match(/: keep-alive\n\n/g)?.length).toBeGreaterThanOrEqual(2);
    expect(text.trimEnd().endsWith('event: end\ndata: {"ok":true}')).toBe(true);
  });

  it("tells the handler when the client goes away", async () => {
    const url = app.server.address() as { port: number };
    const controller = new AbortController();
    const response = await fetch(`http://127.0.0.1:${url.port}/endless`, { signal: controller.signal });
    expect(response.status).toBe(200);
    controller.abort();
    await new Promise((r) => setTimeout(r, 200));
    expect(closedByClient).toBe(true);
  });
});
