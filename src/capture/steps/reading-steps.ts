import type { CaptureStep } from "../../schemas/capture.js";
import { StepError } from "../capture-errors.js";
import { parseNumber } from "../parse-number.js";
import type { StepContext } from "./index.js";

type Step<T> = Extract<CaptureStep, { type: T }>;

export async function snapshotStep(step: Step<"snapshot">, context: StepContext) {
  const png = step.selector
    ? await context.page
        .locator(await context.render(step.selector))
        .first()
        .screenshot({ timeout: step.timeoutMs, type: "png" })
    : await context.page.screenshot({ fullPage: step.fullPage, timeout: step.timeoutMs, type: "png" });
  await context.saveSnapshot(step.as, png);
}

export async function extractStep(step: Step<"extract">, context: StepContext) {
  const locator = context.page.locator(await context.render(step.selector)).first();
  const raw = step.attribute
    ? await locator.getAttribute(step.attribute, { timeout: step.timeoutMs })
    : // innerText on purpose: the text as the page shows it (no hidden nodes, rendered spacing).
      // biome-ignore lint/performance/useDomNodeTextContent: a dashboard value is what a person sees
      await locator.innerText({ timeout: step.timeoutMs });
  if (raw === null) throw new StepError(`the element has no attribute ${step.attribute}`);
  let text = raw.trim();
  if (step.pattern) {
    const match = new RegExp(step.pattern).exec(text);
    if (!match) throw new StepError(`the pattern ${step.pattern} does not match ${JSON.stringify(text.slice(0, 100))}`);
    text = match[1] ?? match[0];
  }
  if (step.parse === "number") {
    const value = parseNumber(text);
    if (value === undefined) throw new StepError(`no number in ${JSON.stringify(text.slice(0, 100))}`);
    context.variables[step.as] = value;
  } else {
    context.variables[step.as] = text;
  }
  context.log(`${step.as} = ${JSON.stringify(context.variables[step.as]).slice(0, 200)}`);
}
