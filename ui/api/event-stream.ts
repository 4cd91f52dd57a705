import { errorFromResponse } from "./client";

/** One event of a run, preview or test stream (DESIGN.md: start, step, log, snapshot, delivery, end). */
export type StreamEvent = { event: string; data: unknown };

/**
 * POSTs to an event-stream endpoint and hands each event to `onEvent` until the stream ends.
 * EventSource cannot POST, so the body is read and split here. A non-stream answer (400 with
 * issues, 403 …) is thrown as an ApiError. Aborting `signal` hangs up.
 */
export async function postEventStream(
  path: string,
  body: unknown,
  onEvent: (event: StreamEvent) => void,
  signal?: AbortSignal,
): Promise<void> {
  const response = await fetch(path, {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify(body ?? {}),
    signal,
  });
  if (!response.ok || !response.headers.get("content-type")?.startsWith("text/event-stream")) {
    throw await errorFromResponse(response);
  }
  if (!response.body) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += value.replace(/\r\n/g, "\n");
    let cut = buffer.indexOf("\n\n");
    while (cut >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      cut = buffer.indexOf("\n\n");
      if (!block || block.startsWith(":")) continue; // keep-alive comments
      let event = "message";
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      let parsed: unknown = null;
      try {
        parsed = data.length ? JSON.parse(data.join("\n")) : null;
      } catch {
        parsed = data.join("\n");
      }
      onEvent({ event, data: parsed });
    }
  }
}
