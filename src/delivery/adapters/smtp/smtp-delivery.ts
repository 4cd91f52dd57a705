import type { Transporter } from "nodemailer";
import { SmtpConfig } from "../../../schemas/delivery-interface.js";
import { attachmentsFor } from "../../attachments.js";
import { DELIVERY_TIMEOUT_MS, type DeliveryAdapter, type DeliveryOutcome, failure } from "../../delivery.js";

type Config = {
  host: string;
  port: number;
  security: "none" | "starttls" | "tls";
  username: string;
  password: string;
  from: string;
};

/**
 * E-mail over SMTP. One message per recipient, one after the other over one connection: a
 * recipient the server refuses fails alone (the run is then partial), the others still get it.
 */
export const smtpDelivery: DeliveryAdapter<Config> = {
  type: "smtp",
  configSchema: SmtpConfig,
  secretFields: ["password"],
  async deliver(report, binding, config, signal) {
    const recipients = binding.recipients ?? [];
    if (recipients.length === 0) return [failure(null, "no recipients: set recipients on the job's delivery")];
    const text = binding.message || `${report.title}\n\n${report.reportUrl}`;
    return sendEach(
      config,
      recipients,
      { subject: binding.subject || report.title, text, attachments: attachmentsFor(report, binding.attach) },
      signal,
    );
  },
  async sendMessage(message, config, signal) {
    return sendEach(
      config,
      message.recipients,
      { subject: message.subject, text: message.text, attachments: [] },
      signal,
    );
  },
};

async function sendEach(
  config: Config,
  recipients: string[],
  mail: { subject: string; text: string; attachments: { filename: string; content: Buffer; contentType: string }[] },
  signal: AbortSignal,
): Promise<DeliveryOutcome[]> {
  const { default: nodemailer } = await import("nodemailer");
  const transport: Transporter = nodemailer.createTransport({
    host: config.host,
    port: config.port,
    secure: config.security === "tls",
    requireTLS: config.security === "starttls",
    ignoreTLS: config.security === "none",
    auth: config.username ? { user: config.username, pass: config.password } : undefined,
    pool: true,
    maxConnections: 1,
    connectionTimeout: DELIVERY_TIMEOUT_MS,
    greetingTimeout: DELIVERY_TIMEOUT_MS,
    socketTimeout: DELIVERY_TIMEOUT_MS,
  });
  const outcomes: DeliveryOutcome[] = [];
  try {
    for (const recipient of recipients) {
      if (signal.aborted) {
        outcomes.push(failure(recipient, "stopped before sending"));
        continue;
      }
      try {
        const info = await transport.sendMail({ from: config.from, to: recipient, ...mail });
        const accepted = (info.accepted as unknown[]).map(String);
        outcomes.push(
          accepted.includes(recipient)
            ? { state: "sent", target: recipient, status: smtpCode(info.response), error: null }
            : failure(recipient, `refused: ${info.response}`, smtpCode(info.response)),
        );
      } catch (error) {
        const e = error as Error & { responseCode?: number; response?: string };
        outcomes.push(failure(recipient, e.response ?? e.message, e.responseCode ?? null));
      }
    }
  } finally {
    transport.close();
  }
  return outcomes;
}

const smtpCode = (response: string | undefined) => {
  const code = Number(/^(\d{3})/.exec(response ?? "")?.[1]);
  return Number.isFinite(code) ? code : null;
};
