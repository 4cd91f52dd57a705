import type { AppContext } from "../app-context.js";
import { conflict, licenseLimit, notFound } from "../errors.js";
import { readHealthAlertsSettings } from "../health/health-alerts-settings.js";
import { inUse, jobsUsing } from "../jobs/jobs-service.js";
import { DELIVERY_TYPES, type DeliveryInterface, type DeliveryType } from "../schemas/delivery-interface.js";
import type { SecretHolder } from "../storage/repositories/secret-holders-repository.js";

/**
 * Delivery interfaces: the config of each type is split into the stored non-secret part and the
 * sealed secret part. A webhook's URL and header values are secrets; reads show its host and
 * header names.
 */
type WriteInput = { name: string; type: DeliveryType; config: Record<string, unknown> };

function split(input: WriteInput, previous?: SecretHolder) {
  const secretFields = DELIVERY_TYPES[input.type].secretFields as readonly string[];
  const config: Record<string, unknown> = {};
  const secrets: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input.config)) {
    if (secretFields.includes(key)) secrets[key] = value;
    else config[key] = value;
  }
  if (input.type === "webhook") {
    const kept = previous?.kind === "webhook" ? previous.config : {};
    config.host = typeof secrets.url === "string" ? new URL(secrets.url.replace(/\{\{.*?\}\}/g, "x")).host : kept.host;
    config.headerNames =
      secrets.headers !== undefined ? Object.keys(secrets.headers as object) : (kept.headerNames ?? []);
  }
  return { name: input.name, kind: input.type, config, secrets };
}

export function presentInterface(holder: SecretHolder): DeliveryInterface {
  const type = holder.kind as DeliveryType;
  const secretsSet = Object.fromEntries(
    (DELIVERY_TYPES[type]?.secretFields ?? []).map((field) => [field, holder.secretNames.includes(field)]),
  );
  return {
    id: holder.id,
    space: holder.space,
    name: holder.name,
    type,
    config: holder.config,
    secretsSet,
    createdAt: holder.createdAt,
    updatedAt: holder.updatedAt,
  };
}

export async function createInterface(ctx: AppContext, spaceId: string, input: WriteInput) {
  const max = ctx.config.limits.deliveryInterfaces;
  const created = await ctx.interfaces.create(spaceId, split(input), max);
  if (created === "limit") throw licenseLimit("deliveryInterfaces", max ?? 0);
  if (created === "conflict") throw new Error("generated id collided");
  return presentInterface(created);
}

export async function updateInterface(ctx: AppContext, spaceId: string, id: string, input: WriteInput) {
  const previous = await ctx.interfaces.get(spaceId, id);
  if (!previous) throw notFound();
  // A type change drops the secrets of the old type: they mean nothing to the new one.
  const parts = split(input, previous);
  if (previous.kind !== input.type) {
    const stale = DELIVERY_TYPES[previous.kind as DeliveryType]?.secretFields ?? [];
    for (const field of stale) if (!(field in parts.secrets)) parts.secrets[field] = null;
  }
  await ctx.interfaces.update(spaceId, id, parts);
  const updated = await ctx.interfaces.get(spaceId, id);
  if (!updated) throw notFound();
  return presentInterface(updated);
}

/** Refused (409) while a job binds it or the health alerts send through it, naming them. */
export async function deleteInterface(ctx: AppContext, spaceId: string, id: string) {
  const holder = await ctx.interfaces.get(spaceId, id);
  if (!holder) throw notFound();
  const jobs = await jobsUsing(ctx, spaceId, { interfaceId: id });
  if (jobs.length > 0) throw inUse(`The interface “${holder.name}”`, jobs);
  const alerts = await readHealthAlertsSettings(ctx.storage.db);
  if (alerts.deliveryInterfaceId === id && alerts.space === spaceId) {
    throw conflict(`The interface “${holder.name}” sends the health alerts; choose another in Settings first`);
  }
  if (!(await ctx.interfaces.delete(spaceId, id))) throw notFound();
}
