import type { AppContext } from "../app-context.js";
import { HttpError, invalid, notFound } from "../errors.js";
import { validateJobBody } from "../jobs/job-validation.js";
import { BlueprintBodySchema } from "../schemas/blueprint.js";
import { type Issue, issuesFromZod } from "../schemas/errors.js";
import { BUILTIN_BLUEPRINTS } from "./builtin-blueprints.js";

/** Blueprints: the built-in ones (read-only, in every space) and a space's own. */

/** The blueprint without its job, which validateJobBody checks with the job rules. */
const EnvelopeSchema = BlueprintBodySchema.omit({ job: true });

async function validateBlueprint(ctx: AppContext, raw: unknown) {
  const issues: Issue[] = [];
  const envelope = EnvelopeSchema.safeParse(withoutJob(raw));
  if (!envelope.success) issues.push(...issuesFromZod(envelope.error));
  const job = (raw as { job?: unknown } | null)?.job;
  let validJob: Awaited<ReturnType<typeof validateJobBody>> | undefined;
  if (job === undefined) {
    issues.push({ path: ["job"], code: "invalid_type", message: "expected the job body of the template" });
  } else {
    // Placeholders stand where interface and provider ids go: references are not checked here.
    try {
      validJob = await validateJobBody(job, { maxSteps: ctx.config.limits.captureSteps, pathPrefix: ["job"] });
    } catch (error) {
      if (error instanceof HttpError && Array.isArray(error.body.issues))
        issues.push(...(error.body.issues as Issue[]));
      else throw error;
    }
  }
  if (issues.length > 0 || !envelope.success || !validJob) throw invalid(issues);
  const { id: _i, builtIn: _b, space: _s, createdAt: _c, updatedAt: _u, ...rest } = envelope.data;
  const { id: _jobId, space: _js, createdAt: _jc, updatedAt: _ju, ...jobBody } = validJob;
  return { ...rest, job: jobBody };
}

const withoutJob = (raw: unknown) => {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return raw;
  const { job: _job, ...rest } = raw as Record<string, unknown>;
  return rest;
};

export async function listBlueprints(ctx: AppContext, spaceId: string) {
  return [...BUILTIN_BLUEPRINTS, ...(await ctx.blueprints.list(spaceId))];
}

export async function getBlueprint(ctx: AppContext, spaceId: string, id: string) {
  const builtIn = BUILTIN_BLUEPRINTS.find((b) => b.id === id);
  if (builtIn) return builtIn;
  const own = await ctx.blueprints.get(spaceId, id);
  if (!own) throw notFound();
  return own;
}

const readOnly = () =>
  new HttpError(403, { error: "forbidden", message: "built-in blueprints are read-only; create your own from one" });

export async function createBlueprint(ctx: AppContext, spaceId: string, raw: unknown) {
  return ctx.blueprints.create(spaceId, await validateBlueprint(ctx, raw));
}

export async function replaceBlueprint(ctx: AppContext, spaceId: string, id: string, raw: unknown) {
  if (BUILTIN_BLUEPRINTS.some((b) => b.id === id)) throw readOnly();
  if (!(await ctx.blueprints.get(spaceId, id))) throw notFound();
  const rawId = (raw as { id?: unknown } | null)?.id;
  if (rawId !== undefined && rawId !== id) {
    throw invalid([{ path: ["id"], code: "custom", message: "must equal the blueprint id of the path" }]);
  }
  const replaced = await ctx.blueprints.replace(spaceId, id, await validateBlueprint(ctx, raw));
  if (!replaced) throw notFound();
  return replaced;
}

export async function deleteBlueprint(ctx: AppContext, spaceId: string, id: string) {
  if (BUILTIN_BLUEPRINTS.some((b) => b.id === id)) throw readOnly();
  if (!(await ctx.blueprints.delete(spaceId, id))) throw notFound();
}
