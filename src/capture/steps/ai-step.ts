import type { CaptureStep } from "../../schemas/capture.js";
import { StepError } from "../capture-errors.js";
import { parseNumber } from "../parse-number.js";
import type { StepContext } from "./index.js";

type Step<T> = Extract<CaptureStep, { type: T }>;

/** Sends the prompt, the chosen variables and (optionally) snapshots to the space's AI provider. */
export async function aiStep(step: Step<"ai">, context: StepContext) {
  if (!context.askAi) throw new StepError("AI steps are not available here");
  const names = step.context === "all" ? null : new Set(step.context);
  const variables = Object.fromEntries(Object.entries(context.variables).filter(([name]) => !names || names.has(name)));
  const images = step.images
    ? [...context.images.entries()].filter(([name]) => !names || names.has(name)).map(([name, png]) => ({ name, png }))
    : [];
  const answer = await context.askAi({
    providerId: step.providerId,
    prompt: await context.render(step.prompt),
    output: step.output,
    variables,
    images,
    signal: context.signal,
  });
  if (step.output === "number") {
    const value = parseNumber(answer);
    if (value === undefined)
      throw new StepError(`the AI answer has no number: ${JSON.stringify(answer.slice(0, 100))}`);
    context.variables[step.as] = value;
  } else {
    context.variables[step.as] = answer.trim();
  }
  context.log(`${step.as} = ${JSON.stringify(context.variables[step.as]).slice(0, 200)}`);
}
