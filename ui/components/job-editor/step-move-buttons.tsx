import { ActionIcon, Group } from "@mantine/core";
import type { DragEvent, KeyboardEvent } from "react";
import { controlId, useStepEditing } from "./step-editing";
import { type Branch, indexOf, listAt, listOf, removeStep, type StepPath, stepAt } from "./step-tree";

type Move = { control: string; label: string; title: string; glyph: string; toList: StepPath; toIndex: number };

/**
 * The controls of a step card: a drag handle, and buttons for every move a drag can make, so the
 * keyboard reaches every place too: up, down, into the if next to the step, out of its if, to
 * the other branch. After a move the focus stays on the same control of the moved step.
 */
export function StepMoveButtons({ path, count, name }: { path: StepPath; count: number; name: string }) {
  const editing = useStepEditing();
  const list = listOf(path);
  const index = indexOf(path);
  const siblings = listAt(editing.steps, list);
  const move = (m: Pick<Move, "control" | "toList" | "toIndex">) =>
    editing.moveWithKeys(path, m.toList, m.toIndex, m.control);

  const moves: Move[] = [];
  const above = siblings[index - 1];
  if (above?.type === "if") {
    moves.push({
      control: "into-above",
      label: `Move ${name} into the if above`,
      title: "Moves it to the end of the Then steps of the if above",
      glyph: "⤴",
      toList: [...list, index - 1, "then"],
      toIndex: (above.then ?? []).length,
    });
  }
  if (siblings[index + 1]?.type === "if") {
    moves.push({
      control: "into-below",
      label: `Move ${name} into the if below`,
      title: "Moves it to the start of the Then steps of the if below",
      glyph: "⤵",
      toList: [...list, index + 1, "then"],
      toIndex: 0,
    });
  }
  if (path.length > 1) {
    const owner = path.slice(0, -2);
    const branch = path[path.length - 2] as Branch;
    moves.push({
      control: "out",
      label: `Move ${name} out of the if`,
      title: "Moves it after the if",
      glyph: "⇤",
      toList: listOf(owner),
      toIndex: indexOf(owner) + 1,
    });
    moves.push(
      branch === "then"
        ? {
            control: "other-branch",
            label: `Move ${name} to the else branch`,
            title: "Moves it to the start of the Else steps",
            glyph: "⇅",
            toList: [...owner, "else"],
            toIndex: 0,
          }
        : {
            control: "other-branch",
            label: `Move ${name} to the then branch`,
            title: "Moves it to the end of the Then steps",
            glyph: "⇅",
            toList: [...owner, "then"],
            toIndex: (stepAt(editing.steps, owner)?.then ?? []).length,
          },
    );
  }

  const dragStart = (event: DragEvent<HTMLDivElement>) => {
    event.dataTransfer.effectAllowed = "move";
    event.dataTransfer.setData("text/plain", name);
    const card = event.currentTarget.closest("section");
    if (card) event.dataTransfer.setDragImage(card, 16, 16);
    editing.startDrag(path);
  };
  const keyDown = (event: KeyboardEvent) => {
    if (!event.altKey || (event.key !== "ArrowUp" && event.key !== "ArrowDown")) return;
    event.preventDefault();
    const up = event.key === "ArrowUp";
    if (up ? index === 0 : index === count - 1) return;
    move({ control: "drag", toList: list, toIndex: up ? index - 1 : index + 2 });
  };

  return (
    <Group gap={2} wrap="wrap" justify="flex-end">
      <ActionIcon
        component="div"
        role="button"
        tabIndex={0}
        draggable
        variant="subtle"
        color="gray"
        aria-label={`Drag ${name}`}
        title="Drag to move the step; with the keyboard, Alt+↑ and Alt+↓"
        data-step-control={controlId(path, "drag")}
        onDragStart={dragStart}
        onDragEnd={() => editing.endDrag()}
        onKeyDown={keyDown}
        style={{ cursor: "grab" }}
      >
        <DragDots />
      </ActionIcon>
      <ActionIcon
        variant="subtle"
        aria-label={`Move ${name} up`}
        data-step-control={controlId(path, "up")}
        disabled={index === 0}
        onClick={() => move({ control: "up", toList: list, toIndex: index - 1 })}
      >
        ↑
      </ActionIcon>
      <ActionIcon
        variant="subtle"
        aria-label={`Move ${name} down`}
        data-step-control={controlId(path, "down")}
        disabled={index === count - 1}
        onClick={() => move({ control: "down", toList: list, toIndex: index + 2 })}
      >
        ↓
      </ActionIcon>
      {moves.map((m) => (
        <ActionIcon
          key={m.control}
          variant="subtle"
          aria-label={m.label}
          title={m.title}
          data-step-control={controlId(path, m.control)}
          onClick={() => move(m)}
        >
          {m.glyph}
        </ActionIcon>
      ))}
      <ActionIcon
        variant="subtle"
        color="red"
        aria-label={`Remove ${name}`}
        onClick={() => editing.change(removeStep(editing.steps, path))}
      >
        ✕
      </ActionIcon>
    </Group>
  );
}

/** Six dots, the usual mark of a handle to drag. */
function DragDots() {
  return (
    <svg width="12" height="16" viewBox="0 0 12 16" aria-hidden="true" fill="currentColor">
      {[3, 8, 13].flatMap((y) => [
        <circle key={`l${y}`} cx="3" cy={y} r="1.5" />,
        <circle key={`r${y}`} cx="9" cy={y} r="1.5" />,
      ])}
    </svg>
  );
}
