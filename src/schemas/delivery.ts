import { z } from "zod";
import { TemplateString, Uuid } from "./rules.js";

/**
 * A delivery binding: which interface of the job's space gets the report, and the fields that
 * interface type reads (the others are ignored). Secrets live on the interface, never here.
 */
export const DeliverySchema = z
  .strictObject({
    interfaceId: Uuid.describe("A delivery interface of this space (GET …/delivery-interfaces)."),
    message: TemplateString()
      .optional()
      .describe("webhook, slack, smtp, mailgun: the message (Liquid). {{ run.reportUrl }} links the report."),
    jsonBody: TemplateString()
      .optional()
      .describe("webhook with allowJobBody: a JSON body template (Liquid) replacing the interface's."),
    subject: TemplateString(1000).optional().describe("smtp, mailgun: the subject (Liquid)."),
    recipients: z
      .array(z.email({ error: "an e-mail address" }))
      .max(100)
      .optional()
      .describe("smtp, mailgun: the addresses."),
    attach: z.enum(["pdf", "html", "none"]).optional().describe("smtp, mailgun: which report file to attach."),
    formats: z
      .array(z.enum(["pdf", "html"]))
      .min(1)
      .max(2)
      .optional()
      .describe("s3: the report files to upload."),
  })
  .meta({ id: "Delivery" });

export type Delivery = z.infer<typeof DeliverySchema>;
