import { z } from "zod";

export const HealthStatusSchema = z.enum(["green", "yellow", "red", "gray"]);

export const HealthSchema = z
  .object({
    status: HealthStatusSchema.describe("The worst colour present (red > yellow > gray > green)."),
    counts: z.object({ green: z.number(), yellow: z.number(), red: z.number(), gray: z.number() }),
    jobs: z.array(
      z.object({
        id: z.string().optional(),
        name: z.string().optional(),
        description: z.string().optional(),
        cron: z.string().nullable().optional(),
        healthStatus: HealthStatusSchema,
        recentRuns: z.array(z.object({ runAt: z.string(), state: z.string() })).optional(),
      }),
    ),
    deliveryInterfaces: z.array(
      z.object({
        id: z.string().optional(),
        name: z.string().optional(),
        type: z.string().optional(),
        healthStatus: HealthStatusSchema,
        summary24Hours: z
          .object({
            totalCount: z.number(),
            errorCount: z.number(),
            errors: z.array(z.object({ at: z.string(), runId: z.string(), jobId: z.string(), message: z.string() })),
          })
          .optional(),
      }),
    ),
  })
  .meta({ id: "Health" });
