import type { z } from "zod";
import type { Delivery } from "../schemas/delivery.js";

/**
 * The delivery port. An adapter sends one run's report through one interface type; it never
 * throws for a refusal by the receiver: it answers outcomes, one per destination (an e-mail
 * recipient, a webhook URL, an S3 object), so that a run can be partly delivered.
 */
export type DeliveryReport = {
  runId: string;
  jobId: string;
  jobName: string;
  title: string;
  html: string;
  pdf: Buffer | null;
  /** Absolute link to the HTML report, with the run's token. */
  reportUrl: string;
  /** A file name stem without a colon: "daily-errors-2026-11-22-0930". */
  fileStem: string;
  /** When the run started, for S3 keys (24-hour clock, UTC). */
  at: Date;
};

export type DeliveryOutcome = {
  state: "sent" | "failed";
  /** Who or what was reached: an address, a URL host, an object key. */
  target: string | null;
  /** The receiver's HTTP status or SMTP reply code, when there was one. */
  status: number | null;
  error: string | null;
};

/** The binding's fields, with Liquid already rendered. */
export type RenderedBinding = Pick<Delivery, "recipients" | "attach" | "formats"> & {
  message: string;
  subject: string;
  jsonBody: string | null;
};

/** A plain message (health alerts, test sends): no report file. */
export type PlainMessage = { subject: string; text: string; recipients: string[] };

export type DeliveryAdapter<C = Record<string, unknown>> = {
  type: string;
  configSchema: z.ZodType;
  secretFields: readonly string[];
  deliver(report: DeliveryReport, binding: RenderedBinding, config: C, signal: AbortSignal): Promise<DeliveryOutcome[]>;
  /** Sends a short plain-text message (health alerts and the Test button). */
  sendMessage(message: PlainMessage, config: C, signal: AbortSignal): Promise<DeliveryOutcome[]>;
};

/** Delivery attempts wait at most this long for a receiver (DESIGN: one minute per timeout). */
export const DELIVERY_TIMEOUT_MS = 60_000;

/** The first 300 characters of a receiver's answer, for the run record. */
export const excerpt = (text: string) => text.replace(/\s+/g, " ").trim().slice(0, 300);

export const failure = (target: string | null, error: unknown, status: number | null = null): DeliveryOutcome => ({
  state: "failed",
  target,
  status,
  error: error instanceof Error ? error.message.split("\n")[0] : String(error),
});
