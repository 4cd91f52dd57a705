import { z } from "zod";

/** The answers of failed requests. No answer ever carries a stack trace. */

export const IssueSchema = z.object({
  path: z.array(z.union([z.string(), z.number()])).describe('Where in the body, e.g. ["capture","steps",0,"url"].'),
  code: z.string().describe("The rule that failed: invalid_type, too_big, invalid_format, custom …"),
  message: z.string(),
});
export type Issue = z.infer<typeof IssueSchema>;

export const ErrorSchema = z
  .object({
    error: z.enum([
      "invalid",
      "unauthorized",
      "forbidden",
      "not_found",
      "conflict",
      "cross_origin",
      "too_many_requests",
      "payload_too_large",
      "unsupported_media_type",
      "internal",
    ]),
    message: z.string().optional(),
    issues: z.array(IssueSchema).optional().describe("With invalid: every failing field."),
    code: z.literal("licenseLimit").optional().describe("With forbidden: an edition limit is reached."),
    limit: z.enum(["jobs", "deliveryInterfaces", "aiProviders", "captureSteps"]).optional(),
    max: z.number().int().optional(),
  })
  .meta({ id: "Error" });

export function issuesFromZod(error: z.ZodError): Issue[] {
  return error.issues.map((issue) => ({
    path: issue.path.map((p) => (typeof p === "symbol" ? String(p) : p)),
    code: issue.code,
    message: issue.message,
  }));
}
