import type { Logger } from "pino";
import { createAskAi } from "../ai/ask-ai.js";
import type { BrowserPool } from "../capture/browser-pool.js";
import { type CaptureEvent, type CaptureResult, runCapture, type StepRecord } from "../capture/capture-engine.js";
import { fileStem } from "../delivery/attachments.js";
import { deliverRun } from "../delivery/deliver-run.js";
import { type FileStore, runFileKey } from "../files/file-store.js";
import { uploadKey } from "../files/uploads.js";
import type { Metrics } from "../metrics/metrics.js";
import { type ComposedHtml, composeReportHtml, describeBlockError } from "../report/compose-report.js";
import { printPdf } from "../report/print-pdf.js";
import type { JobBody } from "../schemas/job.js";
import type { DeliveriesRepository } from "../storage/repositories/deliveries-repository.js";
import type { JobsRepository, StoredJobBody } from "../storage/repositories/jobs-repository.js";
import { FINISHED_STATES, type RunsRepository, type StoredRun } from "../storage/repositories/runs-repository.js";
import type { SecretHoldersRepository } from "../storage/repositories/secret-holders-repository.js";
import type { RunEventBus } from "./run-events.js";
import { presentRun, runFileUrl } from "./run-presenter.js";

/** A capture is stopped after this long, whatever its steps say (DESIGN.md). */
export const MAX_CAPTURE_MS = 30 * 60 * 1000;

export type PipelineDeps = {
  jobs: JobsRepository;
  interfaces: SecretHoldersRepository;
  deliveries: DeliveriesRepository;
  /** REPORT_ALLOWED_HOSTS. */
  reportAllowedHosts?: string[];
  runs: RunsRepository;
  providers: SecretHoldersRepository;
  files: FileStore;
  pool: BrowserPool;
  events: RunEventBus;
  publicUrl: string;
  log: Logger;
  /** Overridable for tests of the limit. */
  maxCaptureMs?: number;
  /** Where finished runs, steps and deliveries are counted; none in tools that run no server. */
  metrics?: Metrics;
};

/**
 * One attempt of a run, from claimed to recorded: capture in a fresh browser context, then the
 * run record with its state, variables, steps and snapshot files; a failed attempt schedules the
 * next one when the job's retry policy allows. Composing and delivering reports hook in after
 * the capture. Every event also goes to the run's live stream.
 */
export async function executeRun(deps: PipelineDeps, run: StoredRun, signal: AbortSignal): Promise<StoredRun> {
  const publish = (event: Parameters<RunEventBus["publish"]>[1]) => deps.events.publish(run.id, event);
  publish({ event: "start", data: { runId: run.id, jobId: run.jobId, trigger: run.trigger, attempt: run.attempt } });

  const job = await resolveJob(deps, run);
  if (!job) {
    return finish(deps, run, failedResult("the job no longer exists"), undefined);
  }

  const timeout = AbortSignal.timeout(deps.maxCaptureMs ?? MAX_CAPTURE_MS);
  const combined = AbortSignal.any([signal, timeout]);
  let result: CaptureResult;
  const acquired = await deps.pool.acquire(job.capture.viewport).catch((error: Error) => error);
  if (acquired instanceof Error) {
    return finish(deps, run, failedResult(`the browser could not start: ${acquired.message}`), job);
  }
  const { context, page } = acquired;
  // Closing the context interrupts whatever the page is doing when the run is stopped.
  const onAbort = () => void context.close().catch(() => undefined);
  combined.addEventListener("abort", onAbort, { once: true });
  const steps: StepRecord[] = [];
  const snapshots: { name: string; file: string }[] = [];
  const pngs = new Map<string, Buffer>();
  try {
    result = await runCapture({
      capture: job.capture,
      context,
      page,
      scope: {
        job: { id: run.jobId, name: job.name, description: job.description },
        run: { id: run.id, trigger: run.trigger, attempt: run.attempt, startedAt: run.startedAt },
        space: run.space,
        now: new Date().toISOString(),
      },
      signal: combined,
      askAi: createAskAi(deps.providers, run.space),
      emit: (event: CaptureEvent) => {
        if (event.type === "step") {
          if (event.step.state !== "started") steps.push(event.step);
          publish({ event: "step", data: event.step });
        } else if (event.type === "log") {
          publish({ event: "log", data: { level: event.level, message: event.message } });
        } else {
          publish({ event: "snapshot", data: { name: event.name, url: event.url } });
        }
      },
      saveSnapshot: async (name, png) => {
        const file = `${name}.png`;
        pngs.set(name, png);
        await deps.files.put(runFileKey(run.id, file), png, "image/png");
        const existing = snapshots.findIndex((s) => s.name === name);
        if (existing >= 0) snapshots.splice(existing, 1);
        snapshots.push({ name, file });
        // Progress is saved as it comes: a crash keeps what was captured so far.
        await deps.runs.saveProgress(run.id, { steps, snapshots, variables: {} });
        return runFileUrl(run, file);
      },
    });
  } finally {
    combined.removeEventListener("abort", onAbort);
    // Closing is not awaited: the result does not depend on it, and the slot is free sooner.
    void context.close().catch(() => undefined);
  }
  if (timeout.aborted && result.state === "failed") {
    result.error = {
      ...result.error,
      message: `stopped after ${Math.round((deps.maxCaptureMs ?? MAX_CAPTURE_MS) / 60000)} minutes: ${result.error?.message ?? ""}`,
    };
  }
  // Playwright says only "Target page, context or browser has been closed": name the browser's end.
  if (result.state === "failed" && !combined.aborted && context.browser()?.isConnected() === false) {
    result.error = { ...result.error, message: `Chromium exited during the run: ${result.error?.message ?? ""}` };
  }
  const attempt: AttemptResult = {
    ...result,
    snapshots: result.snapshots.map((s) => ({ name: s.name, file: `${s.name}.png` })),
    files: [],
    deliveries: [],
  };
  // A capture that failed or stopped on purpose has nothing to report.
  if (result.state === "success") {
    try {
      await reportAndDeliver(deps, run, job, attempt, pngs, combined);
    } catch (error) {
      // A report that cannot be stored or printed (a full disk, the browser gone) fails the run:
      // thrown on, it would leave the run `running` with no end until the stale sweep.
      attempt.state = "failed";
      attempt.error = { message: `report: ${(error as Error).message.split("\n")[0]}` };
    }
  }
  return finish(deps, run, attempt, job);
}

