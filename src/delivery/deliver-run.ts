import { renderLimited } from "../capture/step-strings.js";
import type { Delivery } from "../schemas/delivery.js";
import type { DeliveriesRepository, DeliveryRecord } from "../storage/repositories/deliveries-repository.js";
import type { SecretHoldersRepository } from "../storage/repositories/secret-holders-repository.js";
import {
  DELIVERY_TIMEOUT_MS,
  type DeliveryOutcome,
  type DeliveryReport,
  failure,
  type RenderedBinding,
} from "./delivery.js";
import { DELIVERY_ADAPTERS } from "./registry.js";

/**
 * Delivers one run's report to every binding of its job, each on its own: one that fails does
 * not stop the others. Every attempt is a database record (sent, failed or throttled). The run's
 * state follows from what reached whom: all → success, some → partial, none → failed.
 */
export type DeliverRunInput = {
  run: { id: string; jobId: string; space: string };
  bindings: Delivery[];
  report: DeliveryReport;
  /** Template variables: the captured ones, job, run, space, now. */
  scope: Record<string, unknown>;
  /** notify.minIntervalMinutes of the job; 0 = no throttling. */
  minIntervalMinutes: number;
  interfaces: SecretHoldersRepository;
  deliveries: DeliveriesRepository;
  signal: AbortSignal;
  onRecord?: (record: DeliveryRecord) => void;
};

export type DeliverRunResult = { records: DeliveryRecord[]; state: "success" | "partial" | "failed" };

/** Message templates render off the main thread, each within this time. */
const MESSAGE_TEMPLATE_MS = 2_000;

export async function renderMessage(template: string | undefined, scope: Record<string, unknown>): Promise<string> {
  if (!template) return "";
  return renderLimited(template, scope, MESSAGE_TEMPLATE_MS, 100_000);
}

export async function deliverRun(input: DeliverRunInput): Promise<DeliverRunResult> {
  const records: DeliveryRecord[] = [];
  const save = async (
    interfaceId: string,
    type: string,
    outcome: Omit<DeliveryOutcome, "state"> & { state: DeliveryRecord["state"] },
  ) => {
    const record = await input.deliveries.record({
      runId: input.run.id,
      jobId: input.run.jobId,
      space: input.run.space,
      interfaceId,
      type,
      target: outcome.target,
      state: outcome.state,
      error: outcome.error,
      status: outcome.status,
    });
    records.push(record);
    input.onRecord?.(record);
  };

  if (input.minIntervalMinutes > 0 && input.bindings.length > 0) {
    const last = await input.deliveries.lastSentAt(input.run.jobId);
    if (last && Date.now() - Date.parse(last) < input.minIntervalMinutes * 60_000) {
      for (const binding of input.bindings) {
        const holder = await input.interfaces.get(input.run.space, binding.interfaceId);
        await save(binding.interfaceId, holder?.kind ?? "unknown", {
          state: "throttled",
          target: null,
          status: null,
          error: `a report of this job was delivered at ${last}, less than ${input.minIntervalMinutes} minutes ago`,
        });
      }
      return { records, state: "success" };
    }
  }

  // Bindings go out together; each waits for its receiver at most a minute per step.
  await Promise.all(
    input.bindings.map(async (binding) => {
      const holder = await input.interfaces.getWithSecrets(input.run.space, binding.interfaceId);
      if (!holder) {
        await save(binding.interfaceId, "unknown", failure(null, "the delivery interface no longer exists"));
        return;
      }
      const adapter = DELIVERY_ADAPTERS[holder.kind as keyof typeof DELIVERY_ADAPTERS];
      let rendered: RenderedBinding;
      try {
        rendered = {
          message: await renderMessage(binding.message, input.scope),
          subject: await renderMessage(binding.subject, input.scope),
          jsonBody: binding.jsonBody ? await renderMessage(binding.jsonBody, input.scope) : null,
          recipients: binding.recipients,
          attach: binding.attach,
          formats: binding.formats,
        };
      } catch (error) {
        await save(binding.interfaceId, holder.kind, failure(null, `message template: ${(error as Error).message}`));
        return;
      }
      const config = { ...holder.config, ...holder.secrets } as never;
      const signal = AbortSignal.any([input.signal, AbortSignal.timeout(DELIVERY_TIMEOUT_MS * 3)]);
      let outcomes: DeliveryOutcome[];
      try {
        outcomes = await adapter.deliver(input.report, rendered, config, signal);
      } catch (error) {
        outcomes = [failure(null, error)];
      }
      for (const outcome of outcomes) await save(binding.interfaceId, holder.kind, redact(outcome, holder.secrets));
    }),
  );

  const attempted = records.filter((r) => r.state !== "throttled");
  const sent = attempted.filter((r) => r.state === "sent").length;
  const state = attempted.length === 0 || sent === attempted.length ? "success" : sent > 0 ? "partial" : "failed";
  return { records, state };
}

/** A receiver's error text may quote what it was sent: never let a secret into the run record. */
export function redact(outcome: DeliveryOutcome, secrets: Record<string, unknown>): DeliveryOutcome {
  if (!outcome.error) return outcome;
  let error = outcome.error;
  // Longest first, so that a whole URL is masked before its parts.
  const parts = [...new Set(Object.values(secrets).flatMap(secretParts))].sort((a, b) => b.length - a.length);
  for (const part of parts) error = error.replaceAll(part, "***");
  return { ...outcome, error };
}

/**
 * What of a secret may show up in a receiver's answer: the value, and for a URL its path, query
 * and each query value (raw and encoded); for "Bearer x" / "Basic x" the token alone.
 */
function secretParts(value: unknown): string[] {
  if (value && typeof value === "object") return Object.values(value).flatMap(secretParts);
  if (typeof value !== "string" || value.length < 4) return [];
  const parts = [value];
  const token = /^(?:Bearer|Basic|Token|Bot)\s+(\S{4,})$/i.exec(value)?.[1];
  if (token) parts.push(token);
  if (/^https?:\/\//i.test(value)) {
    try {
      const url = new URL(value);
      if (url.pathname.length > 1) parts.push(url.pathname, decodeURIComponent(url.pathname));
      if (url.search.length > 1) parts.push(url.search, url.search.slice(1));
      for (const v of url.searchParams.values()) if (v.length >= 4) parts.push(v, encodeURIComponent(v));
      if (url.password) parts.push(url.password);
    } catch {
      // not a URL after all: the whole value is masked already
    }
  }
  return parts.filter((p) => p.length >= 4);
}
