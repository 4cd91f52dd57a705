import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { AppContext } from "../../app-context.js";
import { requireSpaceAccess } from "../../auth/access.js";
import { notFound } from "../../errors.js";
import { runFileKey } from "../../files/file-store.js";
import { uploadKey } from "../../files/uploads.js";
import { parseBody } from "../../http/validate.js";
import { composeReportHtml } from "../../report/compose-report.js";
import { ReportSchema } from "../../schemas/report.js";
import { Uuid } from "../../schemas/rules.js";

/** The composer's live preview: a report body, and the run whose data fills it. */
export const ReportPreviewSchema = z.strictObject({
  report: ReportSchema.nullable().describe("null: the default report (title and every snapshot)."),
  runId: Uuid.optional().describe("A run of this space (the last test): its variables and snapshots."),
  job: z
    .strictObject({ name: z.string().max(200), description: z.string().max(2000).default("") })
    .default({ name: "", description: "" }),
});

/**
 * Renders a report's HTML from an unsaved report body and a finished run's variables and
 * snapshots, as the run would have: the same Liquid limits, address rules and sanitising. Nothing
 * is stored. `{title, html, errors}`; a failing block shows in place and is listed in `errors`.
 */
export function reportPreviewUiRoutes(app: FastifyInstance, ctx: AppContext) {
  app.post<{ Params: { space: string } }>("/ui-api/spaces/:space/report-preview", async (request) => {
    await requireSpaceAccess(ctx, request, request.params.space, "rw");
    const body = parseBody(ReportPreviewSchema, request.body);
    const run = body.runId ? await ctx.runs.getInSpace(request.params.space, body.runId) : undefined;
    if (body.runId && !run) throw notFound();
    const snapshots = [];
    for (const snapshot of run?.snapshots ?? []) {
      const png = await ctx.files.get(runFileKey(body.runId ?? "", snapshot.file));
      if (png) snapshots.push({ name: snapshot.name, png });
    }
    const composed = await composeReportHtml({
      report: body.report ?? undefined,
      variables: run?.variables ?? {},
      snapshots,
      scope: {
        job: { id: run?.jobId ?? "", name: body.job.name, description: body.job.description },
        run: {
          id: run?.id ?? null,
          trigger: run?.trigger ?? "test",
          startedAt: run?.startedAt ?? null,
          reportUrl: null,
        },
        space: request.params.space,
        now: new Date().toISOString(),
      },
      allowedHosts: ctx.config.reportAllowedHosts,
      upload: (id) => ctx.files.get(uploadKey(request.params.space, id)),
      signal: AbortSignal.timeout(30_000),
    });
    return { title: composed.title, html: composed.html, errors: composed.errors };
  });
}
