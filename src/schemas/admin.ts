import { z } from "zod";
import { AccessSchema } from "./context.js";

const Username = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .regex(/^[^\s:]+$/, "a user name without spaces or colons");

export const UserCreateSchema = z.strictObject({
  username: Username,
  password: z.string().min(8, "at least 8 characters").max(1000),
  systemRole: z.enum(["system", "user"]).default("user"),
  email: z.email().nullable().optional(),
});

/** Every field optional: a missing password keeps the current one. */
export const UserUpdateSchema = z.strictObject({
  username: Username.optional(),
  password: z.string().min(8, "at least 8 characters").max(1000).optional(),
  systemRole: z.enum(["system", "user"]).optional(),
  email: z.email().nullable().optional(),
});

export const SpaceCreateSchema = z.strictObject({
  id: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, "lower-case letters, digits and -, starting with a letter or digit (≤ 63)"),
  name: z.string().trim().min(1).max(200),
});

export const MemberSchema = z.strictObject({ access: AccessSchema });
