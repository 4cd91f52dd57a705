import type { Loose } from "./object-fields";

/** The names a capture makes, in step order: variables (`as` of extract, calculate, ai…) and snapshots. */
export type CapturedNames = { variables: string[]; snapshots: string[] };

/**
 * Walks the steps (into `if` branches) and collects the names they store. With `before`, only the
 * steps that come before that place (a path such as `capture.steps.2.then.0`), which is what a
 * step can use.
 */
export function capturedNames(steps: Loose[] | undefined, before?: string): CapturedNames {
  const names: CapturedNames = { variables: [], snapshots: [] };
  let reached = false;
  const walk = (list: Loose[] | undefined, path: string) => {
    for (const [index, step] of (list ?? []).entries()) {
      const at = `${path}.${index}`;
      if (before !== undefined && (at === before || before.startsWith(`${at}.`))) {
        // Inside an if's branch: the steps of that branch before the place count too.
        if (step.type === "if" && at !== before) {
          const branch = before.startsWith(`${at}.then.`) ? "then" : "else";
          walk(step[branch], `${at}.${branch}`);
        }
        reached = true;
        return;
      }
      if (reached) return;
      const name = typeof step.as === "string" ? step.as.trim() : "";
      if (name) {
        const list = step.type === "snapshot" ? names.snapshots : names.variables;
        if (!list.includes(name)) list.push(name);
      }
      if (step.type === "if") {
        walk(step.then, `${at}.then`);
        walk(step.else, `${at}.else`);
      }
    }
  };
  walk(steps, "capture.steps");
  return names;
}
