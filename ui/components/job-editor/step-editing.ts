import { createContext, useContext } from "react";
import type { Loose } from "./object-fields";
import type { StepPath } from "./step-tree";

/** Where a dragged step would land: before the step `index` of the list, or at its end. */
export type DropPlace = { list: StepPath; index: number };

/**
 * What every list and card of the steps editor shares: the whole tree (a card needs its
 * neighbours and the names stored before it), the changes as whole-tree updates, and the drag
 * in progress. Given by StepTree.
 */
export type StepEditing = {
  steps: Loose[];
  errors: Record<string, string>;
  disabled: boolean;
  providers: { value: string; label: string }[];
  change: (steps: Loose[]) => void;
  /**
   * A move made with a button or a key: after it the focus goes to the `control` of the moved
   * step (data-step-control="<path>:<control>"), or its drag handle when that is gone or disabled.
   */
  moveWithKeys: (from: StepPath, toList: StepPath, toIndex: number, control: string) => void;
  /** The path of the step being dragged, null when none is (for the looks; the handlers know at once). */
  dragging: StepPath | null;
  /** The insertion marker's place while dragging. */
  dropPlace: DropPlace | null;
  startDrag: (from: StepPath) => void;
  endDrag: () => void;
  /**
   * Marks a place as the drop target; false (and no marker) when no step is dragged or the dragged
   * one cannot go there, in which case the dragover must not be prevented (no drop).
   */
  dragOver: (place: DropPlace | null) => boolean;
  drop: () => void;
};

export const StepEditingContext = createContext<StepEditing | null>(null);

export function useStepEditing(): StepEditing {
  const editing = useContext(StepEditingContext);
  if (!editing) throw new Error("useStepEditing outside StepTree");
  return editing;
}

export const pathKey = (path: StepPath) => path.join(".");

/** The attribute value that names a control of a step card, for focus after keyboard moves. */
export const controlId = (path: StepPath, control: string) => `${pathKey(path)}:${control}`;
