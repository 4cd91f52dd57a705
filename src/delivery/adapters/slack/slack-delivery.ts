import { SlackConfig } from "../../../schemas/delivery-interface.js";
import { DELIVERY_TIMEOUT_MS, type DeliveryAdapter, type DeliveryOutcome, excerpt, failure } from "../../delivery.js";
import { describeFetchError } from "../webhook/webhook-delivery.js";

type Config = { webhookUrl: string };

/** A Slack incoming webhook: the message, then a link to the report. */
export const slackDelivery: DeliveryAdapter<Config> = {
  type: "slack",
  configSchema: SlackConfig,
  secretFields: ["webhookUrl"],
  async deliver(report, binding, config, signal) {
    const text = binding.message
      ? binding.message.includes(report.reportUrl)
        ? binding.message
        : `${binding.message}\n<${report.reportUrl}|${report.title}>`
      : `<${report.reportUrl}|${report.title}>`;
    return [await post(config, text, signal)];
  },
  async sendMessage(message, config, signal) {
    return [await post(config, `*${message.subject}*\n${message.text}`, signal)];
  },
};

async function post(config: Config, text: string, signal: AbortSignal): Promise<DeliveryOutcome> {
  const target = "slack";
  try {
    const response = await fetch(config.webhookUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text }),
      // One request waits at most the delivery timeout, as the webhook does.
      signal: AbortSignal.any([signal, AbortSignal.timeout(DELIVERY_TIMEOUT_MS)]),
    });
    const answer = await response.text().catch(() => "");
    if (response.ok) return { state: "sent", target, status: response.status, error: null };
    return failure(target, `HTTP ${response.status}: ${excerpt(answer)}`, response.status);
  } catch (error) {
    return failure(target, describeFetchError(error));
  }
}
