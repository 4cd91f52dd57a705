import crypto from "node:crypto";
import type { AppContext } from "../app-context.js";
import { conflict, invalid, licenseLimit, notFound } from "../errors.js";
import { removeRuns } from "../runs/remove-runs.js";
import type { CaptureStep } from "../schemas/capture.js";
import type { StoredJob, StoredJobBody } from "../storage/repositories/jobs-repository.js";
import type { Access } from "../storage/repositories/spaces-repository.js";
import { validateJobBody, walkSteps } from "./job-validation.js";

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
  await removeRuns(ctx, await ctx.runs.idsOfJob(id));
}

/** The jobs of a space that bind delivery interface `ref.interfaceId` or ask AI provider `ref.providerId`. */
export async function jobsUsing(
  ctx: AppContext,
  spaceId: string,
  ref: { interfaceId?: string; providerId?: string },
): Promise<{ id: string; name: string }[]> {
  const uses = (job: StoredJob) =>
    (ref.interfaceId !== undefined && job.deliveries.some((d) => d.interfaceId === ref.interfaceId)) ||
    (ref.providerId !== undefined &&
      [...walkSteps(job.capture.steps, [])].some(
        ({ step }) => step.type === "ai" && step.providerId === ref.providerId,
      ));
  return (await ctx.jobs.list(spaceId)).filter(uses).map((job) => ({ id: job.id, name: job.name }));
}

/** The 409 of deleting something that jobs still use: it names them, so the user can change them first. */
export function inUse(what: string, jobs: { id: string; name: string }[]) {
  const names = jobs.map((j) => `“${j.name}”`);
  const shown = names.length > 5 ? `${names.slice(0, 5).join(", ")} and ${names.length - 5} more` : names.join(", ");
  return conflict(`${what} is used by ${jobs.length === 1 ? "the job" : "the jobs"} ${shown}; change them first`, {
    jobs,
  });
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
