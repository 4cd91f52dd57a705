import fs from "node:fs";
import { z } from "zod";
import { BUILTIN_BLUEPRINTS } from "../blueprints/builtin-blueprints.js";
import type { Config } from "../config/config.js";
import { FUNCTIONS } from "../expressions/expression.js";
import { CaptureAuthSchema, STEP_SCHEMAS } from "../schemas/capture.js";
import { DeliverySchema } from "../schemas/delivery.js";
import { DELIVERY_TYPES } from "../schemas/delivery-interface.js";
import { BLOCK_SCHEMAS } from "../schemas/report.js";
import { VERSION } from "../version.js";

/**
 * The guide for AI agents: /llms.txt and one Markdown page per topic. The prose lives in
 * ./pages/*.md; reference sections marked `<!-- generated:NAME -->` are produced here from the
 * zod schemas, so the guide cannot drift from what the server accepts.
 */
export const GUIDE_PAGES = ["concepts", "jobs", "capture", "template", "delivery", "runs", "api"] as const;
export type GuidePage = (typeof GUIDE_PAGES)[number];

const PAGES_DIR = new URL("./pages/", import.meta.url);

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  default?: unknown;
  description?: string;
  enum?: unknown[];
  const?: unknown;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  format?: string;
  $ref?: string;
};

function typeOf(s: JsonSchema): string {
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(" \\| ");
  const alternatives = s.anyOf ?? s.oneOf;
  if (alternatives) return alternatives.map(typeOf).join(" \\| ");
  if (s.$ref) return s.$ref.split("/").pop() ?? "object";
  if (s.type === "array") return `${s.items ? typeOf(s.items) : "any"}[]`;
  const base = Array.isArray(s.type) ? s.type.join(" \\| ") : (s.type ?? "any");
  const range = s.minimum !== undefined || s.maximum !== undefined ? ` ${s.minimum ?? "…"}–${s.maximum ?? "…"}` : "";
  return `${s.format ?? base}${range}`;
}

/** A Markdown table of an object schema's fields (the `type` discriminator left out). */
export function fieldsTable(schema: z.ZodType): string {
  const json = resolveRoot(z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema);
  const required = new Set(json.required ?? []);
  const rows = Object.entries(json.properties ?? {})
    .filter(([name]) => name !== "type")
    .map(([name, field]) => {
      const needed = required.has(name) && field.default === undefined ? "yes" : "";
      const def = field.default === undefined ? "" : `\`${JSON.stringify(field.default)}\``;
      return `| \`${name}\` | ${typeOf(field)} | ${needed} | ${def} | ${(field.description ?? "").replace(/\|/g, "\\|")} |`;
    });
  if (rows.length === 0) return "No fields besides `type`.";
  return ["| field | type | required | default | notes |", "|---|---|---|---|---|", ...rows].join("\n");
}

/** A schema with an id comes back as a $ref into $defs: the object itself is there. */
function resolveRoot(json: JsonSchema & { $defs?: Record<string, JsonSchema> }): JsonSchema {
  const name = json.$ref?.startsWith("#/$defs/") ? json.$ref.slice("#/$defs/".length) : undefined;
  return name && json.$defs?.[name] ? json.$defs[name] : json;
}

const describe = (schema: z.ZodType) =>
  resolveRoot(z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema).description ?? "";

function typeSections(schemas: Record<string, z.ZodType>): string {
  return Object.entries(schemas)
    .map(([type, schema]) => `### \`${type}\`\n\n${describe(schema)}\n\n${fieldsTable(schema)}`)
    .join("\n\n");
}

function generated(name: string, config: Config): string {
  switch (name) {
    case "step-types":
      return typeSections(STEP_SCHEMAS);
    case "block-types":
      return typeSections(BLOCK_SCHEMAS);
    case "capture-auth":
      return `| type | fields |\n|---|---|\n| \`none\` | (default) no authentication |\n| \`basic\` | \`username\`, \`password\`: HTTP basic auth, sent only to the origin of each navigation |\n\n${describe(CaptureAuthSchema)}`;
    case "delivery-fields":
      return fieldsTable(DeliverySchema);
    case "interface-types":
      return Object.entries(DELIVERY_TYPES)
        .map(
          ([type, def]) =>
            `### \`${type}\`\n\nSecret fields (write-only, never returned): ${def.secretFields.map((f) => `\`${f}\``).join(", ")}.\n\n${fieldsTable(def.config)}`,
        )
        .join("\n\n");
    case "expression-functions":
      return Object.values(FUNCTIONS)
        .map((f) => `- \`${f.help}\``)
        .join("\n");
    case "blueprints":
      return BUILTIN_BLUEPRINTS.map((b) => `- \`${b.id}\`: **${b.name}**. ${b.description}`).join("\n");
    case "limits": {
      const l = config.limits;
      const show = (v: number | null) => (v === null ? "unlimited" : String(v));
      return [
        `- jobs per space: ${show(l.jobs)}`,
        `- delivery interfaces per space: ${show(l.deliveryInterfaces)}`,
        `- AI providers per space: ${show(l.aiProviders)}`,
        `- steps per job (nested included): ${l.captureSteps}`,
      ].join("\n");
    }
    default:
      throw new Error(`unknown generated section ${name}`);
  }
}

/** Reads a page and fills in its generated sections and the instance's base URL. */
export function renderPage(file: string, config: Config): string {
  const source = fs.readFileSync(new URL(file, PAGES_DIR), "utf8");
  return source
    .replace(/<!-- generated:([a-z-]+) -->/g, (_m, name: string) => generated(name, config))
    .replaceAll("{base_url}", config.publicUrl)
    .replaceAll("{version}", VERSION);
}

export function createGuide(config: Config) {
  // Pages are rendered once per process: they depend only on the code and the configuration.
  const pages = new Map<string, string>();
  const get = (file: string) => {
    let page = pages.get(file);
    if (page === undefined) {
      page = renderPage(file, config);
      pages.set(file, page);
    }
    return page;
  };
  return {
    index: () => get("llms.txt"),
    page: (name: string) => ((GUIDE_PAGES as readonly string[]).includes(name) ? get(`${name}.md`) : undefined),
  };
}
