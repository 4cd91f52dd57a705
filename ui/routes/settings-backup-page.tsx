import { Alert, Anchor, Button, Checkbox, FileButton, List, Stack, Text, Title } from "@mantine/core";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { ApiError, describeError, post } from "../api/client";
import { ConfirmModal } from "../components/confirm-modal";

/**
 * Backup (system users): download an export of everything but files, or restore one. An import
 * replaces every table and ends every session, so it asks first and then sends to the login.
 */
export default function SettingsBackupPage() {
  const [withRuns, setWithRuns] = useState(false);
  const [file, setFile] = useState<{ name: string; document: unknown } | null>(null);
  const [readError, setReadError] = useState<string | null>(null);
  const restore = useMutation({
    mutationFn: (document: unknown) => post<{ imported: Record<string, number> }>("/ui-api/admin/import", document),
    onSuccess: () => setFile(null),
  });
  const issues = restore.error instanceof ApiError ? restore.error.issues : [];

  const choose = async (chosen: File | null) => {
    setReadError(null);
    restore.reset();
    if (!chosen) return;
    try {
      setFile({ name: chosen.name, document: JSON.parse(await chosen.text()) });
    } catch (error) {
      setReadError(`${chosen.name} is not a JSON file: ${(error as Error).message}`);
    }
  };

  return (
    <Stack maw={720}>
      <Title order={1} size="h2">
        Backup
      </Title>
      <Text size="sm">
        An export holds users, spaces and members, jobs, templates, delivery interfaces and AI providers (their secrets
        still encrypted with this instance's SECRET_KEY), observer keys, settings and the audit log. Report files are
        not in it: back up the files folder or bucket too. Keep the SECRET_KEY with the export: a restore needs it.
      </Text>
      <Checkbox
        label="Include run history (runs and delivery records)"
        checked={withRuns}
        onChange={(e) => setWithRuns(e.currentTarget.checked)}
      />
      <Button component="a" href={`/ui-api/admin/export${withRuns ? "?runs=true" : ""}`} download w="fit-content">
        Download an export
      </Button>

      <Title order={2} size="h4" mt="lg">
        Restore
      </Title>
      <Text size="sm">
        Restoring replaces everything with the file's contents, in one go (or nothing changes), and signs everyone out.
        Without run history in the file, the runs stay as they are.
      </Text>
      <FileButton accept="application/json,.json" onChange={(chosen) => void choose(chosen)}>
        {(props) => (
          <Button {...props} variant="default" w="fit-content">
            Restore from a file …
          </Button>
        )}
      </FileButton>
      {readError && (
        <Alert color="red" role="alert">
          {readError}
        </Alert>
      )}
      {restore.error ? (
        <Alert color="red" role="alert" title="Not restored: nothing was changed">
          {issues.length > 0 ? (
            <List size="sm">
              {issues.slice(0, 20).map((issue) => (
                <List.Item key={`${issue.path.join(".")}-${issue.message}`}>
                  {issue.path.join(".") || "file"}: {issue.message}
                </List.Item>
              ))}
            </List>
          ) : (
            describeError(restore.error)
          )}
        </Alert>
      ) : null}
      {restore.data && (
        <Alert color="green" role="status" title="Restored">
          {Object.entries(restore.data.imported)
            .map(([table, count]) => `${table}: ${count}`)
            .join(", ")}
          . Everyone was signed out: <Anchor href="/login">sign in again</Anchor>.
        </Alert>
      )}
      <ConfirmModal
        opened={file !== null}
        title="Replace everything with this file?"
        confirmLabel="Restore"
        onClose={() => setFile(null)}
        onConfirm={() => file && restore.mutate(file.document)}
        pending={restore.isPending}
      >
        Every user, space, job, template, interface and setting of this instance is replaced by those of “{file?.name}”,
        and everyone is signed out. This cannot be undone (download an export first).
      </ConfirmModal>
    </Stack>
  );
}
