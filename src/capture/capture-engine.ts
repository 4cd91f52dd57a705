import type { BrowserContext, Page } from "playwright-core";
import type { Capture, CaptureStep } from "../schemas/capture.js";
import { checkHttpUrl } from "../schemas/rules.js";
import { BreakSignal, StepError } from "./capture-errors.js";
import { renderStepString } from "./step-strings.js";
import { STEP_HANDLERS, type StepContext } from "./steps/index.js";

/**
 * Runs the steps of a capture in one fresh browser context. Every step is reported as started,
 * then done, failed or skipped, with its time; a failure names the step. A `break` ends the run
 * on purpose (state skipped). The caller owns the context and closes it.
 */

export type StepState = "started" | "done" | "failed" | "skipped";

export type StepRecord = {
  index: number;
  stepId: string;
  type: string;
  state: StepState;
  ms: number | null;
  error?: string | null;
};

export type CaptureEvent =
  | { type: "step"; step: StepRecord }
  | { type: "log"; level: "info" | "warn"; message: string }
  | { type: "snapshot"; name: string; url: string };

/** Asks the AI provider of a step; implemented by the run pipeline with the space's providers. */
export type AskAi = (request: {
  providerId: string;
  prompt: string;
  output: "text" | "number" | "html";
  variables: Record<string, unknown>;
  images: { name: string; png: Buffer }[];
  signal: AbortSignal;
}) => Promise<string>;

export type CaptureInput = {
  capture: Capture;
  /** A fresh context and its one blank page, used by this capture only. */
  context: BrowserContext;
  page: Page;
  /** job, run, space, now: readable by `{{ }}` in step strings, below the captured variables. */
  scope: Record<string, unknown>;
  signal: AbortSignal;
  emit(event: CaptureEvent): void;
  /** Stores a snapshot; answers the URL it is served at. */
  saveSnapshot(name: string, png: Buffer): Promise<string>;
  askAi?: AskAi;
};

export type CaptureResult = {
  state: "success" | "skipped" | "failed";
  variables: Record<string, unknown>;
  steps: StepRecord[];
  snapshots: { name: string; url: string }[];
  error: { message: string; stepId?: string } | null;
  /** Why a break step ended the run. */
  breakReason?: string;
};

