import { Box, Button, Group, Select, Stack, Text, VisuallyHidden } from "@mantine/core";
import { type DragEvent, useLayoutEffect, useMemo, useRef, useState } from "react";
import type { Loose } from "./object-fields";
import { StepCard } from "./step-card";
import { type DropPlace, type StepEditing, StepEditingContext, useStepEditing } from "./step-editing";
import { canMove, describePlace, insertStep, isNoMove, movedPath, moveStep, type StepPath } from "./step-tree";
import { newStep, STEP_TYPES } from "./step-types";

const TYPE_OPTIONS = Object.entries(STEP_TYPES).map(([value, t]) => ({ value, label: `${t.label} (${value})` }));

const samePlace = (a: DropPlace | null, b: DropPlace | null) =>
  a === b || (!!a && !!b && a.index === b.index && a.list.join(".") === b.list.join("."));

/** "the then branch of Step 3", "the steps": a list in words. */
export const describeList = (list: StepPath) =>
  list.length === 0 ? "the steps" : `the ${list[list.length - 1]} branch of ${describePlace(list.slice(0, -1))}`;

/**
 * The steps of the capture as a tree of lists: holds the drag in progress, applies every change
 * to the whole tree, and brings the focus back to the moved step after a keyboard move.
 */
export function StepTree(props: {
  steps: Loose[];
  onChange: (steps: Loose[]) => void;
  errors: Record<string, string>;
  disabled: boolean;
  providers: { value: string; label: string }[];
}) {
  const { steps, onChange } = props;
  const [dragging, setDragging] = useState<StepPath | null>(null);
  const [dropPlace, setDropPlace] = useState<DropPlace | null>(null);
  const [announcement, setAnnouncement] = useState("");
  // The drag as the event handlers see it, at once: dragover and drop come before React re-renders.
  const drag = useRef<{ from: StepPath | null; place: DropPlace | null }>({ from: null, place: null });
  const pendingFocus = useRef<{ path: StepPath; control: string } | null>(null);
  const container = useRef<HTMLDivElement>(null);

  useLayoutEffect(() => {
    const pending = pendingFocus.current;
    if (!pending || !container.current) return;
    pendingFocus.current = null;
    const find = (control: string) =>
      container.current?.querySelector<HTMLButtonElement>(`[data-step-control="${pending.path.join(".")}:${control}"]`);
    const button = find(pending.control);
    (button && !button.disabled ? button : find("drag"))?.focus();
  });

  const editing = useMemo<StepEditing>(() => {
    const move = (from: StepPath, toList: StepPath, toIndex: number) => {
      const to = movedPath(from, toList, toIndex);
      onChange(moveStep(steps, from, toList, toIndex));
      setAnnouncement(`Moved to ${describePlace(to)}.`);
      return to;
    };
    const endDrag = () => {
      drag.current = { from: null, place: null };
      setDragging(null);
      setDropPlace(null);
    };
    return {
      steps,
      errors: props.errors,
      disabled: props.disabled,
      providers: props.providers,
      change: onChange,
      moveWithKeys: (from, toList, toIndex, control) => {
        pendingFocus.current = { path: move(from, toList, toIndex), control };
      },
      dragging,
      dropPlace,
      startDrag: (from) => {
        drag.current = { from, place: null };
        // Chrome ends a drag at once when the page changes inside dragstart: show it a moment later.
        setTimeout(() => drag.current.from === from && setDragging(from), 0);
        setAnnouncement("");
      },
      endDrag,
      dragOver: (place) => {
        const from = drag.current.from;
        const allowed = !!place && !!from && canMove(from, place.list) && !isNoMove(from, place.list, place.index);
        const next = allowed ? place : null;
        drag.current.place = next;
        setDropPlace((old) => (samePlace(old, next) ? old : next));
        return allowed;
      },
      drop: () => {
        const { from, place } = drag.current;
        if (from && place) move(from, place.list, place.index);
        endDrag();
      },
    };
  }, [steps, onChange, props.errors, props.disabled, props.providers, dragging, dropPlace]);

  return (
    <StepEditingContext.Provider value={editing}>
      {/* A dragover no list or card took is over no place: the marker goes. */}
      <Box ref={container} onDragOver={() => editing.dragOver(null)}>
        <StepList steps={steps} list={[]} />
      </Box>
      <VisuallyHidden role="status">{announcement}</VisuallyHidden>
    </StepEditingContext.Provider>
  );
}

/** One list of steps (the top one or a branch of an if), its drop zone and its Add control. */
export function StepList({ steps, list }: { steps: Loose[]; list: StepPath }) {
  const editing = useStepEditing();
  const [adding, setAdding] = useState<string | null>("navigate");
  const marker = editing.dropPlace && editing.dropPlace.list.join(".") === list.join(".") ? editing.dropPlace : null;
  return (
    <Stack gap="sm">
      {steps.map((step, index) => (
        <Box
          // Server step ids are stable; new steps have none yet and are keyed by place.
          key={step.id ?? `new-${index}`}
          pos="relative"
        >
          {marker?.index === index && <InsertionMarker />}
          <StepCard step={step} path={[...list, index]} count={steps.length} />
        </Box>
      ))}
      {!editing.disabled && (
        <>
          <DropZone list={list} count={steps.length} marked={marker?.index === steps.length} />
          <Group gap="xs" align="flex-end">
            <Select
              label={list.length ? "Add a step here" : "Add a step"}
              data={TYPE_OPTIONS}
              value={adding}
              onChange={setAdding}
              allowDeselect={false}
              searchable
              w={260}
            />
            <Button
              variant="light"
              disabled={!adding}
              onClick={() => adding && editing.change(insertStep(editing.steps, list, steps.length, newStep(adding)))}
            >
              Add
            </Button>
          </Group>
        </>
      )}
    </Stack>
  );
}

/** The line between two steps where the dragged one would land; it takes no room, so nothing jumps. */
function InsertionMarker() {
  return (
    <Box
      data-insertion-marker
      aria-hidden
      pos="absolute"
      top={-8}
      left={0}
      right={0}
      h={4}
      bg="blue.6"
      style={{ borderRadius: 2, zIndex: 1, pointerEvents: "none" }}
    />
  );
}

/** The place after the last step of a list: the way into an empty branch, or to the end of one. */
function DropZone({ list, count, marked }: { list: StepPath; count: number; marked: boolean }) {
  const editing = useStepEditing();
  const over = (event: DragEvent) => {
    event.stopPropagation();
    if (editing.dragOver({ list, index: count })) {
      event.preventDefault();
      event.dataTransfer.dropEffect = "move";
    }
  };
  return (
    <Box
      data-drop-zone={list.join(".")}
      pos="relative"
      px="sm"
      py={6}
      onDragOver={over}
      onDragEnter={over}
      onDrop={(event) => {
        event.preventDefault();
        event.stopPropagation();
        editing.drop();
      }}
      style={{
        border: `1px dashed var(--mantine-color-${marked ? "blue-6" : "gray-4"})`,
        borderRadius: "var(--mantine-radius-sm)",
        background: marked ? "var(--mantine-color-blue-light)" : undefined,
        opacity: editing.dragging ? 1 : 0.7,
      }}
    >
      <Text size="xs" c={marked ? "blue" : "dimmed"}>
        Drop here to move the step to the end of {describeList(list)}
      </Text>
    </Box>
  );
}
