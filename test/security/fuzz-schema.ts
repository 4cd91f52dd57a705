import { EXTRA_KEYS } from "./fuzz-bodies.js";
import { hostileString, hostileValue, type Rng, randomUuid } from "./fuzz-random.js";

/** Random instances of a body's JSON Schema (from the OpenAPI description or a zod schema). */

export type JsonSchema = Record<string, unknown>;

/** A schema and the document its `$ref`s point into (an OpenAPI description, or itself). */
export type SchemaRef = { schema: JsonSchema; root: JsonSchema };

/** Follows `$ref`s (JSON pointers into the root document) to the schema they name. */
function resolve(ref: SchemaRef): SchemaRef {
  let { schema } = ref;
  for (let hops = 0; typeof schema.$ref === "string" && hops < 20; hops++) {
    const pointer = (schema.$ref as string).replace(/^#/, "");
    schema = pointer
      .split("/")
      .filter(Boolean)
      .reduce<unknown>(
        (node, part) => (node as Record<string, unknown>)[part.replace(/~1/g, "/").replace(/~0/g, "~")],
        ref.root,
      ) as JsonSchema;
  }
  return { schema: schema ?? {}, root: ref.root };
}

/**
 * A random instance of a JSON Schema that is mostly right and often wrong: fields left out or
 * added, values at and beyond their bounds, strings from the hostile list.
 */
export function fromSchema(ref: SchemaRef, rng: Rng, ids: string[], depth = 0): unknown {
  const { schema, root } = resolve(ref);
  const sub = (s: unknown) => fromSchema({ schema: (s ?? {}) as JsonSchema, root }, rng, ids, depth + 1);
  if (depth > 7 || rng.chance(0.06)) return hostileValue(rng);
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum)) return rng.chance(0.9) ? rng.pick(schema.enum) : hostileString(rng);
  const union = (schema.anyOf ?? schema.oneOf ?? schema.allOf) as unknown[] | undefined;
  if (Array.isArray(union) && union.length > 0) {
    if (schema.allOf) {
      return Object.assign({}, ...union.map((s) => sub(s)).filter((v) => typeof v === "object" && v !== null));
    }
    return sub(rng.pick(union));
  }
  const type = Array.isArray(schema.type) ? rng.pick(schema.type as string[]) : schema.type;
  const num = (key: string) => (typeof schema[key] === "number" ? (schema[key] as number) : undefined);
  switch (type) {
    case "object": {
      const out: Record<string, unknown> = {};
      const required = new Set((schema.required as string[] | undefined) ?? []);
      for (const [key, value] of Object.entries((schema.properties ?? {}) as Record<string, unknown>)) {
        if (rng.chance(required.has(key) ? 0.93 : 0.55)) out[key] = sub(value);
      }
      if (schema.additionalProperties && typeof schema.additionalProperties === "object") {
        for (let i = rng.int(3); i > 0; i--) out[rng.chance(0.5) ? `k${i}` : hostileString(rng)] = sub({});
      }
      if (rng.chance(0.05)) out[rng.pick(EXTRA_KEYS)] = hostileValue(rng);
      return out;
    }
    case "array": {
      const min = num("minItems") ?? 0;
      const max = num("maxItems") ?? 4;
      const length = rng.pick([min, Math.min(max, min + 1), Math.min(max, min + 3), Math.max(0, min - 1), max + 1]);
      return Array.from({ length: Math.min(length, 200) }, () => sub(schema.items));
    }
    case "string": {
      if (rng.chance(0.35)) return hostileString(rng);
      const max = num("maxLength");
      if (max !== undefined && rng.chance(0.1)) return "m".repeat(max + 1);
      switch (schema.format) {
        case "uuid":
          return rng.chance(0.5) && ids.length > 0 ? rng.pick(ids) : randomUuid(rng);
        case "email":
          return rng.pick(["ops@example.com", "a@b.c", "Name <n@example.com>"]);
        case "date-time":
          return rng.pick(["2024-01-01T00:00:00Z", "2024-01-01T00:00:00.000+02:00"]);
        case "uri":
        case "url":
          return "http://127.0.0.1:1/x";
      }
      return rng.pick(["fuzz", "http://127.0.0.1:1/x", "0 9 * * 1", "UTC", "#1f2937", "errors > 1", "a_b"]);
    }
    case "integer":
    case "number": {
      const min = num("minimum");
      const max = num("maximum");
      const edges = [min, max, min === undefined ? undefined : min - 1, max === undefined ? undefined : max + 1];
      const value = rng.pick([...edges.filter((v) => v !== undefined), 0, 1, 0.5, 1e308, -1]);
      return value;
    }
    case "boolean":
      return rng.chance(0.9) ? rng.chance(0.5) : hostileValue(rng);
    case "null":
      return null;
    default:
      return hostileValue(rng);
  }
}
