import type { SecretHoldersRepository } from "../storage/repositories/secret-holders-repository.js";
import { redact } from "./deliver-run.js";
import { DELIVERY_TIMEOUT_MS, type DeliveryOutcome, failure, type PlainMessage } from "./delivery.js";
import { DELIVERY_ADAPTERS } from "./registry.js";

/** Sends a plain message through an interface (health alerts, the Test button). */
export async function sendPlainMessage(
  interfaces: SecretHoldersRepository,
  space: string,
  interfaceId: string,
  message: PlainMessage,
  signal: AbortSignal = AbortSignal.timeout(DELIVERY_TIMEOUT_MS * 2),
): Promise<DeliveryOutcome[]> {
  const holder = await interfaces.getWithSecrets(space, interfaceId);
  if (!holder) return [failure(null, "the delivery interface no longer exists")];
  const adapter = DELIVERY_ADAPTERS[holder.kind as keyof typeof DELIVERY_ADAPTERS];
  try {
    const outcomes = await adapter.sendMessage(message, { ...holder.config, ...holder.secrets } as never, signal);
    return outcomes.map((o) => redact(o, holder.secrets));
  } catch (error) {
    return [redact(failure(null, error), holder.secrets)];
  }
}
