import { z } from "zod";
import { CaptureSchema } from "./capture.js";
import { DeliverySchema } from "./delivery.js";
import { ReportSchema } from "./report.js";
import { CronExpression, Description, Name, TimeZone, Uuid } from "./rules.js";

/**
 * Glossary.
 * - job: a capture definition, a report template and delivery bindings, in a space, with a schedule.
 * - step: one action of a capture (navigate, click, extract, if …); steps may nest under `if`.
 * - run: one execution of a job; an attempt is one try of a run (retries are attempts).
 * - snapshot: a PNG a snapshot step took during a run.
 * - report: the HTML and PDF made from a run's variables and snapshots.
 * - delivery: one attempt to send a report through an interface.
 * - interface: a configured destination (webhook, Slack, SMTP, Mailgun, S3) holding secrets.
 * - space: the tenant; users have ro, rw or admin access to it.
 * - blueprint: a job template, built-in or a space's own.
 */

export const RetrySchema = z.strictObject({
  attempts: z.number().int().min(0).max(10).default(0).describe("Extra attempts after a failed one."),
  delayMinutes: z.number().int().min(0).max(1440).default(5),
});

export const JobBodySchema = z
  .strictObject({
    id: Uuid.optional().describe("On create: used if free, else 409. On replace: must equal the path's."),
    name: Name,
    description: Description,
    enabled: z.boolean().default(true),
    cron: CronExpression.nullable()
      .default(null)
      .describe('Five fields ("0 9 * * 1-5"), or null for a job that runs only on demand.'),
    timezone: TimeZone.default("UTC").describe("IANA time zone of the cron schedule."),
    retry: RetrySchema.default({ attempts: 0, delayMinutes: 5 }),
    notify: z
      .strictObject({
        minIntervalMinutes: z
          .number()
          .int()
          .min(0)
          .max(525_600)
          .default(0)
          .describe("Deliveries within this many minutes of the last delivered run are throttled."),
      })
      .default({ minIntervalMinutes: 0 }),
    retentionDays: z.number().int().min(1).max(3650).default(90).describe("Runs and files older are deleted."),
    capture: CaptureSchema,
    report: ReportSchema.optional().describe("When missing: a report with the title and every snapshot."),
    deliveries: z.array(DeliverySchema).max(20).default([]),
    // Read-only fields of a stored job, accepted so that a read can be sent back as a replacement.
    space: z.string().optional().describe("Read-only; ignored on write."),
    createdAt: z.string().optional().describe("Read-only; ignored on write."),
    updatedAt: z.string().optional().describe("Read-only; ignored on write."),
  })
  .meta({ id: "Job" });

export type JobBodyInput = z.input<typeof JobBodySchema>;
export type JobBody = z.infer<typeof JobBodySchema>;

/** A stored job as the API answers it. */
export type Job = Omit<JobBody, "id" | "space" | "createdAt" | "updatedAt"> & {
  id: string;
  space: string;
  createdAt: string;
  updatedAt: string;
};
