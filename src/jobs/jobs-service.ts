import crypto from "node:crypto";
import type { AppContext } from "../app-context.js";
import { conflict, invalid, licenseLimit, notFound } from "../errors.js";
import { runFolderKey } from "../files/file-store.js";
import type { CaptureStep } from "../schemas/capture.js";
import type { StoredJob, StoredJobBody } from "../storage/repositories/jobs-repository.js";
import type { Access } from "../storage/repositories/spaces-repository.js";
import { validateJobBody } from "./job-validation.js";

/** Jobs: validation against the space, edition limits, and what each access level may read. */

export async function validateForSpace(ctx: AppContext, spaceId: string, raw: unknown) {
  return validateJobBody(raw, {
    maxSteps: ctx.config.limits.captureSteps,
    references: {
      interfaces: (ids) => ctx.interfaces.existing(spaceId, ids),
      providers: (ids) => ctx.providers.existing(spaceId, ids),
    },
  });
}

function toStored(body: Awaited<ReturnType<typeof validateJobBody>>): StoredJobBody {
  const { id: _id, space: _space, createdAt: _c, updatedAt: _u, ...stored } = body;
  return stored;
}

export async function createJob(ctx: AppContext, spaceId: string, raw: unknown): Promise<StoredJob> {
  const body = await validateForSpace(ctx, spaceId, raw);
  const id = body.id ?? crypto.randomUUID();
  const outcome = await ctx.jobs.create(spaceId, id, toStored(body), ctx.config.limits.jobs);
  if (outcome === "conflict") throw conflict("a job with this id exists");
  if (outcome === "limit") throw licenseLimit("jobs", ctx.config.limits.jobs ?? 0);
  ctx.jobEvents.emit("changed", outcome);
  return outcome;
}

export async function replaceJob(ctx: AppContext, spaceId: string, id: string, raw: unknown): Promise<StoredJob> {
  if (!(await ctx.jobs.get(spaceId, id))) throw notFound();
  const body = await validateForSpace(ctx, spaceId, raw);
  if (body.id !== undefined && body.id !== id) {
    throw invalid([{ path: ["id"], code: "custom", message: "must equal the job id of the path" }]);
  }
  const stored = await ctx.jobs.replace(spaceId, id, toStored(body));
  if (!stored) throw notFound();
  ctx.jobEvents.emit("changed", stored);
  return stored;
}

/** Deletes the job, then its runs and their files. */
export async function deleteJob(ctx: AppContext, spaceId: string, id: string): Promise<void> {
  if (!(await ctx.jobs.delete(spaceId, id))) throw notFound();
  ctx.jobEvents.emit("deleted", id);
  const runIds = await ctx.runs.idsOfJob(id);
  for (const runId of runIds) await ctx.files.deletePrefix(runFolderKey(runId)).catch(() => undefined);
  await ctx.deliveries.deleteForRuns(runIds);
  await ctx.runs.delete(runIds);
}

/** A job as a member with `access` may read it: ro readers get no passwords. */
export function presentJob(job: StoredJob, access: Access): StoredJob {
  if (access !== "ro") return job;
  const { auth } = job.capture;
  return {
    ...job,
    capture: {
      ...job.capture,
      auth: auth.type === "basic" ? { type: "basic", username: auth.username } : auth,
      steps: job.capture.steps.map(withoutSensitiveText),
    },
  };
}

function withoutSensitiveText(step: CaptureStep): CaptureStep {
  if (step.type === "type" && step.sensitive) {
    const { text: _text, ...rest } = step;
    return rest as CaptureStep;
  }
  if (step.type === "if") {
    return {
      ...step,
      then: step.then.map(withoutSensitiveText),
      ...(step.else ? { else: step.else.map(withoutSensitiveText) } : {}),
    };
  }
  return step;
}
