import { z } from "zod";

/**
 * Runs as the API reads them. The run pipeline stores these; the schemas here are the contract
 * published in the guide and the OpenAPI description.
 */
export const RunStateSchema = z.enum(["queued", "running", "success", "partial", "failed", "skipped"]);
export const RunTriggerSchema = z.enum(["schedule", "manual", "retry", "test"]);

export const RunStepSchema = z.object({
  index: z.number().int(),
  stepId: z.string(),
  type: z.string(),
  state: z.enum(["started", "done", "failed", "skipped"]),
  ms: z.number().int().nullable(),
  error: z.string().nullable().optional(),
});

export const FileLinkSchema = z.object({
  name: z.string(),
  kind: z.enum(["snapshot", "html", "pdf"]),
  url: z.string().describe("Carries the run's secret token."),
});

export const RunDeliverySchema = z.object({
  interfaceId: z.string(),
  type: z.string(),
  target: z
    .string()
    .nullable()
    .describe("What was reached: an e-mail address (one record per recipient), a webhook host, an S3 key."),
  state: z.enum(["sent", "failed", "throttled"]),
  error: z.string().nullable(),
  status: z.number().int().nullable().describe("The receiver's HTTP status or SMTP reply code, when there was one."),
  at: z.string(),
});

export const RunSchema = z
  .object({
    id: z.uuid(),
    jobId: z.uuid(),
    jobName: z.string(),
    space: z.string(),
    trigger: RunTriggerSchema,
    attempt: z.number().int().describe("1 for the first try; retries count up."),
    retryOf: z.string().nullable().describe("On a retry: the id of the first attempt."),
    state: RunStateSchema,
    queuedAt: z.string(),
    startedAt: z.string().nullable(),
    finishedAt: z.string().nullable(),
    durationMs: z.number().int().nullable(),
    error: z.object({ message: z.string(), stepId: z.string().optional() }).nullable(),
    variables: z.record(z.string(), z.unknown()),
    steps: z.array(RunStepSchema),
    snapshots: z.array(z.object({ name: z.string(), url: z.string().describe("Path with the run's token.") })),
    files: z.array(FileLinkSchema),
    deliveries: z.array(RunDeliverySchema),
  })
  .meta({ id: "Run" });

export const RunListQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(500).optional(),
  jobId: z.uuid().optional(),
  state: RunStateSchema.optional(),
  trigger: RunTriggerSchema.optional(),
  since: z.iso.datetime().optional(),
  until: z.iso.datetime().optional(),
});

export const RunPageSchema = z
  .object({ items: z.array(RunSchema), nextCursor: z.string().nullable() })
  .meta({ id: "RunPage" });

export const StreamEndSchema = z
  .object({
    ok: z.boolean(),
    state: RunStateSchema,
    runId: z.string().nullable(),
    variables: z.record(z.string(), z.unknown()),
    snapshots: z.array(z.object({ name: z.string(), url: z.string() })),
    files: z.array(FileLinkSchema),
    deliveries: z.array(RunDeliverySchema),
    error: z.object({ message: z.string(), stepId: z.string().optional() }).nullable(),
  })
  .meta({ id: "StreamEnd", description: "Data of the last event (`end`) of a run, preview or test stream." });
