import { createLiquid } from "../templates/liquid.js";

const liquid = createLiquid();
/** A rendered step string longer than this is refused: selectors and URLs are short. */
const MAX_OUTPUT = 100_000;

/** Renders `{{ variable }}` in a step string (selector, URL, text, prompt) with the run's values. */
export function renderStepString(template: string, scope: Record<string, unknown>): string {
  if (!template.includes("{")) return template;
  const output = String(liquid.parseAndRenderSync(template, scope));
  if (output.length > MAX_OUTPUT) throw new Error(`the rendered text is longer than ${MAX_OUTPUT} characters`);
  return output;
}
