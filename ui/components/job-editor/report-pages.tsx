import {
  ActionIcon,
  Autocomplete,
  Button,
  Card,
  FileButton,
  Group,
  Image,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
} from "@mantine/core";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { describeError, uploadImage } from "../../api/client";
import type { CapturedNames } from "./captured-names";
import { type Loose, type ObjectField, ObjectFields, setField } from "./object-fields";

/** Report blocks (src/schemas/report.ts) and their fields. */
const BLOCKS: Record<string, { label: string; fields: ObjectField[] }> = {
  text: {
    label: "Text",
    fields: [
      {
        name: "content",
        label: "Text (Liquid, then Markdown)",
        kind: "textarea",
        required: true,
        code: true,
        placeholder: "## {{ errors }} errors today",
      },
    ],
  },
  snapshot: {
    label: "Snapshot",
    fields: [
      { name: "ref", label: "Snapshot name", kind: "text", required: true, code: true },
      { name: "caption", label: "Caption", kind: "text" },
    ],
  },
  snapshots: { label: "All snapshots", fields: [] },
  variable: {
    label: "Variable as a figure",
    fields: [
      { name: "name", label: "Variable", kind: "text", required: true, code: true },
      { name: "label", label: "Label", kind: "text" },
    ],
  },
  image: { label: "Image", fields: [{ name: "url", label: "Image URL", kind: "text", required: true }] },
  divider: { label: "Divider", fields: [] },
  spacer: { label: "Space", fields: [{ name: "heightMm", label: "Height (mm)", kind: "number", required: true }] },
};
const BLOCK_OPTIONS = Object.entries(BLOCKS).map(([value, b]) => ({ value, label: b.label }));

const newBlock = (type: string): Loose =>
  type === "text" ? { type, content: "" } : type === "spacer" ? { type, heightMm: 10 } : { type };

/** Moves item `from` to `to` in a copy of the list. */
const moved = <T,>(list: T[], from: number, to: number) => {
  const next = [...list];
  const [item] = next.splice(from, 1);
  next.splice(to, 0, item);
  return next;
};

type Common = {
  errors: Record<string, string>;
  disabled: boolean;
  /** What the capture stores, offered in the blocks that use it. */
  names: CapturedNames;
  space: string;
};

/** Pages of rows of 1 to 3 cells of blocks, as a form. */
export function ReportPages({
  pages,
  onChange,
  errors,
  disabled,
  names,
  space,
}: Common & { pages: Loose[]; onChange: (pages: Loose[]) => void }) {
  return (
    <Stack gap="md">
      {pages.map((page, p) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: pages have no id; their place is their identity
        <Card key={p} withBorder padding="sm" component="section" aria-label={`Page ${p + 1}`}>
          <Stack gap="sm">
            <Group justify="space-between">
              <Text fw={500}>Page {p + 1}</Text>
              {!disabled && pages.length > 1 && (
                <Button
                  size="compact-xs"
                  variant="subtle"
                  color="red"
                  onClick={() => onChange(pages.filter((_, i) => i !== p))}
                >
                  Remove page
                </Button>
              )}
            </Group>
            {(page.rows ?? []).map((row: Loose, r: number) => (
              <Row
                // biome-ignore lint/suspicious/noArrayIndexKey: rows have no id; their place is their identity
                key={r}
                row={row}
                path={`report.pages.${p}.rows.${r}`}
                label={`Row ${r + 1}`}
                first={r === 0}
                last={r === page.rows.length - 1}
                errors={errors}
                disabled={disabled}
                names={names}
                space={space}
                onChange={(next) =>
                  onChange(
                    pages.map((pg, i) =>
                      i === p ? { ...pg, rows: pg.rows.map((x: Loose, j: number) => (j === r ? next : x)) } : pg,
                    ),
                  )
                }
                onMove={(to) => onChange(pages.map((pg, i) => (i === p ? { ...pg, rows: moved(pg.rows, r, to) } : pg)))}
                onRemove={() =>
                  onChange(
                    pages.map((pg, i) =>
                      i === p ? { ...pg, rows: pg.rows.filter((_: Loose, j: number) => j !== r) } : pg,
                    ),
                  )
                }
              />
            ))}
            {!disabled && (
              <Button
                size="compact-sm"
                variant="light"
                w="fit-content"
                onClick={() =>
                  onChange(
                    pages.map((pg, i) =>
                      i === p ? { ...pg, rows: [...(pg.rows ?? []), { cells: [{ blocks: [newBlock("text")] }] }] } : pg,
                    ),
                  )
                }
              >
                Add a row
              </Button>
            )}
          </Stack>
        </Card>
      ))}
      {!disabled && (
        <Button
          variant="default"
          w="fit-content"
          onClick={() => onChange([...pages, { rows: [{ cells: [{ blocks: [] }] }] }])}
        >
          Add a page
        </Button>
      )}
    </Stack>
  );
}