export async function runCapture(input: CaptureInput): Promise<CaptureResult> {
  const variables: Record<string, unknown> = {};
  const steps: StepRecord[] = [];
  const snapshots: { name: string; url: string }[] = [];
  const images = new Map<string, Buffer>();
  let index = 0;

  const page = input.page;
  const auth = input.capture.auth;
  const navigation = { origin: null as string | null };
  if (auth.type === "basic") {
    // Basic auth goes only to the origin of the current navigation: never to an image, frame or
    // script of another host, nor after a redirect to another origin.
    const header = `Basic ${Buffer.from(`${auth.username}:${auth.password ?? ""}`).toString("base64")}`;
    await input.context.route("**/*", async (route) => {
      const request = route.request();
      let origin: string | undefined;
      try {
        origin = new URL(request.url()).origin;
      } catch {
        origin = undefined;
      }
      if (!navigation.origin || origin !== navigation.origin) return route.continue();
      // Fetched here without following redirects: headers given to route.continue() would
      // travel along every redirect, to whatever host it points at. The browser follows a
      // redirect with a new request, which comes back through this route and is judged anew.
      try {
        const response = await route.fetch({
          headers: { ...request.headers(), authorization: header },
          maxRedirects: 0,
        });
        return route.fulfill({ response });
      } catch {
        return route.abort("failed").catch(() => undefined);
      }
    });
  }

  const record = (step: CaptureStep, state: StepState, ms: number | null, error?: string) => {
    const entry: StepRecord = {
      index: -1,
      stepId: step.id ?? "",
      type: step.type,
      state,
      ms,
      ...(error ? { error } : {}),
    };
    return entry;
  };

  const markSkipped = (list: CaptureStep[]) => {
    for (const step of list) {
      const entry = { ...record(step, "skipped", null), index: index++ };
      steps.push(entry);
      input.emit({ type: "step", step: entry });
      if (step.type === "if") {
        markSkipped(step.then);
        if (step.else) markSkipped(step.else);
      }
    }
  };

  const context: StepContext = {
    page,
    variables,
    signal: input.signal,
    render: (template) => renderStepString(template, { ...input.scope, ...variables }),
    log: (message, level = "info") => input.emit({ type: "log", level, message }),
    navigateTo: (url) => {
      const problem = checkHttpUrl(url);
      if (problem) throw new StepError(`URL ${JSON.stringify(url)}: ${problem}`);
      navigation.origin = new URL(url).origin;
    },
    async saveSnapshot(name, png) {
      images.set(name, png);
      const url = await input.saveSnapshot(name, png);
      const existing = snapshots.findIndex((s) => s.name === name);
      if (existing >= 0) snapshots.splice(existing, 1);
      snapshots.push({ name, url });
      input.emit({ type: "snapshot", name, url });
    },
    images,
    askAi: input.askAi,
    runSteps: (list) => runSteps(list),
    skipSteps: (list) => markSkipped(list),
  };

  const runSteps = async (list: CaptureStep[]): Promise<void> => {
    for (const [position, step] of list.entries()) {
      if (input.signal.aborted) throw abortError(input.signal);
      const myIndex = index++;
      const started = { ...record(step, "started", null), index: myIndex };
      input.emit({ type: "step", step: started });
      const t0 = performance.now();
      try {
        await runStep(step, context);
      } catch (error) {
        const ms = Math.round(performance.now() - t0);
        if (error instanceof BreakSignal) {
          const done = { ...record(step, "done", ms), index: myIndex };
          steps.push(done);
          input.emit({ type: "step", step: done });
          markSkipped(list.slice(position + 1));
          throw error;
        }
        const message = describeFailure(step, error, input.signal);
        const failed = { ...record(step, "failed", ms, message), index: myIndex };
        steps.push(failed);
        input.emit({ type: "step", step: failed });
        markSkipped(list.slice(position + 1));
        throw new CaptureFailure(message, step.id);
      }
      const done = { ...record(step, "done", Math.round(performance.now() - t0)), index: myIndex };
      // Entries are sorted by index at the end, so an `if` reads before the steps of its branch.
      steps.push(done);
      input.emit({ type: "step", step: done });
    }
  };

  try {
    await runSteps(input.capture.steps);
    return { state: "success", variables, steps: sortSteps(steps), snapshots, error: null };
  } catch (error) {
    if (error instanceof BreakSignal) {
      input.emit({ type: "log", level: "info", message: `break: ${error.reason || "stopped on purpose"}` });
      return {
        state: "skipped",
        variables,
        steps: sortSteps(steps),
        snapshots,
        error: null,
        breakReason: error.reason,
      };
    }
    const failure =
      error instanceof CaptureFailure ? error : new CaptureFailure(describeFailure(undefined, error, input.signal));
    return {
      state: "failed",
      variables,
      steps: sortSteps(steps),
      snapshots,
      error: failure.stepId ? { message: failure.message, stepId: failure.stepId } : { message: failure.message },
    };
  } finally {
    await page.close().catch(() => undefined);
  }
}

const sortSteps = (steps: StepRecord[]) => [...steps].sort((a, b) => a.index - b.index);

class CaptureFailure extends Error {
  constructor(
    message: string,
    readonly stepId?: string,
  ) {
    super(message);
  }
}

async function runStep(step: CaptureStep, context: StepContext): Promise<void> {
  const handler = STEP_HANDLERS[step.type] as (step: CaptureStep, context: StepContext) => Promise<void>;
  await handler(step, context);
}

function abortError(signal: AbortSignal): Error {
  const reason = signal.reason;
  return reason instanceof Error ? reason : new Error(String(reason ?? "cancelled"));
}

/** "step 3 (click "#save"): Timeout 30000ms exceeded" — the step named, the first line of the cause. */
function describeFailure(step: CaptureStep | undefined, error: unknown, signal: AbortSignal): string {
  const cause = signal.aborted ? abortError(signal).message : error instanceof Error ? error.message : String(error);
  const firstLine = cause.split("\n")[0].replace(/^(locator|page|elementHandle)\.\w+: /, "");
  if (!step) return firstLine;
  const target =
    "selector" in step && step.selector ? ` ${JSON.stringify(step.selector)}` : "url" in step ? ` ${step.url}` : "";
  return `${step.label ? `"${step.label}" ` : ""}${step.type}${target}: ${firstLine}`;
}
