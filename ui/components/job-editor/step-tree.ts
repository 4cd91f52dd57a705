import type { Loose } from "./object-fields";

/**
 * The capture steps as a tree: an `if` step holds the lists `then` and `else`. A place in it is a
 * path from the top list: `[2, "then", 0]` is the first step of the then-branch of the third
 * step; a list is named by the path of its owner plus the branch (`[2, "then"]`, `[]` for the top
 * list). Every function here is pure: it returns new arrays and copies the steps it changes.
 */

export type Branch = "then" | "else";
export type StepPath = (number | Branch)[];

/** The list a step is in, and its index there. */
export const listOf = (path: StepPath): StepPath => path.slice(0, -1);
export const indexOf = (path: StepPath): number => path[path.length - 1] as number;

/** The field path of the server's issues: `capture.steps.2.then.0`. */
export const fieldPath = (path: StepPath): string => ["capture.steps", ...path].join(".");

const startsWith = (path: StepPath, prefix: StepPath) => prefix.every((part, i) => path[i] === part);
const samePath = (a: StepPath, b: StepPath) => a.length === b.length && startsWith(a, b);

export function stepAt(steps: Loose[], path: StepPath): Loose | undefined {
  let list: Loose[] | undefined = steps;
  let step: Loose | undefined;
  for (let i = 0; i < path.length; i += 2) {
    step = list?.[path[i] as number];
    if (i + 1 < path.length) list = step?.[path[i + 1] as Branch];
  }
  return step;
}

export function listAt(steps: Loose[], listPath: StepPath): Loose[] {
  if (listPath.length === 0) return steps;
  return stepAt(steps, listPath.slice(0, -1))?.[listPath[listPath.length - 1] as Branch] ?? [];
}

/** Replaces one list of the tree; an `else` left empty is dropped, as the server leaves it out. */
export function updateList(steps: Loose[], listPath: StepPath, update: (list: Loose[]) => Loose[]): Loose[] {
  if (listPath.length === 0) return update(steps);
  const [index, branch, ...rest] = listPath as [number, Branch, ...StepPath];
  return steps.map((step, i) => {
    if (i !== index) return step;
    const list = updateList(step[branch] ?? [], rest, update);
    const next: Loose = { ...step, [branch]: list };
    if (branch === "else" && list.length === 0) delete next.else;
    return next;
  });
}

export function replaceStep(steps: Loose[], path: StepPath, step: Loose): Loose[] {
  const at = indexOf(path);
  return updateList(steps, listOf(path), (list) => list.map((old, i) => (i === at ? step : old)));
}

export function removeStep(steps: Loose[], path: StepPath): Loose[] {
  const at = indexOf(path);
  return updateList(steps, listOf(path), (list) => list.filter((_, i) => i !== at));
}

export function insertStep(steps: Loose[], listPath: StepPath, index: number, step: Loose): Loose[] {
  return updateList(steps, listPath, (list) => [...list.slice(0, index), step, ...list.slice(index)]);
}

/** A step may go anywhere but inside itself (its own then/else lists and theirs). */
export const canMove = (from: StepPath, toList: StepPath): boolean => !startsWith(toList, from);

/** Whether moving there changes nothing: the step would land where it is. */
export function isNoMove(from: StepPath, toList: StepPath, toIndex: number): boolean {
  const at = indexOf(from);
  return samePath(listOf(from), toList) && (toIndex === at || toIndex === at + 1);
}

/**
 * Where a step moved to `toIndex` of `toList` (an index among the steps as they are now) ends
 * up once it is taken out of its place: the indexes after it in its own list shift by one, and so
 * does a path that goes through one of those later steps.
 */
export function movedPath(from: StepPath, toList: StepPath, toIndex: number): StepPath {
  const fromList = listOf(from);
  const at = indexOf(from);
  if (samePath(fromList, toList)) return [...toList, toIndex > at ? toIndex - 1 : toIndex];
  if (startsWith(toList, fromList)) {
    const through = toList[fromList.length] as number;
    if (through > at) {
      const list = [...toList];
      list[fromList.length] = through - 1;
      return [...list, toIndex];
    }
  }
  return [...toList, toIndex];
}

/**
 * Moves the step at `from` to `toIndex` of the list `toList`, `toIndex` counted among the steps
 * as they are before the move (dropping on the fourth step puts the dragged one before it). A
 * move into the step's own subtree is refused: the steps come back unchanged.
 */
export function moveStep(steps: Loose[], from: StepPath, toList: StepPath, toIndex: number): Loose[] {
  const step = stepAt(steps, from);
  if (!step || !canMove(from, toList)) return steps;
  const to = movedPath(from, toList, toIndex);
  return insertStep(removeStep(steps, from), listOf(to), indexOf(to), step);
}

/** "Step 1 in the then branch of Step 3": a place in words, for announcements. */
export function describePlace(path: StepPath): string {
  const own = `Step ${indexOf(path) + 1}`;
  if (path.length === 1) return own;
  const branch = path[path.length - 2] as Branch;
  return `${own} in the ${branch} branch of ${describePlace(path.slice(0, -2))}`;
}
