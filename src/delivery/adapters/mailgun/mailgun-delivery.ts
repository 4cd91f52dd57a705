import { MailgunConfig } from "../../../schemas/delivery-interface.js";
import { attachmentsFor } from "../../attachments.js";
import { DELIVERY_TIMEOUT_MS, type DeliveryAdapter, type DeliveryOutcome, excerpt, failure } from "../../delivery.js";
import { describeFetchError } from "../webhook/webhook-delivery.js";

type Config = { domain: string; region: "us" | "eu"; apiKey: string; from: string; endpoint?: string };

const API = { us: "https://api.mailgun.net", eu: "https://api.eu.mailgun.net" };

/** E-mail through Mailgun's HTTP API: one request per recipient, so that one refusal stays alone. */
export const mailgunDelivery: DeliveryAdapter<Config> = {
  type: "mailgun",
  configSchema: MailgunConfig,
  secretFields: ["apiKey"],
  async deliver(report, binding, config, signal) {
    const recipients = binding.recipients ?? [];
    if (recipients.length === 0) return [failure(null, "no recipients: set recipients on the job's delivery")];
    const text = binding.message || `${report.title}\n\n${report.reportUrl}`;
    const attachments = attachmentsFor(report, binding.attach);
    const outcomes: DeliveryOutcome[] = [];
    for (const to of recipients) {
      outcomes.push(await send(config, { to, subject: binding.subject || report.title, text, attachments }, signal));
    }
    return outcomes;
  },
  async sendMessage(message, config, signal) {
    const outcomes: DeliveryOutcome[] = [];
    for (const to of message.recipients) {
      outcomes.push(await send(config, { to, subject: message.subject, text: message.text, attachments: [] }, signal));
    }
    return outcomes;
  },
};

async function send(
  config: Config,
  mail: { to: string; subject: string; text: string; attachments: ReturnType<typeof attachmentsFor> },
  signal: AbortSignal,
): Promise<DeliveryOutcome> {
  const form = new FormData();
  form.set("from", config.from);
  form.set("to", mail.to);
  form.set("subject", mail.subject);
  form.set("text", mail.text);
  for (const file of mail.attachments) {
    form.append("attachment", new Blob([new Uint8Array(file.content)], { type: file.contentType }), file.filename);
  }
  const base = (config.endpoint ?? API[config.region]).replace(/\/+$/, "");
  try {
    const response = await fetch(`${base}/v3/${encodeURIComponent(config.domain)}/messages`, {
      method: "POST",
      headers: { authorization: `Basic ${Buffer.from(`api:${config.apiKey}`).toString("base64")}` },
      body: form,
      // One request waits at most the delivery timeout, as the webhook does.
      signal: AbortSignal.any([signal, AbortSignal.timeout(DELIVERY_TIMEOUT_MS)]),
    });
    const answer = await response.text().catch(() => "");
    if (response.ok) return { state: "sent", target: mail.to, status: response.status, error: null };
    return failure(mail.to, `HTTP ${response.status}: ${excerpt(answer)}`, response.status);
  } catch (error) {
    return failure(mail.to, describeFetchError(error));
  }
}
