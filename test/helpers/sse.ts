import type { Client } from "./client.js";

// biome-ignore lint/suspicious/noExplicitAny: test assertions read event data field by field
export type StreamEvent = { event: string; data: any };

/**
 * POSTs to an event-stream endpoint and collects its events until the stream ends (or `stopAfter`
 * says to hang up, for disconnect tests). Comments are counted, not returned.
 */
export async function postStream(
  client: Client,
  path: string,
  body: unknown = {},
  options: { stopAfter?: (event: StreamEvent) => boolean; timeoutMs?: number } = {},
): Promise<{
  status: number;
  contentType: string | null;
  events: StreamEvent[];
  comments: number;
  end: StreamEvent["data"];
}> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error("stream timed out")), options.timeoutMs ?? 60_000);
  const response = await fetch(client.baseUrl + path, {
    method: "POST",
    headers: { "content-type": "application/json", ...(client.cookieHeader ? { cookie: client.cookieHeader } : {}) },
    body: JSON.stringify(body),
    signal: controller.signal,
  });
  const events: StreamEvent[] = [];
  let comments = 0;
  if (!response.headers.get("content-type")?.startsWith("text/event-stream")) {
    clearTimeout(timer);
    return {
      status: response.status,
      contentType: response.headers.get("content-type"),
      events,
      comments,
      end: await response.json(),
    };
  }
  if (!response.body) throw new Error("an event stream without a body");
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let cut = buffer.indexOf("\n\n");
      while (cut >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        cut = buffer.indexOf("\n\n");
        if (block.startsWith(":")) {
          comments++;
          continue;
        }
        const event = /^event: (.*)$/m.exec(block)?.[1] ?? "message";
        const data = /^data: (.*)$/m.exec(block)?.[1];
        const parsed = { event, data: data ? JSON.parse(data) : null };
        events.push(parsed);
        if (options.stopAfter?.(parsed)) {
          controller.abort();
          return {
            status: response.status,
            contentType: response.headers.get("content-type"),
            events,
            comments,
            end: null,
          };
        }
      }
    }
  } catch (error) {
    if (!controller.signal.aborted || options.stopAfter === undefined) throw error;
  } finally {
    clearTimeout(timer);
  }
  const end = events.find((e) => e.event === "end")?.data ?? null;
  return { status: response.status, contentType: response.headers.get("content-type"), events, comments, end };
}
