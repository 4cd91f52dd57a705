import { evaluate, parseExpression } from "../../expressions/expression.js";
import type { CaptureStep } from "../../schemas/capture.js";
import { BreakSignal, StepError } from "../capture-errors.js";
import type { StepContext } from "./index.js";

type Step<T> = Extract<CaptureStep, { type: T }>;

function compute(expression: string, context: StepContext) {
  try {
    return evaluate(parseExpression(expression), context.variables);
  } catch (error) {
    throw new StepError(`expression ${JSON.stringify(expression)}: ${(error as Error).message}`);
  }
}

export async function calculateStep(step: Step<"calculate">, context: StepContext) {
  const value = compute(step.expression, context);
  if (typeof value === "number" && !Number.isFinite(value)) {
    throw new StepError(`expression ${JSON.stringify(step.expression)} gives ${value}`);
  }
  context.variables[step.as] = value;
  context.log(`${step.as} = ${JSON.stringify(value)}`);
}

export async function ifStep(step: Step<"if">, context: StepContext) {
  const holds = Boolean(compute(step.condition, context));
  context.log(`if ${step.condition}: ${holds}`);
  if (holds) {
    if (step.else) context.skipSteps(step.else);
    await context.runSteps(step.then);
  } else {
    context.skipSteps(step.then);
    if (step.else) await context.runSteps(step.else);
  }
}

export async function breakStep(step: Step<"break">) {
  throw new BreakSignal(step.reason);
}
