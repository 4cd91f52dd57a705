import { z } from "zod";
import { AiProviderCreateSchema, AiProviderSchema } from "../schemas/ai-provider.js";
import { BlueprintBodySchema } from "../schemas/blueprint.js";
import { CaptureSchema, CaptureStepSchema } from "../schemas/capture.js";
import { ContextSchema, LimitsSchema, LoginSchema, UserSchema } from "../schemas/context.js";
import { DeliverySchema } from "../schemas/delivery.js";
import { DeliveryInterfaceCreateSchema, DeliveryInterfaceSchema } from "../schemas/delivery-interface.js";
import { ErrorSchema } from "../schemas/errors.js";
import { HealthSchema } from "../schemas/health.js";
import { JobBodySchema } from "../schemas/job.js";
import { ReportBlockSchema, ReportSchema } from "../schemas/report.js";
import { RunPageSchema, RunSchema, StreamEndSchema } from "../schemas/run.js";

/**
 * The bodies published at /llms/schema/{Name}.json and in the OpenAPI components, generated from
 * the zod schemas the server validates with. Request bodies are shown as accepted (defaults make
 * fields optional); answers as sent.
 */
export const PUBLISHED_SCHEMAS: Record<string, z.ZodType> = {
  Job: JobBodySchema,
  Blueprint: BlueprintBodySchema,
  Capture: CaptureSchema,
  CaptureStep: CaptureStepSchema,
  Report: ReportSchema,
  ReportBlock: ReportBlockSchema,
  Delivery: DeliverySchema,
  Run: RunSchema,
  RunPage: RunPageSchema,
  StreamEnd: StreamEndSchema,
  DeliveryInterface: DeliveryInterfaceSchema,
  DeliveryInterfaceWrite: DeliveryInterfaceCreateSchema,
  AiProvider: AiProviderSchema,
  AiProviderWrite: AiProviderCreateSchema,
  Context: ContextSchema,
  Limits: LimitsSchema,
  User: UserSchema,
  Login: LoginSchema,
  Health: HealthSchema,
  Error: ErrorSchema,
};

const cache = new Map<string, object>();

/** The JSON Schema of one published body, or undefined for an unknown name. */
export function jsonSchemaOf(name: string): object | undefined {
  if (!Object.hasOwn(PUBLISHED_SCHEMAS, name)) return undefined;
  let schema = cache.get(name);
  if (!schema) {
    schema = {
      $id: `/llms/schema/${name}.json`,
      ...z.toJSONSchema(PUBLISHED_SCHEMAS[name], { io: "input", unrepresentable: "any", target: "draft-2020-12" }),
    };
    cache.set(name, schema);
  }
  return schema;
}

/** Every published schema as OpenAPI components, referencing each other by name. */
export function componentSchemas(): Record<string, object> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(PUBLISHED_SCHEMAS)) registry.add(schema, { id });
  // Nested schemas with their own ids (CaptureStep inside Job …) are found through their meta.
  const { schemas } = z.toJSONSchema(registry, {
    io: "input",
    unrepresentable: "any",
    target: "draft-2020-12",
    uri: (id) => `#/components/schemas/${id}`,
  });
  return Object.fromEntries(
    Object.entries(schemas).map(([id, s]) => {
      const { $schema: _s, $id: _i, ...rest } = s as Record<string, unknown>;
      return [id, rest];
    }),
  );
}
