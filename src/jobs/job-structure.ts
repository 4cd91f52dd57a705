import type { Issue } from "../schemas/errors.js";

/**
 * Checks on the shape of the step tree that a per-field schema cannot see: the total number of
 * steps (nested ones included) and the nesting depth of `if`. It runs on the raw body before the
 * schema, and cuts branches nested too deep so that a hostile body cannot exhaust the stack.
 */

export const MAX_IF_DEPTH = 8;

type RawStep = { type?: unknown; then?: unknown; else?: unknown };

export function checkStepTree(body: unknown, maxSteps: number): { issues: Issue[]; pruned: unknown } {
  const issues: Issue[] = [];
  const capture = isObject(body) ? body.capture : undefined;
  if (!isObject(capture) || !Array.isArray(capture.steps)) return { issues, pruned: body };
  let count = 0;
  const walk = (steps: unknown[], path: (string | number)[], depth: number): unknown[] =>
    steps.map((raw, index) => {
      count++;
      if (!isObject(raw) || raw.type !== "if") return raw;
      const step = raw as RawStep & Record<string, unknown>;
      const copy: Record<string, unknown> = { ...step };
      for (const branch of ["then", "else"] as const) {
        const children = step[branch];
        if (!Array.isArray(children)) continue;
        if (depth + 1 > MAX_IF_DEPTH && children.some((c) => isObject(c) && c.type === "if")) {
          issues.push({
            path: [...path, index, branch],
            code: "too_big",
            message: `if steps nest at most ${MAX_IF_DEPTH} deep`,
          });
          copy[branch] = children.filter((c) => !(isObject(c) && c.type === "if"));
          count += children.length;
          continue;
        }
        copy[branch] = walk(children, [...path, index, branch], depth + 1);
      }
      return copy;
    });
  const steps = walk(capture.steps, ["capture", "steps"], 1);
  if (count > maxSteps) {
    issues.push({
      path: ["capture", "steps"],
      code: "too_big",
      message: `a job has at most ${maxSteps} steps, nested ones included (this one has ${count})`,
    });
  }
  return { issues, pruned: { ...(body as object), capture: { ...capture, steps } } };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