function Row(
  props: Common & {
    row: Loose;
    path: string;
    label: string;
    first: boolean;
    last: boolean;
    onChange: (row: Loose) => void;
    onMove: (to: number) => void;
    onRemove: () => void;
  },
) {
  const { row, path, disabled } = props;
  const cells: Loose[] = row.cells ?? [];
  const index = Number(path.split(".").pop());
  const setCells = (next: Loose[]) => props.onChange({ ...row, cells: next });
  return (
    <Stack gap={6} p="xs" style={{ border: "1px dashed var(--mantine-color-default-border)", borderRadius: 8 }}>
      <Group justify="space-between" wrap="nowrap">
        <Group gap="xs">
          <Text size="sm" fw={500}>
            {props.label}
          </Text>
          <Select
            aria-label={`${props.label}: cells`}
            size="xs"
            w={110}
            data={["1", "2", "3"].map((n) => ({ value: n, label: `${n} cell${n === "1" ? "" : "s"}` }))}
            value={String(cells.length || 1)}
            allowDeselect={false}
            disabled={disabled}
            onChange={(v) => {
              const n = Number(v);
              setCells(
                n > cells.length
                  ? [...cells, ...Array.from({ length: n - cells.length }, () => ({ blocks: [] }))]
                  : cells.slice(0, n),
              );
            }}
          />
        </Group>
        {!disabled && (
          <Group gap={2} wrap="nowrap">
            <ActionIcon
              variant="subtle"
              aria-label={`Move ${props.label} up`}
              disabled={props.first}
              onClick={() => props.onMove(index - 1)}
            >
              ↑
            </ActionIcon>
            <ActionIcon
              variant="subtle"
              aria-label={`Move ${props.label} down`}
              disabled={props.last}
              onClick={() => props.onMove(index + 1)}
            >
              ↓
            </ActionIcon>
            <ActionIcon variant="subtle" color="red" aria-label={`Remove ${props.label}`} onClick={props.onRemove}>
              ✕
            </ActionIcon>
          </Group>
        )}
      </Group>
      {props.errors[`${path}.cells`] && (
        <Text size="xs" c="red">
          {props.errors[`${path}.cells`]}
        </Text>
      )}
      <SimpleGrid cols={{ base: 1, sm: Math.max(1, cells.length) }}>
        {cells.map((cell, c) => (
          <Cell
            // biome-ignore lint/suspicious/noArrayIndexKey: cells have no id; their place is their identity
            key={c}
            blocks={cell.blocks ?? []}
            path={`${path}.cells.${c}.blocks`}
            errors={props.errors}
            disabled={disabled}
            names={props.names}
            space={props.space}
            onChange={(blocks) => setCells(cells.map((x, i) => (i === c ? { ...x, blocks } : x)))}
          />
        ))}
      </SimpleGrid>
    </Stack>
  );
}

function Cell(props: Common & { blocks: Loose[]; path: string; onChange: (blocks: Loose[]) => void }) {
  const { blocks, path, disabled, onChange } = props;
  const [adding, setAdding] = useState<string | null>("text");
  return (
    <Stack gap={6}>
      {blocks.map((block, b) => (
        <Card
          // biome-ignore lint/suspicious/noArrayIndexKey: blocks have no id; their place is their identity
          key={b}
          withBorder
          padding="xs"
          component="section"
          aria-label={`Block: ${BLOCKS[block.type]?.label ?? block.type}`}
        >
          <Stack gap={4}>
            <Group justify="space-between" wrap="nowrap">
              <Text size="xs" fw={500}>
                {BLOCKS[block.type]?.label ?? block.type}
              </Text>
              {!disabled && (
                <Group gap={0} wrap="nowrap">
                  <ActionIcon
                    size="sm"
                    variant="subtle"
                    aria-label="Move the block up"
                    disabled={b === 0}
                    onClick={() => onChange(moved(blocks, b, b - 1))}
                  >
                    ↑
                  </ActionIcon>
                  <ActionIcon
                    size="sm"
                    variant="subtle"
                    aria-label="Move the block down"
                    disabled={b === blocks.length - 1}
                    onClick={() => onChange(moved(blocks, b, b + 1))}
                  >
                    ↓
                  </ActionIcon>
                  <ActionIcon
                    size="sm"
                    variant="subtle"
                    color="red"
                    aria-label="Remove the block"
                    onClick={() => onChange(blocks.filter((_, i) => i !== b))}
                  >
                    ✕
                  </ActionIcon>
                </Group>
              )}
            </Group>
            <BlockFields
              block={block}
              onChange={(next) => onChange(blocks.map((x, i) => (i === b ? next : x)))}
              errors={props.errors}
              path={`${path}.${b}`}
              disabled={disabled}
              names={props.names}
              space={props.space}
            />
          </Stack>
        </Card>
      ))}
      {!disabled && (
        <Group gap={4} wrap="nowrap">
          <Select
            aria-label="Block to add"
            size="xs"
            data={BLOCK_OPTIONS}
            value={adding}
            onChange={setAdding}
            allowDeselect={false}
            w={150}
          />
          <Button
            size="compact-sm"
            variant="subtle"
            disabled={!adding}
            onClick={() => adding && onChange([...blocks, newBlock(adding)])}
          >
            Add block
          </Button>
        </Group>
      )}
    </Stack>
  );
}

