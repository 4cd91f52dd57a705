import { renderTemplates } from "../report/render-templates.js";

/** A rendered step string longer than this is refused: selectors and URLs are short. */
const MAX_OUTPUT = 100_000;
/** One step string may render this long: a hostile loop fails the step, never stalls the server. */
const STEP_TEMPLATE_MS = 2_000;

/**
 * Renders `{{ variable }}` in a step string (selector, URL, text, prompt) with the run's values,
 * in the template worker (time and memory limits, off the server's event loop).
 */
export async function renderStepString(template: string, scope: Record<string, unknown>): Promise<string> {
  return renderLimited(template, scope, STEP_TEMPLATE_MS, MAX_OUTPUT);
}

/** One template off the main thread, with limits; throws the template's error. */
export async function renderLimited(
  template: string,
  scope: Record<string, unknown>,
  timeoutMs: number,
  outputBytes: number,
): Promise<string> {
  if (!template.includes("{")) return template;
  const [result] = await renderTemplates([{ source: template, markdown: false }], scope, {
    timeoutMs,
    outputBytes,
    memoryMb: 64,
    imageToken: "",
  });
  if (!result.ok) throw new Error(result.message);
  return result.text;
}
