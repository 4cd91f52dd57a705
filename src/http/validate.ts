import type { FastifyRequest } from "fastify";
import type { z } from "zod";
import { invalid } from "../errors.js";
import { type Issue, issuesFromZod } from "../schemas/errors.js";

/** Parses a request part with its schema; a failure is a 400 naming every failing field. */
export function parseBody<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const result = schema.safeParse(value ?? {});
  if (!result.success) throw invalid(issuesFromZod(result.error));
  return result.data;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids in paths are checked before they reach a query or the file system. */
export const isUuid = (value: string) => UUID.test(value);

/** A surrogate without its pair: not Unicode text. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const unstorable = (text: string) => text.includes("\u0000") || LONE_SURROGATE.test(text);

/**
 * A preValidation hook: refuses a JSON body or query string with NUL or an unpaired surrogate in
 * any string or key. PostgreSQL stores neither (a 500), and a job body holding the JSON escape of
 * one is stored as text yet breaks every query that reads it as JSON (the health answer, for all).
 * Walked without recursion, as bodies may nest deep; paths are built only for what is refused.
 */
export async function refuseUnstorableText(request: FastifyRequest) {
  type Node = { value: unknown; key?: string | number; parent?: Node };
  const pathOf = (node: Node) => {
    const path: (string | number)[] = [];
    for (let n: Node | undefined = node; n?.key !== undefined; n = n.parent) path.push(n.key);
    return path.reverse();
  };
  const issues: Issue[] = [];
  const refuse = (node: Node) =>
    issues.length < 20 &&
    issues.push({
      path: pathOf(node),
      code: "invalid_format",
      message: "must not contain NUL (U+0000) or an unpaired surrogate",
    });
  const stack: Node[] = [{ value: request.query }];
  if (!Buffer.isBuffer(request.body)) stack.push({ value: request.body });
  while (stack.length > 0 && issues.length < 20) {
    const node = stack.pop() as Node;
    const { value } = node;
    if (typeof value === "string") {
      if (unstorable(value)) refuse(node);
    } else if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) stack.push({ value: value[i], key: i, parent: node });
    } else if (typeof value === "object" && value !== null) {
      // Object.keys, not entries: several times faster on objects with very many keys.
      for (const key of Object.keys(value)) {
        const childNode = { value: (value as Record<string, unknown>)[key], key, parent: node };
        if (unstorable(key)) refuse(childNode);
        stack.push(childNode);
      }
    }
  }
  if (issues.length > 0) throw invalid(issues);
}
