import path from "node:path";
import { z } from "zod";
import { isAddressOrCidr } from "../metrics/allowed-addresses.js";

/**
 * Pagewright is configured only through environment variables. Each option is declared here with
 * its default; a bad value stops the start with one line naming the variable and what it expects.
 */

const optionalLimit = z.string().regex(/^\d+$/, "a whole number ≥ 0").transform(Number).optional();

const port = z
  .string()
  .regex(/^\d+$/, "a port number from 0 to 65535")
  .transform(Number)
  .refine((n) => n <= 65535, "a port number from 0 to 65535");

const EnvSchema = z.object({
  /** HTTP port. Default 3000; 0 picks a free port (tests). */
  PORT: port.default(3000),
  /** Address the HTTP server binds to. Default 0.0.0.0 (every interface). */
  HOST: z.string().min(1).default("0.0.0.0"),
  /** Origin under which users reach the service; used in links. Default http://localhost:PORT. */
  PUBLIC_URL: z.url({ protocol: /^https?$/, error: "an http(s) URL such as https://reports.example.com" }).optional(),
  /** Folder for the SQLite database, the generated secret key and report files. Default ./data. */
  DATA_DIR: z.string().min(1).default("./data"),
  /** Unset: SQLite in DATA_DIR. postgres://… : PostgreSQL. */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "a postgres:// URL (or unset for SQLite in DATA_DIR)")
    .optional(),
  /** Unset: report files in DATA_DIR/files. s3://bucket/prefix: an S3-compatible bucket. */
  FILES_URL: z
    .string()
    .regex(/^s3:\/\/[^/]+/, "an s3://bucket/prefix URL (or unset for DATA_DIR/files)")
    .optional(),
  /** With FILES_URL: the S3 API's address (unset: AWS), region and keys (unset: the AWS default chain). */
  S3_ENDPOINT: z.url({ protocol: /^https?$/, error: "an http(s):// URL" }).optional(),
  S3_REGION: z.string().min(1).default("us-east-1"),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** Path-style addressing (bucket in the path), which MinIO and most other stores need. Default: on with S3_ENDPOINT. */
  S3_FORCE_PATH_STYLE: z.enum(["true", "false"]).optional(),
  /** Audit log entries older than this are deleted (hourly). */
  AUDIT_RETENTION_DAYS: z.coerce.number().int().min(1).max(36500).default(365),
  /** A running run whose worker has not given a sign of life for this long is failed and retried. */
  RUN_STALE_SECONDS: z.coerce.number().int().min(15).max(3600).default(60),
  /** Encrypts stored secrets. Unset: generated into DATA_DIR/secret.key on first start. */
  SECRET_KEY: z.string().min(16, "at least 16 characters").optional(),
  /** The system user that the first start creates. Default admin / admin (with a warning). */
  ADMIN_USERNAME: z.string().min(1).max(200).default("admin"),
  ADMIN_PASSWORD: z.string().min(1).default("admin"),
  /** Chromium executable. Unset: the system's chromium. */
  CHROMIUM_PATH: z.string().min(1).optional(),
  /** Runs at a time per worker process. Default 2. */
  WORKER_COUNT: z
    .string()
    .regex(/^[1-9]\d*$/, "a whole number ≥ 1")
    .transform(Number)
    .default(2),
  /** pino level. Default info. */
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** Proxies whose X-Forwarded-For is believed: a comma-separated list of IPs/CIDRs, or true. */
  TRUSTED_PROXIES: z.string().optional(),
  /** Edition limits per space; unset = unlimited. */
  LIMIT_JOBS: optionalLimit,
  LIMIT_DELIVERY_INTERFACES: optionalLimit,
  LIMIT_AI_PROVIDERS: optionalLimit,
  /** Can only lower the built-in bound of 500 steps per job. */
  LIMIT_CAPTURE_STEPS: optionalLimit,
  /** What an anonymous caller of /guest/api/health sees. Default summary. */
  HEALTH_ANONYMOUS: z.enum(["summary", "full"]).default("summary"),
  /** Hosts the report renderer may load even when they resolve to private addresses. */
  REPORT_ALLOWED_HOSTS: z.string().default(""),
  /** Addresses (IPs or CIDRs, comma-separated) that may read /metrics without a key. Default: none. */
  METRICS_ALLOW: z
    .string()
    .refine(
      (value) => list(value).every(isAddressOrCidr),
      "IP addresses or CIDRs, comma-separated (such as 127.0.0.1,10.0.0.0/8)",
    )
    .default(""),
});

