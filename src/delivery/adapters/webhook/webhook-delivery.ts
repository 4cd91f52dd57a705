import { WebhookConfig } from "../../../schemas/delivery-interface.js";
import { DELIVERY_TIMEOUT_MS, type DeliveryAdapter, type DeliveryOutcome, excerpt, failure } from "../../delivery.js";

type Config = {
  url: string;
  method: "POST" | "PUT";
  headers: Record<string, string>;
  bodyType: "json" | "form";
  bodyTemplate: string;
  allowJobBody: boolean;
};

/**
 * POST or PUT to a URL. The body is the interface's template with `$MESSAGE` replaced by the
 * binding's message (escaped for JSON or URL-encoded for a form), or the job's own `jsonBody`
 * when the interface allows it. Any answer other than 2xx fails the delivery.
 */
export const webhookDelivery: DeliveryAdapter<Config> = {
  type: "webhook",
  configSchema: WebhookConfig,
  secretFields: ["url", "headers"],
  async deliver(report, binding, config, signal) {
    const message = binding.message || `${report.title}: ${report.reportUrl}`;
    return [await send(config, message, config.allowJobBody ? binding.jsonBody : null, signal)];
  },
  async sendMessage(message, config, signal) {
    return [await send(config, `${message.subject}\n\n${message.text}`, null, signal)];
  },
};

export function webhookBody(config: Pick<Config, "bodyType" | "bodyTemplate">, message: string): string {
  if (config.bodyType === "form") return config.bodyTemplate.replaceAll("$MESSAGE", encodeURIComponent(message));
  return config.bodyTemplate.replaceAll("$MESSAGE", JSON.stringify(message).slice(1, -1));
}

async function send(
  config: Config,
  message: string,
  jobBody: string | null,
  signal: AbortSignal,
): Promise<DeliveryOutcome> {
  const host = safeHost(config.url);
  const body = jobBody ?? webhookBody(config, message);
  if (config.bodyType === "json" || jobBody) {
    try {
      JSON.parse(body);
    } catch {
      return failure(host, "the webhook body is not valid JSON after $MESSAGE was put in: check the body template");
    }
  }
  try {
    const response = await fetch(config.url, {
      method: config.method,
      headers: {
        "content-type":
          config.bodyType === "form" && !jobBody ? "application/x-www-form-urlencoded" : "application/json",
        "user-agent": "Pagewright",
        ...config.headers,
      },
      body,
      // One request, one receiver: it waits at most the delivery timeout (the caller's signal
      // allows a binding three, for adapters that make several requests).
      signal: AbortSignal.any([signal, AbortSignal.timeout(DELIVERY_TIMEOUT_MS)]),
      redirect: "manual",
    });
    const text = await response.text().catch(() => "");
    if (response.status >= 200 && response.status < 300)
      return { state: "sent", target: host, status: response.status, error: null };
    return failure(host, `HTTP ${response.status}: ${excerpt(text) || response.statusText}`, response.status);
  } catch (error) {
    return failure(host, describeFetchError(error));
  }
}

/** The host of a URL: what the run record may show of a secret URL. */
export const safeHost = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
};

export function describeFetchError(error: unknown): string {
  const e = error as Error & { cause?: { code?: string; message?: string } };
  if (e.name === "TimeoutError" || e.name === "AbortError") return "no answer in time";
  return e.cause?.code ? `${e.cause.code}: ${e.cause.message ?? e.message}` : e.message;
}
