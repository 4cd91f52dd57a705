/**
 * The server's types, taken from its zod schemas (src/schemas): one source for both sides.
 * Type-only imports, so none of the schema code reaches the bundle.
 */
import type { z } from "zod";
import type { AiProviderSchema } from "../../src/schemas/ai-provider.js";
import type { BlueprintBody } from "../../src/schemas/blueprint.js";
import type { CaptureStep } from "../../src/schemas/capture.js";
import type { ContextSchema } from "../../src/schemas/context.js";
import type { DeliveryInterfaceSchema, DeliveryType } from "../../src/schemas/delivery-interface.js";
import type { HealthSchema } from "../../src/schemas/health.js";
import type { Job, JobBodyInput } from "../../src/schemas/job.js";
import type { RunSchema, RunStateSchema, RunStepSchema, StreamEndSchema } from "../../src/schemas/run.js";

export type Context = z.infer<typeof ContextSchema>;
export type Access = Context["spaces"][number]["access"];
export type SpaceAccess = Context["spaces"][number];
export type Run = z.infer<typeof RunSchema>;
export type RunState = z.infer<typeof RunStateSchema>;
export type RunStep = z.infer<typeof RunStepSchema>;
export type StreamEnd = z.infer<typeof StreamEndSchema>;
export type DeliveryInterface = z.infer<typeof DeliveryInterfaceSchema>;
export type AiProvider = z.infer<typeof AiProviderSchema>;
export type Health = z.infer<typeof HealthSchema>;
export type HealthStatus = Health["status"];
export type Blueprint = BlueprintBody & { id: string; builtIn: boolean; space: string | null };
export type { CaptureStep, DeliveryType, Job, JobBodyInput };

export type Items<T> = { items: T[] };
export type RunPage = { items: Run[]; nextCursor: string | null };
