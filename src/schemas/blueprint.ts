import { z } from "zod";
import { JobBodySchema } from "./job.js";
import { Description, Name } from "./rules.js";

/**
 * A blueprint (job template): a job body with placeholders to fill in. Its delivery and AI
 * references are not checked against the space, since they are placeholders until a job is made.
 */
export const PlaceholderSchema = z.strictObject({
  path: z
    .string()
    .min(1)
    .max(200)
    .describe('Dotted path in `job`, e.g. "capture.steps.0.url" or "deliveries.0.interfaceId".'),
  description: z.string().max(1000),
});

export const BlueprintBodySchema = z
  .strictObject({
    id: z.string().optional().describe("Read-only; ignored on create, must equal the path's on replace."),
    name: Name,
    description: Description,
    job: JobBodySchema.describe("The job body a new job starts from (its id is ignored)."),
    placeholders: z.array(PlaceholderSchema).max(100).default([]),
    builtIn: z.boolean().optional().describe("Read-only; ignored on write."),
    space: z.string().nullable().optional().describe("Read-only; ignored on write."),
    createdAt: z.string().optional().describe("Read-only; ignored on write."),
    updatedAt: z.string().optional().describe("Read-only; ignored on write."),
  })
  .meta({ id: "Blueprint" });

export type BlueprintBodyInput = z.input<typeof BlueprintBodySchema>;
export type BlueprintBody = z.infer<typeof BlueprintBodySchema>;
