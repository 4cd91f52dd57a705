import type { Page } from "playwright-core";
import type { CaptureStep } from "../../schemas/capture.js";
import type { AskAi } from "../capture-engine.js";
import { aiStep } from "./ai-step.js";
import { clickStep, hoverStep, pressStep, scrollStep, selectStep, typeStep } from "./interaction-steps.js";
import { breakStep, calculateStep, ifStep } from "./logic-steps.js";
import { navigateStep, reloadStep } from "./navigation-steps.js";
import { extractStep, snapshotStep } from "./reading-steps.js";
import { waitForStep, waitForTextStep, waitStep } from "./waiting-steps.js";

/** What a step handler works with; the engine builds one per capture. */
export type StepContext = {
  page: Page;
  variables: Record<string, unknown>;
  signal: AbortSignal;
  render(template: string): Promise<string>;
  log(message: string, level?: "info" | "warn"): void;
  /** Checks a URL before a navigation and makes its origin the one basic auth goes to. */
  navigateTo(url: string): void;
  saveSnapshot(name: string, png: Buffer): Promise<void>;
  images: Map<string, Buffer>;
  askAi?: AskAi;
  runSteps(steps: CaptureStep[]): Promise<void>;
  skipSteps(steps: CaptureStep[]): void;
};

type Handler<T extends CaptureStep["type"]> = (
  step: Extract<CaptureStep, { type: T }>,
  context: StepContext,
) => Promise<void>;

/** Every step type and its handler, listed by hand. */
export const STEP_HANDLERS: { [T in CaptureStep["type"]]: Handler<T> } = {
  navigate: navigateStep,
  reload: reloadStep,
  click: clickStep,
  type: typeStep,
  press: pressStep,
  select: selectStep,
  hover: hoverStep,
  scroll: scrollStep,
  waitFor: waitForStep,
  waitForText: waitForTextStep,
  wait: waitStep,
  snapshot: snapshotStep,
  extract: extractStep,
  calculate: calculateStep,
  if: ifStep,
  break: breakStep,
  ai: aiStep,
};
