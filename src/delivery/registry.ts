import type { DeliveryType } from "../schemas/delivery-interface.js";
import { mailgunDelivery } from "./adapters/mailgun/mailgun-delivery.js";
import { s3Delivery } from "./adapters/s3/s3-delivery.js";
import { slackDelivery } from "./adapters/slack/slack-delivery.js";
import { smtpDelivery } from "./adapters/smtp/smtp-delivery.js";
import { webhookDelivery } from "./adapters/webhook/webhook-delivery.js";
import type { DeliveryAdapter } from "./delivery.js";

/** Every delivery interface type and its adapter, listed by hand. */
export const DELIVERY_ADAPTERS: Record<DeliveryType, DeliveryAdapter<never>> = {
  webhook: webhookDelivery,
  slack: slackDelivery,
  smtp: smtpDelivery,
  mailgun: mailgunDelivery,
  s3: s3Delivery,
};
