import type { ObjectField } from "./object-fields";

/**
 * The capture step types (src/schemas/capture.ts) and the fields of each, for the editor. The
 * descriptions follow the schema's and the guide's (src/guide/pages/capture.md). A field marked
 * `template` is a TemplateString there (`{{ variable }}` allowed), one marked `expression` is an
 * Expression (variables by bare name): the editor offers the names stored before the step.
 */

export type StepType = {
  label: string;
  /** One line: what the step does in the browser or with the variables. */
  description: string;
  fields: ObjectField[];
};

const selector: ObjectField = {
  name: "selector",
  label: "Selector",
  kind: "text",
  required: true,
  code: true,
  template: true,
  placeholder: "#errors .value, text=Sign in, role=button[name=Save]",
  description: "CSS (#errors .value) or Playwright (text=Sign in, role=button[name=Save]); the first match is used.",
};
const optionalSelector: ObjectField = { ...selector, required: false };
const timeout: ObjectField = { name: "timeoutMs", label: "Timeout (ms)", kind: "number", placeholder: "30000" };
const as: ObjectField = {
  name: "as",
  label: "Store as (variable name)",
  kind: "text",
  required: true,
  code: true,
  placeholder: "errors",
  description: "A letter or _, then letters, digits or _; later steps use it as {{ name }} or in expressions.",
};
const EXPRESSION_HELP =
  "Variables by bare name; + - * / %, == != < > <= >=, && || !, a ? b : c, functions such as round(x, 1).";

export const STEP_TYPES: Record<string, StepType> = {
  navigate: {
    label: "Open a URL",
    description: "Opens a URL in the page and waits until it has loaded.",
    fields: [
      {
        name: "url",
        label: "URL",
        kind: "text",
        required: true,
        template: true,
        placeholder: "https://dash.example.com/errors",
        description: "http:// or https://, no user name or password in it; may use {{ variable }} after the scheme.",
      },
      {
        name: "waitUntil",
        label: "Done when",
        kind: "select",
        options: ["load", "domcontentloaded", "networkidle"],
        description: "load by default; networkidle waits for the page's requests to settle.",
      },
      timeout,
    ],
  },
  click: {
    label: "Click",
    description: "Clicks the first element matching the selector.",
    fields: [
      selector,
      { name: "button", label: "Button", kind: "select", options: ["left", "right", "middle"] },
      { name: "clickCount", label: "Clicks", kind: "number", description: "1 to 3; 2 is a double click." },
      timeout,
    ],
  },
  type: {
    label: "Type text",
    description: "Fills an input with text, clearing it first.",
    fields: [
      selector,
      { name: "text", label: "Text", kind: "text", required: true, template: true },
      {
        name: "sensitive",
        label: "Sensitive (a password): hidden from read-only members and run records",
        kind: "switch",
      },
      timeout,
    ],
  },
  press: {
    label: "Press a key",
    description: "Presses a key, in an element when a selector is given.",
    fields: [
      {
        name: "key",
        label: "Key",
        kind: "text",
        required: true,
        placeholder: "Enter",
        description: "A key name: Enter, Tab, ArrowDown, Control+A …",
      },
      { ...optionalSelector, description: "The element that gets the key; the focused one when empty." },
      timeout,
    ],
  },
  select: {
    label: "Choose an option",
    description: "Chooses an option of a <select> by its value or its label.",
    fields: [
      selector,
      { name: "value", label: "Value or label", kind: "text", required: true, template: true },
      timeout,
    ],
  },
  hover: {
    label: "Hover",
    description: "Moves the mouse over an element (menus, tooltips).",
    fields: [selector, timeout],
  },
  scroll: {
    label: "Scroll",
    description: "Scrolls an element into view, or the page to its end.",
    fields: [
      { ...optionalSelector, description: "The element to bring into view; the page's end when empty." },
      timeout,
    ],
  },
  waitFor: {
    label: "Wait for an element",
    description: "Waits until an element is visible (or hidden, attached, detached).",
    fields: [
      selector,
      { name: "state", label: "State", kind: "select", options: ["visible", "hidden", "attached", "detached"] },
      timeout,
    ],
  },
  waitForText: {
    label: "Wait for a text",
    description: "Waits until a text appears in the page.",
    fields: [{ name: "text", label: "Text", kind: "text", required: true, template: true }, timeout],
  },
  wait: {
    label: "Wait",
    description: "Waits a fixed time; prefer waiting for an element or a text.",
    fields: [{ name: "ms", label: "Milliseconds", kind: "number", required: true, description: "At most 300000." }],
  },
  reload: { label: "Reload", description: "Reloads the page.", fields: [timeout] },
  snapshot: {
    label: "Snapshot",
    description: "Takes a PNG of an element, the viewport or the whole page, for the report.",
    fields: [
      {
        ...as,
        label: "Snapshot name",
        placeholder: "dashboard",
        description: "The name report snapshot blocks refer to.",
      },
      { ...optionalSelector, description: "An element to shoot; the viewport when empty." },
      {
        name: "fullPage",
        label: "Whole page",
        kind: "switch",
        description: "The whole scrollable page (not with a selector).",
      },
      timeout,
    ],
  },
  extract: {
    label: "Extract a value",
    description: "Reads an element's text (or an attribute) into a variable.",
    fields: [
      as,
      selector,
      {
        name: "attribute",
        label: "Attribute (instead of the text)",
        kind: "text",
        code: true,
        placeholder: "data-value",
      },
      {
        name: "pattern",
        label: "Pattern (regular expression)",
        kind: "text",
        code: true,
        placeholder: "(\\d+) open",
        description: "Its first group (or the whole match) is kept.",
      },
      {
        name: "parse",
        label: "Read as",
        kind: "select",
        options: ["text", "number"],
        description: 'number reads "1,470,592" as 1470592 and "12.5%" as 12.5.',
      },
      timeout,
    ],
  },
  calculate: {
    label: "Calculate",
    description: "Computes a variable from the variables stored before it.",
    fields: [
      as,
      {
        name: "expression",
        label: "Expression",
        kind: "text",
        required: true,
        code: true,
        expression: true,
        placeholder: "round(errors / total * 100, 1)",
        description: EXPRESSION_HELP,
      },
    ],
  },
  if: {
    label: "If",
    description: "Runs the Then steps when the condition holds, else the Else steps.",
    fields: [
      {
        name: "condition",
        label: "Condition",
        kind: "text",
        required: true,
        code: true,
        expression: true,
        placeholder: "errors > 100",
        description: EXPRESSION_HELP,
      },
    ],
  },
  break: {
    label: "Stop the run",
    description: "Ends the run on purpose: it is skipped and nothing is delivered.",
    fields: [{ name: "reason", label: "Reason", kind: "text", description: "Kept in the run's record." }],
  },
  ai: {
    label: "Ask an AI",
    description: "Asks an AI provider of the space and stores the answer in a variable.",
    fields: [
      as,
      { name: "providerId", label: "AI provider", kind: "select", required: true },
      { name: "prompt", label: "Prompt", kind: "textarea", required: true, template: true },
      { name: "output", label: "Answer as", kind: "select", options: ["text", "number", "html"] },
      {
        name: "context",
        label: "Send only these names",
        kind: "multiselect",
        description: "The variables and snapshots sent with the prompt; all of them when empty.",
      },
      { name: "images", label: "Send the snapshots as images", kind: "switch" },
    ],
  },
};

/** A new step of a type, with what it needs to be valid once filled in. */
export function newStep(type: string): Record<string, unknown> {
  if (type === "if") return { type, condition: "", then: [] };
  return { type };
}
