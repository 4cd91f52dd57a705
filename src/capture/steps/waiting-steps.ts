import type { CaptureStep } from "../../schemas/capture.js";
import type { StepContext } from "./index.js";

type Step<T> = Extract<CaptureStep, { type: T }>;

export async function waitForStep(step: Step<"waitFor">, context: StepContext) {
  await context.page
    .locator(await context.render(step.selector))
    .first()
    .waitFor({ state: step.state, timeout: step.timeoutMs });
}

export async function waitForTextStep(step: Step<"waitForText">, context: StepContext) {
  await context.page
    .getByText(await context.render(step.text))
    .first()
    .waitFor({ state: "visible", timeout: step.timeoutMs });
}

export async function waitStep(step: Step<"wait">, context: StepContext) {
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, step.ms);
    context.signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(context.signal.reason);
      },
      { once: true },
    );
  });
}