/**
 * Composes the report (HTML and PDF, kept on the run), then delivers it to every binding unless
 * a block failed (then the run fails naming the block and nobody gets the report) or this is a
 * test that did not ask for delivery.
 */
async function reportAndDeliver(
  deps: PipelineDeps,
  run: StoredRun,
  job: StoredJobBody,
  attempt: AttemptResult,
  pngs: Map<string, Buffer>,
  signal: AbortSignal,
) {
  const reportUrl = `${deps.publicUrl}${runFileUrl(run, "report.html")}`;
  const startedAt = run.startedAt ?? new Date().toISOString();
  const scope = {
    job: { id: run.jobId, name: job.name, description: job.description },
    run: { id: run.id, trigger: run.trigger, startedAt, reportUrl },
    space: run.space,
    now: new Date().toISOString(),
  };
  let composed: ComposedHtml;
  try {
    composed = await composeReportHtml({
      report: job.report,
      variables: attempt.variables,
      snapshots: attempt.snapshots.map((s) => ({ name: s.name, png: pngs.get(s.name) ?? Buffer.alloc(0) })),
      scope,
      allowedHosts: deps.reportAllowedHosts ?? [],
      upload: (id) => deps.files.get(uploadKey(run.space, id)),
      signal,
    });
  } catch (error) {
    attempt.state = "failed";
    attempt.error = { message: `report: ${(error as Error).message}` };
    return;
  }
  await deps.files.put(runFileKey(run.id, "report.html"), Buffer.from(composed.html), "text/html");
  attempt.files = [
    { name: "report.html", kind: "html", file: "report.html" },
    // Printed now when a delivery attaches or uploads it, else on the first request of its link.
    { name: "report.pdf", kind: "pdf", file: "report.pdf" },
  ];
  const test = run.jobBody as TestRunBody | null;
  const delivering = composed.errors.length === 0 && (run.trigger !== "test" || test?.deliver === true);
  let pdf: Buffer | null = null;
  if (delivering && (await needsPdf(deps, run.space, job.deliveries))) {
    pdf = await printPdf(composed.html, composed.paper, deps.pool, signal);
    await deps.files.put(runFileKey(run.id, "report.pdf"), pdf, "application/pdf");
  }
  deps.events.publish(run.id, { event: "log", data: { level: "info", message: `report composed: ${composed.title}` } });
  if (composed.errors.length > 0) {
    const more = composed.errors.length > 1 ? ` (and ${composed.errors.length - 1} more blocks)` : "";
    attempt.state = "failed";
    attempt.error = { message: `report: ${describeBlockError(composed.errors[0])}${more}; not delivered` };
    return;
  }
  if (!delivering) return;
  const at = new Date(startedAt);
  const delivered = await deliverRun({
    run: { id: run.id, jobId: run.jobId, space: run.space },
    bindings: job.deliveries,
    report: {
      runId: run.id,
      jobId: run.jobId,
      jobName: job.name,
      title: composed.title,
      html: composed.html,
      pdf,
      reportUrl,
      fileStem: fileStem(composed.title || job.name, at),
      at,
    },
    scope: { ...attempt.variables, ...scope },
    minIntervalMinutes: job.notify.minIntervalMinutes,
    interfaces: deps.interfaces,
    deliveries: deps.deliveries,
    signal,
    onRecord: (record) => {
      deps.metrics?.deliveriesTotal.inc({ type: record.type, state: record.state });
      deps.events.publish(run.id, { event: "delivery", data: record });
    },
  });
  attempt.deliveries = delivered.records;
  if (delivered.state !== "success") {
    attempt.state = delivered.state;
    const failed = delivered.records.filter((r) => r.state === "failed");
    attempt.error =
      delivered.state === "failed"
        ? { message: `no delivery reached its destination: ${failed[0]?.error ?? "unknown error"}` }
        : { message: `${failed.length} of ${delivered.records.length} deliveries failed: ${failed[0]?.error ?? ""}` };
  }
}

