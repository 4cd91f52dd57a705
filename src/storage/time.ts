/** Timestamps are stored as ISO 8601 UTC strings with milliseconds (see schema.ts). */
export const nowIso = (at: Date = new Date()) => at.toISOString();
