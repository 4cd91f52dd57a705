import crypto from "node:crypto";
import { invalid } from "../errors.js";
import { parseExpression } from "../expressions/expression.js";
import type { CaptureStep } from "../schemas/capture.js";
import { type Issue, issuesFromZod } from "../schemas/errors.js";
import { type JobBody, JobBodySchema } from "../schemas/job.js";
import { checkStepTree } from "./job-structure.js";

export type ReferenceCheck = {
  /** The ids among `ids` that are delivery interfaces of the job's space. */
  interfaces(ids: string[]): Promise<Set<string>>;
  /** The ids among `ids` that are AI providers of the job's space. */
  providers(ids: string[]): Promise<Set<string>>;
};

/**
 * Validates a job body completely and answers every failing field at once: the schema (field
 * rules, cron, time zone, URLs, Liquid, expressions, colours), the step tree bounds, names that
 * steps and blocks refer to, and the interfaces and AI providers of the space. Gives every step
 * an id. Throws a 400 `invalid` error listing the issues.
 */
export async function validateJobBody(
  raw: unknown,
  options: { maxSteps: number; references?: ReferenceCheck; pathPrefix?: (string | number)[] },
): Promise<JobBody> {
  const prefix = options.pathPrefix ?? [];
  const tree = checkStepTree(raw, options.maxSteps);
  const parsed = JobBodySchema.safeParse(tree.pruned);
  const issues: Issue[] = [...tree.issues, ...(parsed.success ? [] : issuesFromZod(parsed.error))];
  if (parsed.success) issues.push(...checkNames(parsed.data));
  if (options.references) issues.push(...(await checkReferences(raw, options.references)));
  if (issues.length > 0) {
    throw invalid(issues.map((issue) => ({ ...issue, path: [...prefix, ...issue.path] })));
  }
  const body = parsed.data as JobBody;
  assignStepIds(body.capture.steps);
  return body;
}

function assignStepIds(steps: CaptureStep[]) {
  for (const step of steps) {
    step.id ??= crypto.randomUUID();
    if (step.type === "if") {
      assignStepIds(step.then);
      if (step.else) assignStepIds(step.else);
    }
  }
}

type Located = { step: CaptureStep; path: (string | number)[] };

export function* walkSteps(steps: CaptureStep[], path: (string | number)[]): Generator<Located> {
  for (const [index, step] of steps.entries()) {
    yield { step, path: [...path, index] };
    if (step.type === "if") {
      yield* walkSteps(step.then, [...path, index, "then"]);
      if (step.else) yield* walkSteps(step.else, [...path, index, "else"]);
    }
  }
}

/** Names used by expressions, report blocks and AI context must be made by some step. */
function checkNames(body: JobBody): Issue[] {
  const issues: Issue[] = [];
  const variables = new Set<string>();
  const snapshots = new Set<string>();
  const ids = new Set<string>();
  const located = [...walkSteps(body.capture.steps, ["capture", "steps"])];
  for (const { step, path } of located) {
    if (step.id) {
      if (ids.has(step.id)) issues.push({ path: [...path, "id"], code: "custom", message: "step ids must be unique" });
      ids.add(step.id);
    }
    if (step.type === "snapshot") snapshots.add(step.as);
    else if ("as" in step) variables.add(step.as);
  }
  const known = (name: string) => variables.has(name);
  for (const { step, path } of located) {
    const expression =
      step.type === "calculate"
        ? { source: step.expression, field: "expression" }
        : step.type === "if"
          ? { source: step.condition, field: "condition" }
          : null;
    if (expression) {
      for (const name of parseExpression(expression.source).identifiers) {
        if (!known(name)) {
          issues.push({
            path: [...path, expression.field],
            code: "custom",
            message: `unknown variable ${name}: no extract, calculate or ai step stores it`,
          });
        }
      }
    }
    if (step.type === "ai" && Array.isArray(step.context)) {
      for (const [i, name] of step.context.entries()) {
        if (!variables.has(name) && !snapshots.has(name)) {
          issues.push({
            path: [...path, "context", i],
            code: "custom",
            message: `unknown variable or snapshot ${name}`,
          });
        }
      }
    }
  }
  for (const [p, page] of (body.report?.pages ?? []).entries()) {
    for (const [r, row] of page.rows.entries()) {
      for (const [c, cell] of row.cells.entries()) {
        for (const [b, block] of cell.blocks.entries()) {
          const path = ["report", "pages", p, "rows", r, "cells", c, "blocks", b];
          if (block.type === "snapshot" && !snapshots.has(block.ref)) {
            issues.push({ path: [...path, "ref"], code: "custom", message: `no snapshot step is named ${block.ref}` });
          }
          if (block.type === "variable" && !known(block.name)) {
            issues.push({
              path: [...path, "name"],
              code: "custom",
              message: `no step stores a variable ${block.name}`,
            });
          }
        }
      }
    }
  }
  return issues;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Reads ids from the raw body, so that they are checked even when other fields fail. */
async function checkReferences(raw: unknown, references: ReferenceCheck): Promise<Issue[]> {
  const issues: Issue[] = [];
  const body = raw as { deliveries?: unknown; capture?: { steps?: unknown } } | null;
  const deliveries: { id: string; path: (string | number)[] }[] = [];
  if (Array.isArray(body?.deliveries)) {
    for (const [i, d] of body.deliveries.entries()) {
      const id = (d as { interfaceId?: unknown } | null)?.interfaceId;
      if (typeof id === "string" && UUID.test(id)) deliveries.push({ id, path: ["deliveries", i, "interfaceId"] });
    }
  }
  const providers: { id: string; path: (string | number)[] }[] = [];
  const visit = (steps: unknown, path: (string | number)[], depth: number) => {
    if (!Array.isArray(steps) || depth > 10) return;
    for (const [i, s] of steps.entries()) {
      const step = s as { type?: unknown; providerId?: unknown; then?: unknown; else?: unknown } | null;
      if (step?.type === "ai" && typeof step.providerId === "string" && UUID.test(step.providerId)) {
        providers.push({ id: step.providerId, path: [...path, i, "providerId"] });
      }
      if (step?.type === "if") {
        visit(step.then, [...path, i, "then"], depth + 1);
        visit(step.else, [...path, i, "else"], depth + 1);
      }
    }
  };
  visit(body?.capture?.steps, ["capture", "steps"], 0);
  const [foundInterfaces, foundProviders] = await Promise.all([
    references.interfaces([...new Set(deliveries.map((d) => d.id))]),
    references.providers([...new Set(providers.map((p) => p.id))]),
  ]);
  for (const d of deliveries) {
    if (!foundInterfaces.has(d.id)) {
      issues.push({ path: d.path, code: "custom", message: "no delivery interface with this id in this space" });
    }
  }
  for (const p of providers) {
    if (!foundProviders.has(p.id)) {
      issues.push({ path: p.path, code: "custom", message: "no AI provider with this id in this space" });
    }
  }
  return issues;
}