export type Config = {
  port: number;
  host: string;
  publicUrl: string;
  dataDir: string;
  databaseUrl: string | undefined;
  filesUrl: string | undefined;
  runStaleSeconds: number;
  auditRetentionDays: number;
  s3: {
    endpoint: string | undefined;
    region: string;
    accessKeyId: string | undefined;
    secretAccessKey: string | undefined;
    forcePathStyle: boolean;
  };
  secretKey: string | undefined;
  adminUsername: string;
  adminPassword: string;
  chromiumPath: string | undefined;
  workerCount: number;
  logLevel: z.infer<typeof EnvSchema>["LOG_LEVEL"];
  trustedProxies: string | boolean | undefined;
  limits: Limits;
  healthAnonymous: "summary" | "full";
  reportAllowedHosts: string[];
  metricsAllow: string[];
};

/** Edition limits; `null` means unlimited. */
export type Limits = {
  edition: string;
  jobs: number | null;
  deliveryInterfaces: number | null;
  aiProviders: number | null;
  captureSteps: number;
};

/** The bound DESIGN.md sets on steps per job; LIMIT_CAPTURE_STEPS can only lower it. */
export const MAX_CAPTURE_STEPS = 500;

export class ConfigError extends Error {}

const list = (value: string) =>
  value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // Empty variables count as unset, as in most twelve-factor services.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = EnvSchema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue.path[0]);
    const value = present[name];
    throw new ConfigError(
      `Invalid ${name}${value === undefined ? "" : ` (${JSON.stringify(name.includes("SECRET") || name.includes("PASSWORD") ? "…" : value)})`}: expected ${issue.message}`,
    );
  }
  const e = parsed.data;
  const captureSteps = Math.min(e.LIMIT_CAPTURE_STEPS ?? MAX_CAPTURE_STEPS, MAX_CAPTURE_STEPS);
  const limited =
    e.LIMIT_JOBS !== undefined ||
    e.LIMIT_DELIVERY_INTERFACES !== undefined ||
    e.LIMIT_AI_PROVIDERS !== undefined ||
    e.LIMIT_CAPTURE_STEPS !== undefined;
  return {
    port: e.PORT,
    host: e.HOST,
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ""),
    dataDir: path.resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    filesUrl: e.FILES_URL,
    runStaleSeconds: e.RUN_STALE_SECONDS,
    auditRetentionDays: e.AUDIT_RETENTION_DAYS,
    s3: {
      endpoint: e.S3_ENDPOINT,
      region: e.S3_REGION,
      accessKeyId: e.S3_ACCESS_KEY_ID,
      secretAccessKey: e.S3_SECRET_ACCESS_KEY,
      forcePathStyle: e.S3_FORCE_PATH_STYLE ? e.S3_FORCE_PATH_STYLE === "true" : Boolean(e.S3_ENDPOINT),
    },
    secretKey: e.SECRET_KEY,
    adminUsername: e.ADMIN_USERNAME,
    adminPassword: e.ADMIN_PASSWORD,
    chromiumPath: e.CHROMIUM_PATH,
    workerCount: e.WORKER_COUNT,
    logLevel: e.LOG_LEVEL,
    trustedProxies:
      e.TRUSTED_PROXIES === undefined ? undefined : e.TRUSTED_PROXIES === "true" ? true : e.TRUSTED_PROXIES,
    limits: {
      edition: limited ? "limited" : "unlimited",
      jobs: e.LIMIT_JOBS ?? null,
      deliveryInterfaces: e.LIMIT_DELIVERY_INTERFACES ?? null,
      aiProviders: e.LIMIT_AI_PROVIDERS ?? null,
      captureSteps,
    },
    healthAnonymous: e.HEALTH_ANONYMOUS,
    reportAllowedHosts: list(e.REPORT_ALLOWED_HOSTS),
    metricsAllow: list(e.METRICS_ALLOW),
  };
}
