import crypto from "node:crypto";
import os from "node:os";
import { type Boss, RUN_QUEUE } from "../scale/boss.js";
import type { JobsRepository } from "../storage/repositories/jobs-repository.js";
import type { StoredRun } from "../storage/repositories/runs-repository.js";
import { executeRun, type PipelineDeps, recordRunMetrics, scheduleRetry } from "./run-pipeline.js";

/**
 * Takes queued runs from the database and executes them, `workerCount` at a time. The runs table
 * is the queue: a run is a record before it is work, so nothing is lost when a process dies. A
 * new run wakes the worker at once; a poll every second picks up retries whose delay has passed
 * and runs queued by other processes.
 */
export type RunWorker = {
  readonly id: string;
  start(): Promise<void>;
  /** A run was queued: look now rather than at the next poll. */
  notify(): void;
  /** Stops a queued or running run (a test whose client went away). */
  cancel(runId: string, reason: string): Promise<void>;
  /** Runs `fn` in one of the worker's slots (previews), waiting for a free one. */
  withSlot<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  readonly active: number;
  /** No new runs; running ones get `graceMs` to finish, then are stopped and recorded failed. */
  stop(graceMs: number): Promise<void>;
};

const POLL_MS = 1000;
/** Scale-out: pg-boss brings the runs; a slow look at the table catches any it could not send. */
const FALLBACK_POLL_MS = 15_000;
const HEARTBEAT_MS = 10_000;
const SWEEP_MS = 15_000;

