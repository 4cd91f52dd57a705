import crypto from "node:crypto";
import type { Kysely } from "kysely";
import type { AuditRow, Database } from "../storage/schema.js";
import { nowIso } from "../storage/time.js";

export type AuditTargetType =
  | "job"
  | "blueprint"
  | "delivery_interface"
  | "ai_provider"
  | "user"
  | "space"
  | "member"
  | "setting"
  | "observer_key"
  | "run";
export type AuditAction = "create" | "update" | "delete" | "run" | "test";

export type AuditEntry = {
  id: string;
  at: string;
  space: string | null;
  actor: { id: string | null; username: string };
  action: AuditAction;
  target: { type: AuditTargetType; id: string; name: string };
  changes: Record<string, unknown>;
};

/** A change too large for the log keeps the names of the fields it touched. */
const MAX_CHANGES = 16 * 1024;

/** What an entry records. `before`/`after` are what a reader of the API sees: never secrets. */
export type AuditInput = {
  actor: { id: string; username: string } | null;
  space: string | null;
  action: AuditAction;
  type: AuditTargetType;
  id: string;
  name: string;
  before?: unknown;
  after?: unknown;
};

/** Fields that change on every write and say nothing about what the person changed. */
const NOISE = new Set(["updatedAt", "createdAt"]);

/** JSON with object keys sorted: two values that differ only in key order compare equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}

/** The top-level fields whose values differ, each as {from, to}. */
export function changedFields(before: unknown, after: unknown): Record<string, { from: unknown; to: unknown }> {
  const a = (before ?? {}) as Record<string, unknown>;
  const b = (after ?? {}) as Record<string, unknown>;
  const fields: Record<string, { from: unknown; to: unknown }> = {};
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (NOISE.has(key)) continue;
    if (canonical(a[key]) !== canonical(b[key])) fields[key] = { from: a[key] ?? null, to: b[key] ?? null };
  }
  return fields;
}

function changesOf(input: AuditInput): string {
  const changes =
    input.action === "update"
      ? { fields: changedFields(input.before, input.after) }
      : input.action === "delete"
        ? { before: input.before ?? null }
        : { after: input.after ?? null };
  const text = JSON.stringify(changes);
  if (text.length <= MAX_CHANGES) return text;
  const names = input.action === "update" ? Object.keys(changedFields(input.before, input.after)) : [];
  return JSON.stringify({ truncated: true, fields: names });
}

const toEntry = (row: AuditRow): AuditEntry => ({
  id: row.id,
  at: row.at,
  space: row.space_id,
  actor: { id: row.actor_id, username: row.actor_name },
  action: row.action as AuditAction,
  target: { type: row.target_type as AuditTargetType, id: row.target_id, name: row.target_name },
  changes: JSON.parse(row.changes),
});

const encodeCursor = (row: { at: string; id: string }) => Buffer.from(`${row.at}|${row.id}`).toString("base64url");
export function decodeAuditCursor(cursor: string): { at: string; id: string } | undefined {
  const [at, id] = Buffer.from(cursor, "base64url").toString().split("|");
  // Exactly what encodeCursor writes (an ISO time, a UUID): Date.parse alone lets through
  // "Jan 1 2024 (\0)", and any id, where PostgreSQL answers a NUL with an error.
  const valid = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/.test(at ?? "") && /^[0-9a-f-]{36}$/.test(id ?? "");
  return valid ? { at, id } : undefined;
}

/**
 * The audit log: an entry per change made through the API or the web app, kept for
 * AUDIT_RETENTION_DAYS. Writing an entry never fails the change it records: a failure is logged.
 */
export function createAuditLog(db: Kysely<Database>, onError: (error: unknown) => void) {
  return {
    async record(input: AuditInput): Promise<void> {
      try {
        await db
          .insertInto("audit_log")
          .values({
            id: crypto.randomUUID(),
            at: nowIso(),
            space_id: input.space,
            actor_id: input.actor?.id ?? null,
            actor_name: input.actor?.username ?? "system",
            action: input.action,
            target_type: input.type,
            target_id: input.id,
            target_name: input.name.slice(0, 300),
            changes: changesOf(input),
          })
          .execute();
      } catch (error) {
        onError(error);
      }
    },

    /** Newest first, keyset-paged; `space` undefined: every entry (system users). */
    async page(filter: {
      space?: string;
      type?: AuditTargetType;
      targetId?: string;
      limit: number;
      cursor?: { at: string; id: string };
    }) {
      let query = db.selectFrom("audit_log").selectAll();
      if (filter.space !== undefined) query = query.where("space_id", "=", filter.space);
      if (filter.type) query = query.where("target_type", "=", filter.type);
      if (filter.targetId) query = query.where("target_id", "=", filter.targetId);
      const { cursor } = filter;
      if (cursor) {
        query = query.where((e) =>
          e.or([e("at", "<", cursor.at), e.and([e("at", "=", cursor.at), e("id", "<", cursor.id)])]),
        );
      }
      const rows = await query
        .orderBy("at", "desc")
        .orderBy("id", "desc")
        .limit(filter.limit + 1)
        .execute();
      const items = rows.slice(0, filter.limit);
      return {
        items: items.map(toEntry),
        nextCursor: rows.length > filter.limit ? encodeCursor(items[items.length - 1]) : null,
      };
    },

    /** Deletes entries older than `before`; answers how many. */
    async deleteBefore(before: Date): Promise<number> {
      const result = await db.deleteFrom("audit_log").where("at", "<", nowIso(before)).executeTakeFirst();
      return Number(result.numDeletedRows ?? 0);
    },
  };
}

export type AuditLog = ReturnType<typeof createAuditLog>;
