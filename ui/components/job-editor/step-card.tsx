import { Badge, Card, Group, SimpleGrid, Stack, Text, TextInput } from "@mantine/core";
import { type DragEvent, useMemo, useRef } from "react";
import { capturedNames } from "./captured-names";
import { type Loose, ObjectFields } from "./object-fields";
import { pathKey, useStepEditing } from "./step-editing";
import { StepList } from "./step-list";
import { StepMoveButtons } from "./step-move-buttons";
import { fieldPath, indexOf, listOf, replaceStep, type StepPath } from "./step-tree";
import { STEP_TYPES } from "./step-types";

/** One step: its header (number, type, move and remove controls), its form, and an if's branches. */
export function StepCard({ step, path, count }: { step: Loose; path: StepPath; count: number }) {
  const editing = useStepEditing();
  const { errors, disabled } = editing;
  const own = useRef<HTMLDivElement>(null);
  const at = fieldPath(path);
  const index = indexOf(path);
  const spec = STEP_TYPES[step.type];
  const names = useMemo(() => capturedNames(editing.steps, at), [editing.steps, at]);
  const fields = (spec?.fields ?? []).flatMap((f) => {
    if (step.type !== "ai") return [f];
    if (f.name === "providerId") return [{ ...f, options: editing.providers }];
    if (f.name === "context") {
      // The names an ai step can be given are those stored before it; with none, "all" is all there is.
      const chosen: string[] = Array.isArray(step.context) ? step.context : [];
      const options = [...new Set([...names.variables, ...names.snapshots, ...chosen])];
      return options.length ? [{ ...f, options }] : [];
    }
    return [f];
  });
  const hasError = Object.keys(errors).some((k) => k === at || k.startsWith(`${at}.`));
  const name = `Step ${index + 1}`;
  const change = (next: Loose) => editing.change(replaceStep(editing.steps, path, next));
  const dragged = editing.dragging !== null && pathKey(editing.dragging) === pathKey(path);

  // Over the upper half of the card's own part (not its branches) the step lands before it, else after.
  const dragOver = (event: DragEvent) => {
    const rect = own.current?.getBoundingClientRect();
    if (!rect) return;
    const after = event.clientY > rect.top + rect.height / 2;
    if (editing.dragOver({ list: listOf(path), index: index + (after ? 1 : 0) })) {
      event.preventDefault();
      event.stopPropagation();
      event.dataTransfer.dropEffect = "move";
    }
  };

  return (
    <Card
      component="section"
      withBorder
      padding="sm"
      aria-label={`${name}: ${spec?.label ?? step.type}`}
      data-step={index}
      data-step-path={pathKey(path)}
      onDragOver={dragOver}
      onDragEnter={dragOver}
      onDrop={(event) => {
        event.preventDefault();
        event.stopPropagation();
        editing.drop();
      }}
      style={{ opacity: dragged ? 0.5 : undefined }}
    >
      <Stack gap="xs">
        <Stack gap="xs" ref={own}>
          <Group justify="space-between" wrap="nowrap" align="flex-start">
            <Stack gap={2}>
              <Group gap="xs">
                <Badge variant="light" color={hasError ? "red" : "blue"}>
                  {index + 1}
                </Badge>
                <Text fw={500} size="sm">
                  {spec?.label ?? step.type}
                </Text>
                <Text size="xs" c="dimmed">
                  {step.type}
                </Text>
              </Group>
              {spec && (
                <Text size="xs" c="dimmed">
                  {spec.description}
                </Text>
              )}
            </Stack>
            {!disabled && <StepMoveButtons path={path} count={count} name={name} />}
          </Group>
          {errors[at] && (
            <Text c="red" size="sm">
              {errors[at]}
            </Text>
          )}
          <SimpleGrid cols={{ base: 1, md: 2 }}>
            <ObjectFields
              fields={fields}
              value={step}
              onChange={change}
              errors={errors}
              path={at}
              disabled={disabled}
              names={names.variables}
            />
            <TextInput
              label="Label (optional)"
              value={step.label ?? ""}
              disabled={disabled}
              error={errors[`${at}.label`]}
              onChange={(e) => {
                const next: Loose = { ...step, label: e.currentTarget.value };
                if (!next.label) delete next.label;
                change(next);
              }}
            />
          </SimpleGrid>
        </Stack>
        {step.type === "if" && (
          <Stack
            gap="xs"
            pl={{ base: "xs", sm: "md" }}
            style={{ borderLeft: "2px solid var(--mantine-color-blue-3)" }}
            // Between the branches' cards and drop zones no place is meant: no marker, no drop.
            onDragOver={(event) => {
              event.stopPropagation();
              editing.dragOver(null);
            }}
          >
            <Text size="sm" fw={500}>
              Then
            </Text>
            <StepList steps={step.then ?? []} list={[...path, "then"]} />
            <Text size="sm" fw={500}>
              Else
            </Text>
            <StepList steps={step.else ?? []} list={[...path, "else"]} />
          </Stack>
        )}
      </Stack>
    </Card>
  );
}
