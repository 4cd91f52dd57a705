import type { AppContext } from "../app-context.js";
import { licenseLimit, notFound } from "../errors.js";
import { inUse, jobsUsing } from "../jobs/jobs-service.js";
import type { AiProvider } from "../schemas/ai-provider.js";
import type { SecretHolder } from "../storage/repositories/secret-holders-repository.js";

type WriteInput = {
  name: string;
  vendor: "openai" | "openai-compatible";
  endpoint?: string;
  model: string;
  apiKey?: string;
};

export function presentProvider(holder: SecretHolder): AiProvider {
  return {
    id: holder.id,
    space: holder.space,
    name: holder.name,
    vendor: holder.kind as AiProvider["vendor"],
    endpoint: (holder.config.endpoint as string | undefined) ?? null,
    model: String(holder.config.model),
    apiKeySet: holder.secretNames.includes("apiKey"),
    createdAt: holder.createdAt,
    updatedAt: holder.updatedAt,
  };
}

const parts = (input: WriteInput) => ({
  name: input.name,
  kind: input.vendor,
  config: { endpoint: input.endpoint, model: input.model },
  secrets: { apiKey: input.apiKey },
});

export async function createProvider(ctx: AppContext, spaceId: string, input: WriteInput) {
  const max = ctx.config.limits.aiProviders;
  const created = await ctx.providers.create(spaceId, parts(input), max);
  if (created === "limit") throw licenseLimit("aiProviders", max ?? 0);
  if (created === "conflict") throw new Error("generated id collided");
  return presentProvider(created);
}

export async function updateProvider(ctx: AppContext, spaceId: string, id: string, input: WriteInput) {
  if (!(await ctx.providers.update(spaceId, id, parts(input)))) throw notFound();
  const updated = await ctx.providers.get(spaceId, id);
  if (!updated) throw notFound();
  return presentProvider(updated);
}

/** Refused (409) while an `ai` step of a job asks it, naming the jobs. */
export async function deleteProvider(ctx: AppContext, spaceId: string, id: string) {
  const holder = await ctx.providers.get(spaceId, id);
  if (!holder) throw notFound();
  const jobs = await jobsUsing(ctx, spaceId, { providerId: id });
  if (jobs.length > 0) throw inUse(`The AI provider “${holder.name}”`, jobs);
  if (!(await ctx.providers.delete(spaceId, id))) throw notFound();
}
