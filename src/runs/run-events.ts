import { EventEmitter } from "node:events";

/**
 * Live events of runs, for the event streams: `start`, `step`, `log`, `snapshot`, `delivery`,
 * `end`. In one process an EventEmitter carries them; the scale-out backend relays them between
 * processes through PostgreSQL.
 */
export type RunEventName = "start" | "step" | "log" | "snapshot" | "delivery" | "end";
export type RunEvent = { event: RunEventName; data: unknown };

export type RunEventBus = {
  publish(runId: string, event: RunEvent): void;
  /** Returns the function that unsubscribes. */
  subscribe(runId: string, listener: (event: RunEvent) => void): () => void;
  /** Asks whichever process runs `runId` to stop it (a test whose client went away). */
  requestCancel(runId: string, reason: string): void;
  onCancel(listener: (runId: string, reason: string) => void): void;
  /** Connects (scale-out: the LISTEN connection); the embedded bus has nothing to do. */
  start(): Promise<void>;
  stop(): Promise<void>;
};

export function createRunEventBus(): RunEventBus {
  const emitter = new EventEmitter();
  // Every open stream is one listener on its run's channel; there is no global listener cap.
  emitter.setMaxListeners(0);
  const cancels = new EventEmitter();
  return {
    requestCancel(runId, reason) {
      cancels.emit("cancel", runId, reason);
    },
    onCancel(listener) {
      cancels.on("cancel", listener);
    },
    async start() {},
    async stop() {},
    publish(runId, event) {
      emitter.emit(runId, event);
    },
    subscribe(runId, listener) {
      emitter.on(runId, listener);
      return () => emitter.off(runId, listener);
    },
  };
}
