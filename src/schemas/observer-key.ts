import { z } from "zod";

/**
 * Observer keys (DESIGN.md "Operations endpoints"): named credentials that read the full health
 * listing and /metrics and open nothing else. The key is answered once, on creation.
 */
export const ObserverKeyCreateSchema = z.strictObject({
  name: z.string().trim().min(1).max(100),
});
export type ObserverKeyCreate = z.infer<typeof ObserverKeyCreateSchema>;

export const ObserverKeySchema = z.object({
  id: z.uuid(),
  name: z.string(),
  createdAt: z.string(),
  /** Written at most once a minute per key. */
  lastUsedAt: z.string().nullable(),
});
export type ObserverKey = z.infer<typeof ObserverKeySchema>;

/** The answer of POST: the only time the key itself is sent. */
export const ObserverKeyCreatedSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  key: z.string(),
});
export type ObserverKeyCreated = z.infer<typeof ObserverKeyCreatedSchema>;
