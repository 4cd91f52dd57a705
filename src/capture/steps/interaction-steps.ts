import type { CaptureStep } from "../../schemas/capture.js";
import type { StepContext } from "./index.js";

type Step<T> = Extract<CaptureStep, { type: T }>;

const locate = async (context: StepContext, selector: string) =>
  context.page.locator(await context.render(selector)).first();

export async function clickStep(step: Step<"click">, context: StepContext) {
  await (await locate(context, step.selector)).click({
    button: step.button,
    clickCount: step.clickCount,
    timeout: step.timeoutMs,
  });
}

export async function typeStep(step: Step<"type">, context: StepContext) {
  // fill() replaces the value, as a person selecting the field's text and typing would.
  await (await locate(context, step.selector)).fill(await context.render(step.text), { timeout: step.timeoutMs });
}

export async function pressStep(step: Step<"press">, context: StepContext) {
  if (step.selector) await (await locate(context, step.selector)).press(step.key, { timeout: step.timeoutMs });
  else await context.page.keyboard.press(step.key);
}

export async function selectStep(step: Step<"select">, context: StepContext) {
  // A string matches an option's value or its label.
  await (await locate(context, step.selector)).selectOption(await context.render(step.value), {
    timeout: step.timeoutMs,
  });
}

export async function hoverStep(step: Step<"hover">, context: StepContext) {
  await (await locate(context, step.selector)).hover({ timeout: step.timeoutMs });
}

/** Without a selector: scrolls down a screen at a time until the page stops growing, so lazy panels load. */
export async function scrollStep(step: Step<"scroll">, context: StepContext) {
  if (step.selector) {
    await (await locate(context, step.selector)).scrollIntoViewIfNeeded({ timeout: step.timeoutMs });
    return;
  }
  const deadline = Date.now() + step.timeoutMs;
  for (let i = 0; i < 200 && Date.now() < deadline; i++) {
    const atEnd = await context.page.evaluate(() => {
      window.scrollBy(0, window.innerHeight);
      return window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2;
    });
    await context.page.waitForTimeout(100);
    if (atEnd) {
      // Content loaded by the last scroll may have made the page longer: check once more.
      const stillAtEnd = await context.page.evaluate(
        () => window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2,
      );
      if (stillAtEnd) return;
    }
  }
}
