import { z } from "zod";
import { HttpUrl, Name, TemplateString } from "./rules.js";

/**
 * Delivery interfaces: configured destinations of a space. They hold secrets, so they are created
 * and changed only through /ui-api (space admin); the agent API lists them without secrets.
 * Secret fields are write-only: on update, a missing secret keeps the stored one.
 */

const email = z
  .string()
  .max(320)
  .regex(/^[^\s@<>]+@[^\s@<>]+$|^.+<[^\s@<>]+@[^\s@<>]+>$/, "an e-mail address, optionally as Name <a@b>");
const header = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/, "an HTTP header name");

export const WebhookConfig = z.strictObject({
  url: HttpUrl.describe("Secret: the endpoint (its host is shown in reads)."),
  method: z.enum(["POST", "PUT"]).default("POST"),
  headers: z.record(header, z.string().max(4000)).default({}).describe("Secret values; names are shown."),
  bodyType: z.enum(["json", "form"]).default("json"),
  bodyTemplate: TemplateString()
    .default('{"text": "$MESSAGE"}')
    .describe("$MESSAGE is replaced by the binding's rendered message."),
  allowJobBody: z.boolean().default(false).describe("Jobs may send their own jsonBody."),
});

export const SlackConfig = z.strictObject({
  webhookUrl: HttpUrl.describe("Secret: the Slack incoming-webhook URL."),
});

export const SmtpConfig = z.strictObject({
  host: z.string().min(1).max(255),
  port: z.number().int().min(1).max(65535).default(587),
  security: z.enum(["none", "starttls", "tls"]).default("starttls"),
  username: z.string().max(320).default(""),
  password: z.string().max(1000).default("").describe("Secret."),
  from: email,
});

export const MailgunConfig = z.strictObject({
  domain: z.string().min(1).max(255),
  region: z.enum(["us", "eu"]).default("us"),
  apiKey: z.string().min(1).max(1000).describe("Secret."),
  from: email,
  endpoint: HttpUrl.optional().describe("Another API base URL (a proxy); default by region."),
});

export const S3Config = z.strictObject({
  bucket: z.string().min(3).max(63),
  region: z.string().min(1).max(64).default("us-east-1"),
  endpoint: HttpUrl.optional().describe("For S3-compatible stores (MinIO, R2 …)."),
  prefix: z.string().max(500).default(""),
  accessKeyId: z.string().min(1).max(200).describe("Secret."),
  secretAccessKey: z.string().min(1).max(200).describe("Secret."),
});

export const DELIVERY_TYPES = {
  webhook: { config: WebhookConfig, secretFields: ["url", "headers"] },
  slack: { config: SlackConfig, secretFields: ["webhookUrl"] },
  smtp: { config: SmtpConfig, secretFields: ["password"] },
  mailgun: { config: MailgunConfig, secretFields: ["apiKey"] },
  s3: { config: S3Config, secretFields: ["accessKeyId", "secretAccessKey"] },
} as const;

export type DeliveryType = keyof typeof DELIVERY_TYPES;

/** Create: the whole config, secrets included. */
export const DeliveryInterfaceCreateSchema = z
  .discriminatedUnion("type", [
    z.strictObject({ name: Name, type: z.literal("webhook"), config: WebhookConfig }),
    z.strictObject({ name: Name, type: z.literal("slack"), config: SlackConfig }),
    z.strictObject({ name: Name, type: z.literal("smtp"), config: SmtpConfig }),
    z.strictObject({ name: Name, type: z.literal("mailgun"), config: MailgunConfig }),
    z.strictObject({ name: Name, type: z.literal("s3"), config: S3Config }),
  ])
  .meta({ id: "DeliveryInterfaceWrite" });

/**
 * A config schema whose secret fields may be left out (no default either): on update, a missing
 * secret keeps the stored value instead of being reset to a default.
 */
function withOptionalSecrets<T extends z.ZodObject>(schema: T, fields: readonly string[]) {
  const shape: Record<string, z.ZodType> = {};
  for (const field of fields) {
    const current = schema.shape[field] as z.ZodType;
    const inner = current instanceof z.ZodDefault ? (current.unwrap() as z.ZodType) : current;
    shape[field] = inner.optional();
  }
  return schema.extend(shape);
}

/** Update: as create, but a secret field left out keeps its stored value. */
export const DeliveryInterfaceUpdateSchema = z.discriminatedUnion("type", [
  z.strictObject({
    name: Name,
    type: z.literal("webhook"),
    config: withOptionalSecrets(WebhookConfig, DELIVERY_TYPES.webhook.secretFields),
  }),
  z.strictObject({
    name: Name,
    type: z.literal("slack"),
    config: withOptionalSecrets(SlackConfig, DELIVERY_TYPES.slack.secretFields),
  }),
  z.strictObject({
    name: Name,
    type: z.literal("smtp"),
    config: withOptionalSecrets(SmtpConfig, DELIVERY_TYPES.smtp.secretFields),
  }),
  z.strictObject({
    name: Name,
    type: z.literal("mailgun"),
    config: withOptionalSecrets(MailgunConfig, DELIVERY_TYPES.mailgun.secretFields),
  }),
  z.strictObject({
    name: Name,
    type: z.literal("s3"),
    config: withOptionalSecrets(S3Config, DELIVERY_TYPES.s3.secretFields),
  }),
]);

/** What reads show: non-secret settings, and which secrets are set (never their values). */
export const DeliveryInterfaceSchema = z
  .object({
    id: z.uuid(),
    space: z.string(),
    name: z.string(),
    type: z.enum(["webhook", "slack", "smtp", "mailgun", "s3"]),
    config: z
      .record(z.string(), z.unknown())
      .describe(
        "Non-secret settings of the type; a webhook shows `host` and `headerNames` instead of its URL and headers.",
      ),
    secretsSet: z.record(z.string(), z.boolean()).describe("Each secret field: whether it holds a value."),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: "DeliveryInterface" });

export type DeliveryInterface = z.infer<typeof DeliveryInterfaceSchema>;

/** POST …/delivery-interfaces/{id}/test */
export const InterfaceTestSchema = z.strictObject({
  recipients: z.array(z.email()).min(1).max(10).optional().describe("E-mail types: who gets the test message."),
});
