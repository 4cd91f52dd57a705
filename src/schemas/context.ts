import { z } from "zod";

export const AccessSchema = z.enum(["ro", "rw", "admin"]);

export const UserSchema = z
  .object({
    id: z.uuid(),
    username: z.string(),
    systemRole: z.enum(["system", "user"]),
    email: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: "User" });

export const LimitsSchema = z
  .object({
    edition: z.string().describe('"unlimited", or "limited" when any LIMIT_* is set.'),
    jobs: z.number().int().nullable().describe("Jobs per space; null = unlimited."),
    deliveryInterfaces: z.number().int().nullable(),
    aiProviders: z.number().int().nullable(),
    captureSteps: z.number().int().describe("Steps per job, nested ones included."),
  })
  .meta({ id: "Limits" });

export const ContextSchema = z
  .object({
    user: UserSchema,
    spaces: z.array(z.object({ id: z.string(), name: z.string(), access: AccessSchema })),
    limits: LimitsSchema,
    usage: z
      .record(
        z.string(),
        z.object({ jobs: z.number().int(), deliveryInterfaces: z.number().int(), aiProviders: z.number().int() }),
      )
      .describe("Per space id: what counts against the limits."),
    version: z.string(),
    guide: z.literal("/llms.txt"),
  })
  .meta({ id: "Context" });

export const LoginSchema = z
  .strictObject({ username: z.string().min(1).max(200), password: z.string().min(1).max(1000) })
  .meta({ id: "Login" });
