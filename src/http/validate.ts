import type { z } from "zod";
import { invalid } from "../errors.js";
import { issuesFromZod } from "../schemas/errors.js";

/** Parses a request part with its schema; a failure is a 400 naming every failing field. */
export function parseBody<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const result = schema.safeParse(value ?? {});
  if (!result.success) throw invalid(issuesFromZod(result.error));
  return result.data;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids in paths are checked before they reach a query or the file system. */
export const isUuid = (value: string) => UUID.test(value);
