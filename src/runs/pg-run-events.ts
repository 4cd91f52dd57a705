import { EventEmitter } from "node:events";
import { sql } from "kysely";
import pg from "pg";
import type { Logger } from "pino";
import type { Storage } from "../storage/db.js";
import type { RunsRepository } from "../storage/repositories/runs-repository.js";
import type { RunEvent, RunEventBus } from "./run-events.js";
import { streamEndOf } from "./run-pipeline.js";

const EVENTS = "pagewright_run_events";
const CANCELS = "pagewright_run_cancels";
/** PostgreSQL refuses NOTIFY payloads of 8000 bytes and more. */
const MAX_PAYLOAD = 7500;

/**
 * Run events between processes (scale-out): a worker publishes with NOTIFY, every process
 * LISTENs on one connection of its own and hands the events to the streams it serves. An `end`
 * too large for a notification travels as a reference and is rebuilt from the run's record.
 */
export function createPgRunEventBus(deps: {
  storage: Storage;
  connectionString: string;
  runs: RunsRepository;
  log: Logger;
}): RunEventBus {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  const cancels = new EventEmitter();
  let client: pg.Client | undefined;
  let stopped = false;

  const notify = (channel: string, payload: string) =>
    sql`select pg_notify(${channel}, ${payload})`.execute(deps.storage.db).catch((error: Error) => {
      deps.log.error({ err: error, channel }, "could not send a run event to the other processes");
    });

  const receive = async (payload: string) => {
    const message = JSON.parse(payload) as { runId: string; event: RunEvent["event"]; data?: unknown; ref?: true };
    if (emitter.listenerCount(message.runId) === 0) return;
    let data = message.data;
    if (message.ref) {
      const run = await deps.runs.get(message.runId);
      if (!run) return;
      data = message.event === "end" ? streamEndOf(run) : { note: "event too large to relay" };
    }
    emitter.emit(message.runId, { event: message.event, data });
  };

  const connect = async () => {
    client = new pg.Client({ connectionString: deps.connectionString, application_name: "pagewright-listen" });
    client.on("notification", (message) => {
      if (!message.payload) return;
      if (message.channel === EVENTS) void receive(message.payload).catch(() => undefined);
      else if (message.channel === CANCELS) {
        const { runId, reason } = JSON.parse(message.payload) as { runId: string; reason: string };
        cancels.emit("cancel", runId, reason);
      }
    });
    // A lost connection is made again: streams must not go quiet for good.
    client.on("error", (error) => deps.log.warn({ err: error }, "run event listener lost its connection"));
    client.on("end", () => {
      if (!stopped) setTimeout(() => void connect().catch(() => undefined), 1000).unref();
    });
    await client.connect();
    await client.query(`listen ${EVENTS}`);
    await client.query(`listen ${CANCELS}`);
  };

  return {
    publish(runId, event) {
      const payload = JSON.stringify({ runId, event: event.event, data: event.data });
      void notify(
        EVENTS,
        payload.length <= MAX_PAYLOAD ? payload : JSON.stringify({ runId, event: event.event, ref: true }),
      );
    },
    subscribe(runId, listener) {
      emitter.on(runId, listener);
      return () => emitter.off(runId, listener);
    },
    requestCancel(runId, reason) {
      void notify(CANCELS, JSON.stringify({ runId, reason: reason.slice(0, 500) }));
    },
    onCancel(listener) {
      cancels.on("cancel", listener);
    },
    async start() {
      await connect();
    },
    async stop() {
      stopped = true;
      await client?.end().catch(() => undefined);
    },
  };
}
