/**
 * Holds event streams open (`POST …/run` answers `text/event-stream`) and counts what they carry,
 * for the load bench. Each stream is read as it arrives; only the `end` event is parsed.
 */

export type EventStreamFigures = {
  /** Streams kept open at once. */
  held: number;
  /** Requests sent (replacements included). */
  opened: number;
  /** Streams that got their `end` event. */
  ended: number;
  /** `end` events by the run's final state. */
  endStates: Record<string, number>;
  /** Streams still open when the bench stopped, closed by it. */
  closedAtEnd: number;
  /** Refused requests, broken connections, streams closed by the server without `end`. */
  errors: number;
  firstError: string | null;
  events: number;
  eventCounts: Record<string, number>;
  comments: number;
  bytes: number;
  /** Milliseconds from the request to the answer's headers. */
  openP50: number;
  openP99: number;
  /** Milliseconds from the request to `end`, of the streams that ended. */
  lifeP50: number;
};

export type EventStreams = {
  /** Resolves once `count` streams have their headers; rejects on a stream error or the timeout. */
  allOpen(timeoutMs: number): Promise<void>;
  /** Resolves once every stream has ended (without replacement); rejects after the timeout. */
  untilEnded(timeoutMs: number): Promise<EventStreamFigures>;
  /** No more replacements; closes the streams still open and answers the figures. */
  stop(): Promise<EventStreamFigures>;
};

/** After an error, a replacement waits this long, so a refusing server is not hammered. */
const RETRY_MS = 1000;

export function holdEventStreams(options: {
  url: string;
  cookie: string;
  path: string;
  count: number;
  /** Open a new stream when one ends, so that `count` stay open. */
  replace: boolean;
}): EventStreams {
  const f: EventStreamFigures = {
    held: options.count,
    opened: 0,
    ended: 0,
    endStates: {},
    closedAtEnd: 0,
    errors: 0,
    firstError: null,
    events: 0,
    eventCounts: {},
    comments: 0,
    bytes: 0,
    openP50: 0,
    openP99: 0,
    lifeP50: 0,
  };
  const openTimes: number[] = [];
  const lifeTimes: number[] = [];
  const controllers = new Set<AbortController>();
  const pending = new Set<Promise<void>>();
  let stopping = false;
  let withHeaders = 0;
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const listener of listeners) listener();
  };

  const fail = (message: string) => {
    f.errors++;
    f.firstError ??= message;
  };

  const one = async () => {
    const controller = new AbortController();
    controllers.add(controller);
    f.opened++;
    const t0 = performance.now();
    let ended = false;
    try {
      const response = await fetch(options.url + options.path, {
        method: "POST",
        headers: { cookie: options.cookie },
        signal: controller.signal,
      });
      openTimes.push(performance.now() - t0);
      withHeaders++;
      changed();
      const type = response.headers.get("content-type") ?? "";
      if (response.status !== 200 || !type.startsWith("text/event-stream") || !response.body) {
        fail(`answered ${response.status} ${type}: ${(await response.text()).slice(0, 200)}`);
        return;
      }
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        f.bytes += value.byteLength;
        buffer += decoder.decode(value, { stream: true });
        let cut = buffer.indexOf("\n\n");
        while (cut >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          cut = buffer.indexOf("\n\n");
          if (block.startsWith(":")) {
            f.comments++;
            continue;
          }
          const name = /^event: (.*)$/m.exec(block)?.[1] ?? "message";
          f.events++;
          f.eventCounts[name] = (f.eventCounts[name] ?? 0) + 1;
          if (name === "end") {
            ended = true;
            const data = JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? "{}") as { state?: string };
            const state = data.state ?? "unknown";
            f.endStates[state] = (f.endStates[state] ?? 0) + 1;
          }
        }
      }
      if (ended) {
        f.ended++;
        lifeTimes.push(performance.now() - t0);
      } else {
        fail("the server closed a stream without an end event");
      }
    } catch (error) {
      if (stopping && controller.signal.aborted) f.closedAtEnd++;
      else
        fail(
          error instanceof Error ? `${error.message}${error.cause ? ` (${String(error.cause)})` : ""}` : String(error),
        );
    } finally {
      controllers.delete(controller);
      if (options.replace && !stopping) {
        if (ended) start();
        else setTimeout(() => stopping || start(), RETRY_MS);
      }
    }
  };

  const start = () => {
    const running = one().finally(() => {
      pending.delete(running);
      changed();
    });
    pending.add(running);
  };

  const figures = (): EventStreamFigures => {
    const open = [...openTimes].sort((a, b) => a - b);
    const life = [...lifeTimes].sort((a, b) => a - b);
    return { ...f, openP50: percentile(open, 50), openP99: percentile(open, 99), lifeP50: percentile(life, 50) };
  };

  /** Resolves when `done()` holds, checked as streams open and finish; rejects after the timeout. */
  const until = (done: () => boolean, timeoutMs: number, what: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!done()) return;
        clearTimeout(timer);
        listeners.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`${what} within ${timeoutMs / 1000} s (${f.errors} errors; first: ${f.firstError})`));
      }, timeoutMs);
      listeners.add(check);
      check();
    });

  for (let i = 0; i < options.count; i++) start();

  return {
    async allOpen(timeoutMs) {
      await until(() => withHeaders >= options.count || f.errors > 0, timeoutMs, "not every stream opened");
      if (f.errors) throw new Error(`opening the streams: ${f.errors} errors (first: ${f.firstError})`);
    },
    async untilEnded(timeoutMs) {
      await until(() => pending.size === 0, timeoutMs, "the streams did not end");
      return figures();
    },
    async stop() {
      stopping = true;
      for (const controller of controllers) controller.abort();
      while (pending.size) await Promise.all([...pending]);
      return figures();
    },
  };
}

/** Nearest-rank percentile of sorted values; 0 when there are none. */
function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