export function createRunWorker(
  deps: PipelineDeps & {
    jobs: JobsRepository;
    workerCount: number;
    /**
     * Scale-out: other workers share the queue, so a running run at start is not an orphan unless
     * its heartbeat has stopped. Embedded: every run left running at start is an orphan.
     */
    shared?: boolean;
    /** A running run whose worker has not beaten for this long is failed and retried. Default 60 s. */
    staleAfterMs?: number;
    /** Scale-out: the process's pg-boss, whose run queue brings this worker its runs. */
    boss?: Boss;
  },
): RunWorker {
  const staleAfterMs = deps.staleAfterMs ?? 60_000;
  let sweeper: NodeJS.Timeout | undefined;
  const id = `${os.hostname()}:${process.pid}:${crypto.randomBytes(3).toString("hex")}`;
  const running = new Map<string, { controller: AbortController; done: Promise<unknown> }>();
  const waiting: (() => void)[] = [];
  let slotsInUse = 0;
  let started = false;
  let stopping = false;
  let polling = false;
  let pollAgain = false;
  let timer: NodeJS.Timeout | undefined;
  let heartbeat: NodeJS.Timeout | undefined;

  const acquireSlot = async (signal?: AbortSignal) => {
    while (slotsInUse >= deps.workerCount) {
      await new Promise<void>((resolve, reject) => {
        waiting.push(resolve);
        signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
    }
    slotsInUse++;
  };
  const releaseSlot = () => {
    slotsInUse--;
    waiting.shift()?.();
    worker.notify();
  };

  const execute = (run: StoredRun) => {
    const controller = new AbortController();
    const done = executeRun(deps, run, controller.signal)
      .catch((error: Error) => deps.log.error({ err: error, runId: run.id }, "run pipeline failed"))
      .finally(() => {
        running.delete(run.id);
        releaseSlot();
      });
    running.set(run.id, { controller, done });
  };

  // One poll at a time; a notify during a poll makes it look once more when it ends.
  const poll = async () => {
    if (polling) {
      pollAgain = true;
      return;
    }
    polling = true;
    try {
      do {
        pollAgain = false;
        while (!stopping && slotsInUse < deps.workerCount) {
          slotsInUse++;
          const run = await deps.runs.claimNext(id).catch((error: Error) => {
            deps.log.error({ err: error }, "could not read the run queue");
            return undefined;
          });
          if (!run) {
            slotsInUse--;
            break;
          }
          observeQueueWait(run);
          execute(run);
        }
      } while (pollAgain && !stopping);
    } finally {
      polling = false;
    }
  };

  const worker: RunWorker = {
    id,
    async start() {
      started = true;
      if (!deps.shared) await recoverOrphans();
      await sweep();
      deps.events.onCancel((runId, reason) => running.get(runId)?.controller.abort(new Error(reason)));
      sweeper = setInterval(() => void sweep(), Math.min(SWEEP_MS, staleAfterMs / 2));
      sweeper.unref();
      if (deps.boss) await takeFromBoss(deps.boss);
      timer = setInterval(() => void poll(), deps.boss ? FALLBACK_POLL_MS : POLL_MS);
      timer.unref();
      heartbeat = setInterval(() => {
        void deps.runs.heartbeat(id, [...running.keys()]).catch(() => undefined);
      }, HEARTBEAT_MS);
      heartbeat.unref();
      void poll();
    },
    notify() {
      // A process that does not run the queue (pagewright web) only records runs; with pg-boss,
      // the queue brings them.
      if (started && !stopping && !deps.boss) void poll();
    },
    async cancel(runId, reason) {
      const active = running.get(runId);
      if (active) {
        active.controller.abort(new Error(reason));
        await active.done;
      } else {
        await deps.runs.failQueued(runId, reason);
        // Another process may have taken it meanwhile.
        deps.events.requestCancel(runId, reason);
      }
    },
    async withSlot(fn, signal) {
      await acquireSlot(signal);
      try {
        return await fn();
      } finally {
        releaseSlot();
      }
    },
    get active() {
      return running.size;
    },
    async stop(graceMs) {
      stopping = true;
      clearInterval(timer);
      clearInterval(sweeper);
      const all = () => Promise.all([...running.values()].map((r) => r.done));
      const inTime = await Promise.race([all().then(() => true), sleep(graceMs).then(() => false)]);
      if (!inTime) {
        for (const { controller } of running.values())
          controller.abort(new Error("Pagewright was stopped during the run"));
        await all();
      }
      clearInterval(heartbeat);
    },
  };

  /**
   * Scale-out: WORKER_COUNT pg-boss work loops on the run queue, each taking one run at a time;
   * pg-boss spreads the runs over every worker process. The run record stays the truth: a job whose
   * run is no longer queued (taken by the fallback look, cancelled) is simply done.
   */
  async function takeFromBoss(boss: Boss) {
    for (let i = 0; i < deps.workerCount; i++) {
      await boss.instance.work<{ runId: string }>(
        RUN_QUEUE,
        { batchSize: 1, pollingIntervalSeconds: 0.5 },
        async ([job]) => {
          if (stopping || !job) return;
          await acquireSlot();
          let run: StoredRun | undefined;
          try {
            run = await deps.runs.claim(job.data.runId, id);
          } catch (error) {
            releaseSlot();
            throw error;
          }
          if (!run) {
            releaseSlot();
            return;
          }
          observeQueueWait(run);
          execute(run);
          await running.get(run.id)?.done;
        },
      );
    }
  }

  /** Runs whose worker went quiet (killed, or hung): failed, then retried by their job's policy. */
  async function sweep() {
    try {
      const stale = await deps.runs.failStale(
        new Date(Date.now() - staleAfterMs),
        "the worker running it stopped answering (killed or hung) before the run ended",
      );
      for (const run of stale) {
        recordRunMetrics(deps.metrics, run);
        const job = await deps.jobs.get(run.space, run.jobId);
        if (job) await scheduleRetry(deps, run, job);
        deps.log.warn(
          { runId: run.id, jobId: run.jobId, worker: run.worker },
          "run of a silent worker: recorded failed",
        );
      }
    } catch (error) {
      deps.log.error({ err: error }, "could not look for runs of silent workers");
    }
  }

  /**
   * Runs left `running` by a process that died: in the embedded mode every such run is an
   * orphan at start. Each is recorded failed and retried by its job's policy.
   */
  async function recoverOrphans() {
    const orphans = await deps.runs.orphaned({ exceptWorker: id });
    for (const run of orphans) {
      const finished = await deps.runs.finish(run.id, {
        state: "failed",
        error: { message: "the process running it stopped before the run ended" },
        variables: run.variables,
        steps: run.steps,
        snapshots: run.snapshots,
      });
      if (finished) recordRunMetrics(deps.metrics, finished);
      const job = await deps.jobs.get(run.space, run.jobId);
      if (finished && job) await scheduleRetry(deps, finished, job);
      deps.log.warn({ runId: run.id, jobId: run.jobId }, "run left running by a stopped process: recorded failed");
    }
  }

  /**
   * How long a due run waited for a worker: from when it could start (queued, or the end of its
   * retry delay, which is a wait by design and not the queue's) to its claim.
   */
  function observeQueueWait(run: StoredRun) {
    if (!deps.metrics || !run.startedAt) return;
    const due = Math.max(Date.parse(run.queuedAt), Date.parse(run.notBefore));
    deps.metrics.queueWait.observe(Math.max(0, Date.parse(run.startedAt) - due) / 1000);
  }

  return worker;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());
