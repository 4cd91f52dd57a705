import { z } from "zod";

export const AUDIT_TARGET_TYPES = [
  "job",
  "blueprint",
  "delivery_interface",
  "ai_provider",
  "user",
  "space",
  "member",
  "setting",
  "observer_key",
  "run",
] as const;

/** The query of an audit log page: newest first, keyset-paged. */
export const AuditQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(500).optional(),
  type: z.enum(AUDIT_TARGET_TYPES).optional(),
  targetId: z.string().min(1).max(200).optional(),
  /** System users only: one space's entries ("" for the system-wide ones is not offered). */
  space: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, "a space id")
    .optional(),
});