type BlockProps = Common & { block: Loose; path: string; onChange: (block: Loose) => void };

/**
 * The fields of one block: snapshot and variable names offered from the capture, variables to
 * insert into text, and an image from a URL or uploaded.
 */
function BlockFields(props: BlockProps) {
  const { block, path, errors, disabled, names, onChange } = props;
  if (block.type === "snapshot" || block.type === "variable") {
    const isSnapshot = block.type === "snapshot";
    const key = isSnapshot ? "ref" : "name";
    return (
      <>
        <Autocomplete
          label={isSnapshot ? "Snapshot" : "Variable"}
          description={
            (isSnapshot ? names.snapshots : names.variables).length
              ? undefined
              : `No ${isSnapshot ? "snapshot" : "variable"} step in the capture yet.`
          }
          data={isSnapshot ? names.snapshots : names.variables}
          value={block[key] ?? ""}
          required
          disabled={disabled}
          error={errors[`${path}.${key}`]}
          styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
          onChange={(value) => onChange({ ...block, [key]: value })}
        />
        <ObjectFields
          fields={(BLOCKS[block.type]?.fields ?? []).filter((f) => f.name !== key)}
          value={block}
          onChange={onChange}
          errors={errors}
          path={path}
          disabled={disabled}
        />
      </>
    );
  }
  if (block.type === "image") return <ImageFields {...props} />;
  return (
    <>
      <ObjectFields
        fields={BLOCKS[block.type]?.fields ?? []}
        value={block}
        onChange={onChange}
        errors={errors}
        path={path}
        disabled={disabled}
      />
      {block.type === "text" && !disabled && names.variables.length > 0 && (
        <Group gap={4} aria-label="Variables to insert">
          {names.variables.map((name) => (
            <Button
              key={name}
              size="compact-xs"
              variant="light"
              aria-label={`Insert {{ ${name} }}`}
              onClick={() => onChange({ ...block, content: `${block.content ?? ""}{{ ${name} }}` })}
            >
              {`{{ ${name} }}`}
            </Button>
          ))}
        </Group>
      )}
    </>
  );
}

/** An image block: a URL (Liquid allowed), or an image uploaded to the space. */
function ImageFields({ block, path, errors, disabled, space, onChange }: BlockProps) {
  const [source, setSource] = useState<"url" | "upload">(block.upload ? "upload" : "url");
  const upload = useMutation({
    mutationFn: (file: File) => uploadImage(space, file),
    onSuccess: (stored) => onChange(setField({ ...block, upload: stored.id }, "url", undefined)),
  });
  return (
    <Stack gap={6}>
      <SegmentedControl
        size="xs"
        aria-label="Image source"
        value={source}
        disabled={disabled}
        onChange={(value) => setSource(value as "url" | "upload")}
        data={[
          { value: "url", label: "From a URL" },
          { value: "upload", label: "Uploaded" },
        ]}
      />
      {source === "url" ? (
        <TextInput
          label="Image URL"
          required
          value={block.url ?? ""}
          disabled={disabled}
          error={errors[`${path}.url`]}
          onChange={(e) => onChange(setField(setField(block, "upload", undefined), "url", e.currentTarget.value))}
        />
      ) : (
        <Stack gap={4}>
          {block.upload && (
            <Image
              src={`/ui-api/spaces/${encodeURIComponent(space)}/uploads/${block.upload}`}
              alt="Uploaded image"
              maw={240}
              fit="contain"
            />
          )}
          {!disabled && (
            <FileButton
              accept="image/png,image/jpeg,image/gif,image/webp"
              onChange={(file) => file && upload.mutate(file)}
            >
              {(buttonProps) => (
                <Button {...buttonProps} size="compact-sm" variant="light" w="fit-content" loading={upload.isPending}>
                  {block.upload ? "Replace the image" : "Upload an image"}
                </Button>
              )}
            </FileButton>
          )}
          <Text size="xs" c="dimmed">
            PNG, JPEG, GIF or WebP, at most 20 MB.
          </Text>
          {(upload.error || errors[`${path}.upload`] || (!block.upload && errors[`${path}.url`])) && (
            <Text size="xs" c="red" role="alert">
              {upload.error ? describeError(upload.error) : (errors[`${path}.upload`] ?? errors[`${path}.url`])}
            </Text>
          )}
        </Stack>
      )}
    </Stack>
  );
}
