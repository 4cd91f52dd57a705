import type { ObjectField } from "./object-fields";

/** The capture step types (src/schemas/capture.ts) and the fields of each, for the editor. */

const selector: ObjectField = {
  name: "selector",
  label: "Selector",
  kind: "text",
  required: true,
  code: true,
  placeholder: "#errors .value, text=Sign in, role=button[name=Save]",
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
};

export const STEP_TYPES: Record<string, { label: string; fields: ObjectField[] }> = {
  navigate: {
    label: "Open a URL",
    fields: [
      { name: "url", label: "URL", kind: "text", required: true, placeholder: "https://dash.example.com/errors" },
      { name: "waitUntil", label: "Done when", kind: "select", options: ["load", "domcontentloaded", "networkidle"] },
      timeout,
    ],
  },
  click: {
    label: "Click",
    fields: [
      selector,
      { name: "button", label: "Button", kind: "select", options: ["left", "right", "middle"] },
      { name: "clickCount", label: "Clicks", kind: "number" },
      timeout,
    ],
  },
  type: {
    label: "Type text",
    fields: [
      selector,
      { name: "text", label: "Text", kind: "text", required: true },
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
    fields: [
      { name: "key", label: "Key", kind: "text", required: true, placeholder: "Enter" },
      optionalSelector,
      timeout,
    ],
  },
  select: {
    label: "Choose an option",
    fields: [selector, { name: "value", label: "Value or label", kind: "text", required: true }, timeout],
  },
  hover: { label: "Hover", fields: [selector, timeout] },
  scroll: { label: "Scroll", fields: [optionalSelector, timeout] },
  waitFor: {
    label: "Wait for an element",
    fields: [
      selector,
      { name: "state", label: "State", kind: "select", options: ["visible", "hidden", "attached", "detached"] },
      timeout,
    ],
  },
  waitForText: {
    label: "Wait for a text",
    fields: [{ name: "text", label: "Text", kind: "text", required: true }, timeout],
  },
  wait: { label: "Wait", fields: [{ name: "ms", label: "Milliseconds", kind: "number", required: true }] },
  reload: { label: "Reload", fields: [timeout] },
  snapshot: {
    label: "Snapshot",
    fields: [
      { ...as, label: "Snapshot name", placeholder: "dashboard" },
      { ...optionalSelector, description: "An element to shoot; the viewport when empty." },
      { name: "fullPage", label: "Whole page", kind: "switch" },
      timeout,
    ],
  },
  extract: {
    label: "Extract a value",
    fields: [
      as,
      selector,
      { name: "attribute", label: "Attribute (instead of the text)", kind: "text", code: true },
      { name: "pattern", label: "Pattern (regular expression)", kind: "text", code: true },
      { name: "parse", label: "Read as", kind: "select", options: ["text", "number"] },
      timeout,
    ],
  },
  calculate: {
    label: "Calculate",
    fields: [
      as,
      {
        name: "expression",
        label: "Expression",
        kind: "text",
        required: true,
        code: true,
        placeholder: "round(errors / total * 100, 1)",
      },
    ],
  },
  if: {
    label: "If",
    fields: [
      {
        name: "condition",
        label: "Condition",
        kind: "text",
        required: true,
        code: true,
        placeholder: "errors > 100",
      },
    ],
  },
  break: { label: "Stop the run", fields: [{ name: "reason", label: "Reason", kind: "text" }] },
  ai: {
    label: "Ask an AI",
    fields: [
      as,
      { name: "providerId", label: "AI provider", kind: "select", required: true },
      { name: "prompt", label: "Prompt", kind: "textarea", required: true },
      { name: "output", label: "Answer as", kind: "select", options: ["text", "number", "html"] },
      { name: "images", label: "Send the snapshots as images", kind: "switch" },
    ],
  },
};

/** A new step of a type, with what it needs to be valid once filled in. */
export function newStep(type: string): Record<string, unknown> {
  if (type === "if") return { type, condition: "", then: [] };
  return { type };
}
