import { S3Config } from "../../../schemas/delivery-interface.js";
import { type DeliveryAdapter, type DeliveryOutcome, type DeliveryReport, failure } from "../../delivery.js";

type Config = {
  bucket: string;
  region: string;
  endpoint?: string;
  prefix: string;
  accessKeyId: string;
  secretAccessKey: string;
};

/**
 * Uploads the report files to a bucket (AWS S3 or a compatible store) under
 * `<prefix><job>/<YYYY-MM-DD>/<HH-mm-ss>-<run>.<ext>`, a 24-hour clock in UTC.
 */
export const s3Delivery: DeliveryAdapter<Config> = {
  type: "s3",
  configSchema: S3Config,
  secretFields: ["accessKeyId", "secretAccessKey"],
  async deliver(report, binding, config, signal) {
    const formats = binding.formats ?? ["pdf"];
    const outcomes: DeliveryOutcome[] = [];
    for (const format of formats) {
      const body = format === "pdf" ? report.pdf : Buffer.from(report.html);
      const key = s3Key(config.prefix, report, format);
      if (!body) {
        outcomes.push(failure(key, "no PDF was made for this run"));
        continue;
      }
      outcomes.push(
        await put(config, key, body, format === "pdf" ? "application/pdf" : "text/html; charset=utf-8", signal),
      );
    }
    return outcomes;
  },
  async sendMessage(message, config, signal) {
    const key = `${config.prefix}pagewright-test/${new Date().toISOString().replace(/[:.]/g, "-")}.txt`;
    return [
      await put(
        config,
        key,
        Buffer.from(`${message.subject}\n\n${message.text}\n`),
        "text/plain; charset=utf-8",
        signal,
      ),
    ];
  },
};

export function s3Key(
  prefix: string,
  report: Pick<DeliveryReport, "jobName" | "runId" | "at">,
  format: "pdf" | "html",
) {
  const job =
    report.jobName
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "")
      .slice(0, 60) || "job";
  const iso = report.at.toISOString();
  const time = iso.slice(11, 19).replaceAll(":", "-");
  return `${prefix}${job}/${iso.slice(0, 10)}/${time}-${report.runId.slice(0, 8)}.${format}`;
}

async function put(
  config: Config,
  key: string,
  body: Buffer,
  contentType: string,
  signal: AbortSignal,
): Promise<DeliveryOutcome> {
  const { S3Client, PutObjectCommand } = await import("@aws-sdk/client-s3");
  const client = new S3Client({
    region: config.region,
    endpoint: config.endpoint,
    // Compatible stores (MinIO, s3rver, Ceph) want bucket names in the path.
    forcePathStyle: Boolean(config.endpoint),
    credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey },
    maxAttempts: 2,
  });
  try {
    const result = await client.send(
      new PutObjectCommand({ Bucket: config.bucket, Key: key, Body: body, ContentType: contentType }),
      {
        abortSignal: signal,
      },
    );
    return { state: "sent", target: key, status: result.$metadata.httpStatusCode ?? 200, error: null };
  } catch (error) {
    const e = error as Error & { $metadata?: { httpStatusCode?: number } };
    return failure(key, `${e.name}: ${e.message}`, e.$metadata?.httpStatusCode ?? null);
  } finally {
    client.destroy();
  }
}
