import type { StoredRun } from "../storage/repositories/runs-repository.js";

/** Where a run's file is served; the token lets a link work without a session (e-mails, chat). */
export const runFileUrl = (run: Pick<StoredRun, "id" | "token">, file: string) =>
  `/files/runs/${run.id}/${encodeURIComponent(file)}?token=${run.token}`;

/** A run as the agent API reads it (DESIGN.md "A run read"). */
export function presentRun(run: StoredRun) {
  return {
    id: run.id,
    jobId: run.jobId,
    jobName: run.jobName,
    space: run.space,
    trigger: run.trigger,
    attempt: run.attempt,
    retryOf: run.retryOf,
    state: run.state,
    queuedAt: run.queuedAt,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    durationMs: run.durationMs,
    error: run.error,
    variables: run.variables,
    steps: run.steps,
    snapshots: run.snapshots.map((s) => ({ name: s.name, url: runFileUrl(run, s.file) })),
    files: [
      ...run.snapshots.map((s) => ({ name: s.file, kind: "snapshot" as const, url: runFileUrl(run, s.file) })),
      ...run.files.map((f) => ({ name: f.file, kind: f.kind, url: runFileUrl(run, f.file) })),
    ],
    deliveries: run.deliveries,
  };
}

export type RunRead = ReturnType<typeof presentRun>;
