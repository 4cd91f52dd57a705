import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../app-context.js";
import { requireSpaceAccess } from "../../auth/access.js";
import { notFound } from "../../errors.js";
import { isUuid } from "../../http/validate.js";
import { createJob, deleteJob, presentJob, replaceJob } from "../../jobs/jobs-service.js";
import type { StoredJob } from "../../storage/repositories/jobs-repository.js";
import type { User } from "../../storage/repositories/users-repository.js";

type SpaceParams = { space: string };
type JobParams = { space: string; jobId: string };

/** The audit fields of a change to `job` by `user`; passwords are left out (`presentJob` as ro). */
const jobTarget = (user: User, job: StoredJob) => ({
  actor: user,
  space: job.space,
  type: "job" as const,
  id: job.id,
  name: job.name,
});

export function jobsRoutes(app: FastifyInstance, ctx: AppContext) {
  app.get<{ Params: SpaceParams }>("/api/spaces/:space/jobs", async (request, reply) => {
    const { access } = await requireSpaceAccess(ctx, request, request.params.space, "ro");
    // ro readers get the jobs without passwords; everyone else the stored bodies as they are.
    if (access === "ro") {
      const jobs = await ctx.jobs.list(request.params.space);
      return { items: jobs.map((job) => presentJob(job, access)) };
    }
    return reply.type("application/json; charset=utf-8").send(await ctx.jobs.listJson(request.params.space));
  });

  app.post<{ Params: SpaceParams }>("/api/spaces/:space/jobs", async (request, reply) => {
    const { user } = await requireSpaceAccess(ctx, request, request.params.space, "rw");
    const job = await createJob(ctx, request.params.space, request.body);
    await ctx.audit.record({ ...jobTarget(user, job), action: "create", after: presentJob(job, "ro") });
    return reply.code(201).send(job);
  });

  app.get<{ Params: JobParams }>("/api/spaces/:space/jobs/:jobId", async (request) => {
    const { access } = await requireSpaceAccess(ctx, request, request.params.space, "ro");
    if (!isUuid(request.params.jobId)) throw notFound();
    const job = await ctx.jobs.get(request.params.space, request.params.jobId);
    if (!job) throw notFound();
    return presentJob(job, access);
  });

  app.put<{ Params: JobParams }>("/api/spaces/:space/jobs/:jobId", async (request) => {
    const { user } = await requireSpaceAccess(ctx, request, request.params.space, "rw");
    if (!isUuid(request.params.jobId)) throw notFound();
    const before = await ctx.jobs.get(request.params.space, request.params.jobId);
    const job = await replaceJob(ctx, request.params.space, request.params.jobId, request.body);
    await ctx.audit.record({
      ...jobTarget(user, job),
      action: "update",
      before: before && presentJob(before, "ro"),
      after: presentJob(job, "ro"),
    });
    return job;
  });

  app.delete<{ Params: JobParams }>("/api/spaces/:space/jobs/:jobId", async (request, reply) => {
    const { user } = await requireSpaceAccess(ctx, request, request.params.space, "rw");
    if (!isUuid(request.params.jobId)) throw notFound();
    const before = await ctx.jobs.get(request.params.space, request.params.jobId);
    await deleteJob(ctx, request.params.space, request.params.jobId);
    if (before) await ctx.audit.record({ ...jobTarget(user, before), action: "delete", before: { name: before.name } });
    return reply.code(204).send();
  });
}
