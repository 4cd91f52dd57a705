import type { CaptureStep } from "../../schemas/capture.js";
import { StepError } from "../capture-errors.js";
import type { StepContext } from "./index.js";

type Step<T> = Extract<CaptureStep, { type: T }>;

export async function navigateStep(step: Step<"navigate">, context: StepContext) {
  const url = await context.render(step.url);
  context.navigateTo(url);
  const response = await context.page.goto(url, { waitUntil: step.waitUntil, timeout: step.timeoutMs });
  const status = response?.status();
  // An error page is not the dashboard the job wanted: fail rather than capture it.
  if (status !== undefined && status >= 400) throw new StepError(`the page answered HTTP ${status}`);
  context.log(`opened ${url}${status ? ` (HTTP ${status})` : ""}`);
}

export async function reloadStep(step: Step<"reload">, context: StepContext) {
  const response = await context.page.reload({ timeout: step.timeoutMs });
  const status = response?.status();
  if (status !== undefined && status >= 400) throw new StepError(`the page answered HTTP ${status}`);
}
