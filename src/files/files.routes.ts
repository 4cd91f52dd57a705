import crypto from "node:crypto";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../app-context.js";
import { accessTo, currentUser } from "../auth/access.js";
import { isUuid } from "../http/validate.js";
import { printPdf } from "../report/print-pdf.js";
import type { TestRunBody } from "../runs/run-pipeline.js";
import type { StoredRun } from "../storage/repositories/runs-repository.js";
import { runFileKey } from "./file-store.js";

const TYPES: Record<string, string> = {
  png: "image/png",
  pdf: "application/pdf",
  html: "text/html; charset=utf-8",
};

const sameToken = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
};

/**
 * A run's files: readable with the run's token (links in e-mails and chat) or by a member of the
 * run's space. Anything else is a 404, whether the file exists or not.
 */
export function filesRoutes(app: FastifyInstance, ctx: AppContext) {
  app.get<{ Params: { runId: string; name: string }; Querystring: { token?: string } }>(
    "/files/runs/:runId/:name",
    async (request, reply) => {
      const { runId, name } = request.params;
      const notFound = () => reply.code(404).send({ error: "not_found" });
      if (!isUuid(runId) || !/^[A-Za-z0-9_-]{1,64}\.(png|pdf|html)$/.test(name)) return notFound();
      const run = await ctx.runs.get(runId);
      if (!run) return notFound();
      const token = typeof request.query.token === "string" ? request.query.token : "";
      let allowed = token !== "" && sameToken(token, run.token);
      if (!allowed) {
        const user = await currentUser(ctx, request);
        allowed = user !== null && (await accessTo(ctx, user, run.space)) !== undefined;
      }
      if (!allowed) return notFound();
      const data =
        (await ctx.files.get(runFileKey(runId, name))) ??
        (name === "report.pdf" ? await printLater(ctx, run) : undefined);
      if (!data) return notFound();
      const extension = name.split(".").pop() ?? "";
      return (
        reply
          .header("content-type", TYPES[extension] ?? "application/octet-stream")
          .header("cache-control", "private, max-age=3600")
          // A report never runs scripts nor loads anything, even opened from its link on our origin.
          .header(
            "content-security-policy",
            "default-src 'none'; img-src data:; style-src 'unsafe-inline'; font-src data:; base-uri 'none'; form-action 'none'; sandbox",
          )
          .send(data)
      );
    },
  );
}

/**
 * A run's PDF is printed when a delivery needs it; otherwise on the first request of its link,
 * from the stored HTML, and kept.
 */
async function printLater(ctx: AppContext, run: StoredRun): Promise<Buffer | undefined> {
  const html = await ctx.files.get(runFileKey(run.id, "report.html"));
  if (!html) return undefined;
  const job = (run.jobBody as TestRunBody | null)?.job ?? (await ctx.jobs.get(run.space, run.jobId));
  const paper = job?.report?.paper ?? { size: "A4" as const, orientation: "portrait" as const };
  const pdf = await printPdf(html.toString("utf8"), paper, ctx.pool);
  await ctx.files.put(runFileKey(run.id, "report.pdf"), pdf, "application/pdf");
  return pdf;
}
