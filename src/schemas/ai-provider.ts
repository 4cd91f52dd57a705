import { z } from "zod";
import { HttpUrl, Name } from "./rules.js";

/** AI providers: OpenAI or any OpenAI-compatible endpoint. The API key is write-only. */
const base = {
  name: Name,
  vendor: z.enum(["openai", "openai-compatible"]),
  endpoint: HttpUrl.optional().describe("Base URL of an OpenAI-compatible API (…/v1); required for openai-compatible."),
  model: z.string().min(1).max(200),
};

const needsEndpoint = (v: { vendor: string; endpoint?: string }) => v.vendor !== "openai-compatible" || !!v.endpoint;
const endpointIssue = { message: "an openai-compatible provider needs an endpoint", path: ["endpoint"] };

export const AiProviderCreateSchema = z
  .strictObject({ ...base, apiKey: z.string().min(1).max(1000).describe("Secret.") })
  .refine(needsEndpoint, endpointIssue)
  .meta({ id: "AiProviderWrite" });

export const AiProviderUpdateSchema = z
  .strictObject({ ...base, apiKey: z.string().min(1).max(1000).optional() })
  .refine(needsEndpoint, endpointIssue);

export const AiProviderSchema = z
  .object({
    id: z.uuid(),
    space: z.string(),
    name: z.string(),
    vendor: z.enum(["openai", "openai-compatible"]),
    endpoint: z.string().nullable(),
    model: z.string(),
    apiKeySet: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: "AiProvider" });

export type AiProvider = z.infer<typeof AiProviderSchema>;