type AttemptResult = Omit<CaptureResult, "snapshots" | "state"> & {
  state: "success" | "partial" | "failed" | "skipped";
  snapshots: { name: string; file: string }[];
  files: { name: string; kind: "html" | "pdf"; file: string }[];
  deliveries: unknown[];
};

const failedResult = (message: string): AttemptResult => ({
  state: "failed",
  variables: {},
  steps: [],
  snapshots: [],
  files: [],
  deliveries: [],
  error: { message },
});

async function finish(deps: PipelineDeps, run: StoredRun, result: AttemptResult, job: StoredJobBody | undefined) {
  const finished =
    (await deps.runs.finish(run.id, {
      state: result.state,
      error: result.error,
      variables: result.variables,
      steps: result.steps,
      snapshots: result.snapshots,
      files: result.files,
      deliveries: result.deliveries,
    })) ?? run;
  recordRunMetrics(deps.metrics, finished);
  if (finished.state === "failed" && job) await scheduleRetry(deps, finished, job);
  deps.events.publish(run.id, { event: "end", data: streamEndOf(finished) });
  deps.log.info({ runId: run.id, jobId: run.jobId, state: finished.state, ms: finished.durationMs }, "run finished");
  return finished;
}

/**
 * Counts a finished run (every attempt, tests included, by its own trigger) with its time and the
 * time of each step it recorded. Also called for runs that a worker records failed after their
 * process died, which have no time of their own.
 */
export function recordRunMetrics(metrics: Metrics | undefined, run: StoredRun) {
  if (!metrics || !FINISHED_STATES.includes(run.state)) return;
  metrics.runsTotal.inc({ state: run.state, trigger: run.trigger });
  if (run.durationMs !== null) metrics.runDuration.observe(run.durationMs / 1000);
  for (const step of run.steps as Partial<StepRecord>[]) {
    if (typeof step.ms === "number" && typeof step.type === "string") {
      metrics.stepDuration.observe({ type: step.type }, step.ms / 1000);
    }
  }
}

/** A failed attempt of a schedule, manual or retry run is tried again after the job's delay. */
export async function scheduleRetry(deps: Pick<PipelineDeps, "runs" | "log">, run: StoredRun, job: StoredJobBody) {
  if (run.trigger === "test" || run.attempt > job.retry.attempts) return;
  const next = await deps.runs.create({
    space: run.space,
    jobId: run.jobId,
    jobName: run.jobName,
    trigger: "retry",
    attempt: run.attempt + 1,
    retryOf: run.retryOf ?? run.id,
    notBefore: new Date(Date.now() + job.retry.delayMinutes * 60_000),
  });
  deps.log.info({ runId: next.id, retryOf: next.retryOf, attempt: next.attempt }, "retry scheduled");
}

/** What a test run stores: the unsaved (validated) job body and whether to deliver. */
export type TestRunBody = { job: JobBody; deliver: boolean };

/** A test run carries its own (unsaved, validated) body; other runs read the job as it is now. */
async function resolveJob(deps: PipelineDeps, run: StoredRun): Promise<StoredJobBody | undefined> {
  if (run.jobBody) return (run.jobBody as TestRunBody).job as StoredJobBody;
  return deps.jobs.get(run.space, run.jobId);
}

/** The `end` event of a run's stream, from its finished record. */
export function streamEndOf(finished: StoredRun) {
  const read = presentRun(finished);
  return {
    ok: read.state !== "failed",
    state: read.state,
    runId: read.id,
    variables: read.variables,
    snapshots: read.snapshots,
    files: read.files,
    deliveries: read.deliveries,
    error: read.error,
  };
}

/** Does a binding attach or upload the PDF (e-mail with attach pdf, the default; S3 with pdf)? */
async function needsPdf(deps: PipelineDeps, space: string, bindings: StoredJobBody["deliveries"]): Promise<boolean> {
  for (const binding of bindings) {
    const kind = (await deps.interfaces.get(space, binding.interfaceId))?.kind;
    if ((kind === "smtp" || kind === "mailgun") && (binding.attach ?? "pdf") === "pdf") return true;
    if (kind === "s3" && (binding.formats ?? ["pdf"]).includes("pdf")) return true;
  }
  return false;
}
