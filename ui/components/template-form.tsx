import { Alert, Button, Group, List, Modal, Stack, Text, Textarea, TextInput } from "@mantine/core";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ApiError, describeError, issuesByField, post, put } from "../api/client";
import { spacePath } from "../api/queries";
import type { Blueprint } from "../api/types";
import type { Loose } from "./job-editor/object-fields";
import { useSpace } from "./space-layout";

type Placeholder = { path: string; description: string };

/** "path: what to fill in", a line each ↔ the placeholders of a template. */
const placeholdersToText = (list: Placeholder[]) => list.map((p) => `${p.path}: ${p.description}`).join("\n");
const textToPlaceholders = (text: string): Placeholder[] =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const colon = line.indexOf(":");
      return colon < 0
        ? { path: line, description: "" }
        : { path: line.slice(0, colon).trim(), description: line.slice(colon + 1).trim() };
    });

/** Places a new job usually has to change: the URLs it opens and the interfaces it delivers to. */
function suggestedPlaceholders(job: Loose): Placeholder[] {
  const found: Placeholder[] = [];
  (job.capture?.steps ?? []).forEach((step: Loose, i: number) => {
    if (step.type === "navigate") found.push({ path: `capture.steps.${i}.url`, description: "the page to open" });
  });
  (job.deliveries ?? []).forEach((_: Loose, i: number) => {
    found.push({ path: `deliveries.${i}.interfaceId`, description: "where to deliver" });
  });
  return found;
}

/**
 * Creates a template from a job (`job` given, no `template`) or edits an own template: name,
 * description, the places to fill in and, when editing, the job body as JSON.
 */
export function TemplateForm(props: { opened: boolean; onClose: () => void; template?: Blueprint; job?: Loose }) {
  const space = useSpace();
  const queryClient = useQueryClient();
  const source = props.template;
  const [name, setName] = useState(source?.name ?? (props.job?.name ? `${props.job.name} (template)` : ""));
  const [description, setDescription] = useState(source?.description ?? props.job?.description ?? "");
  const [placeholders, setPlaceholders] = useState(
    placeholdersToText(source?.placeholders ?? (props.job ? suggestedPlaceholders(props.job) : [])),
  );
  const [jobText, setJobText] = useState(() => JSON.stringify(source?.job ?? {}, null, 2));
  const [jobError, setJobError] = useState<string | null>(null);

  const save = useMutation({
    mutationFn: () => {
      const {
        id: _id,
        space: _space,
        createdAt: _c,
        updatedAt: _u,
        ...job
      } = source ? (JSON.parse(jobText) as Loose) : (props.job ?? {});
      const body = { name, description, placeholders: textToPlaceholders(placeholders), job };
      return source
        ? put<Blueprint>(`${spacePath(space.id)}/blueprints/${source.id}`, body)
        : post<Blueprint>(`${spacePath(space.id)}/blueprints`, body);
    },
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ["blueprints", space.id] });
      props.onClose();
    },
  });
  const errors = issuesByField(save.error);
  const jobIssues = save.error instanceof ApiError ? save.error.issues.filter((i) => i.path[0] === "job") : [];
  const placeholderIssue = Object.entries(errors).find(([k]) => k.startsWith("placeholders"))?.[1];

  return (
    <Modal
      opened={props.opened}
      onClose={props.onClose}
      title={source ? "Edit the template" : "Save as a template"}
      size="lg"
    >
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (!jobError) save.mutate();
        }}
      >
        <Stack>
          <TextInput
            label="Template name"
            required
            value={name}
            error={errors.name}
            onChange={(e) => setName(e.currentTarget.value)}
          />
          <Textarea
            label="Description"
            autosize
            minRows={2}
            value={description}
            error={errors.description}
            onChange={(e) => setDescription(e.currentTarget.value)}
          />
          <Textarea
            label="Places to fill in"
            description="One per line: the field's path, a colon, what to fill in (e.g. capture.steps.0.url: the dashboard's address)."
            autosize
            minRows={2}
            value={placeholders}
            error={placeholderIssue}
            styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)", fontSize: 13 } }}
            onChange={(e) => setPlaceholders(e.currentTarget.value)}
          />
          {source && (
            <Textarea
              label="Job (JSON)"
              autosize
              minRows={6}
              maxRows={24}
              value={jobText}
              error={jobError}
              styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)", fontSize: 13 } }}
              onChange={(e) => {
                setJobText(e.currentTarget.value);
                try {
                  JSON.parse(e.currentTarget.value);
                  setJobError(null);
                } catch (problem) {
                  setJobError(`not valid JSON: ${(problem as Error).message}`);
                }
              }}
            />
          )}
          {save.error && (
            <Alert color="red" role="alert" title="Not saved">
              {jobIssues.length > 0 ? (
                <List size="sm">
                  {jobIssues.slice(0, 8).map((issue) => (
                    <List.Item key={`${issue.path.join(".")}-${issue.message}`}>
                      {issue.path.join(".")}: {issue.message}
                    </List.Item>
                  ))}
                </List>
              ) : (
                describeError(save.error)
              )}
            </Alert>
          )}
          {!source && (
            <Text size="xs" c="dimmed">
              The template keeps the job as it is in the editor now, saved or not.
            </Text>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={props.onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={save.isPending}>
              Save template
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
