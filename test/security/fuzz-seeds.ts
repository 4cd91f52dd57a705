import { z } from "zod";
import { MemberSchema, SpaceCreateSchema, UserCreateSchema, UserUpdateSchema } from "../../src/schemas/admin.js";
import { AiProviderCreateSchema, AiProviderUpdateSchema } from "../../src/schemas/ai-provider.js";
import {
  DeliveryInterfaceCreateSchema,
  DeliveryInterfaceUpdateSchema,
  InterfaceTestSchema,
} from "../../src/schemas/delivery-interface.js";
import { HealthAlertsSettingsSchema } from "../../src/schemas/health-alerts.js";
import { ReportPreviewSchema } from "../../src/ui-api/report-preview/report-preview.routes.js";
import type { JsonSchema, SchemaRef } from "./fuzz-schema.js";

/**
 * A valid body of each kind the routes read, and its JSON Schema: the agent API's from the
 * OpenAPI description, the web app's (not in it) from the zod schemas the server validates with.
 */

/** What the server holds before the fuzz: real ids let mutated bodies get past the 404s. */
export type FuzzFixtures = {
  space: string;
  /** A space that DELETE routes may remove: the fuzz must not delete `default` under its own feet. */
  spareSpace: string;
  jobId: string;
  blueprintId: string;
  interfaceId: string;
  providerId: string;
  /** A user the fuzz may rename, demote or delete (never the admin or the ro member). */
  victimUserId: string;
};

export type BodyKind =
  | "Job"
  | "JobTest"
  | "Blueprint"
  | "Login"
  | "DeliveryInterfaceWrite"
  | "DeliveryInterfaceUpdate"
  | "AiProviderWrite"
  | "AiProviderUpdate"
  | "UserCreate"
  | "UserUpdate"
  | "SpaceCreate"
  | "Member"
  | "HealthAlerts"
  | "InterfaceTest"
  | "ReportPreview"
  | "Upload"
  | "None"
  | "Unknown";

/**
 * Bodies of the routes that the OpenAPI description does not list (the web app's), by
 * `METHOD /pattern`. A POST or PUT route missing here is still fuzzed, with generic bodies.
 */
export const UI_BODY_KINDS: Record<string, BodyKind> = {
  "POST /auth/logout": "None",
  "POST /api/spaces/:space/jobs/:jobId/run": "None",
  "POST /api/spaces/:space/jobs/test": "JobTest",
  "POST /ui-api/admin/users": "UserCreate",
  "PUT /ui-api/admin/users/:userId": "UserUpdate",
  "POST /ui-api/admin/spaces": "SpaceCreate",
  "PUT /ui-api/admin/spaces/:space/members/:userId": "Member",
  "PUT /ui-api/admin/settings/health-alerts": "HealthAlerts",
  "POST /ui-api/spaces/:space/delivery-interfaces": "DeliveryInterfaceWrite",
  "PUT /ui-api/spaces/:space/delivery-interfaces/:id": "DeliveryInterfaceUpdate",
  "POST /ui-api/spaces/:space/delivery-interfaces/:id/test": "InterfaceTest",
  "POST /ui-api/spaces/:space/ai-providers": "AiProviderWrite",
  "PUT /ui-api/spaces/:space/ai-providers/:id": "AiProviderUpdate",
  "POST /ui-api/spaces/:space/ai-providers/:id/test": "None",
  "POST /ui-api/spaces/:space/report-preview": "ReportPreview",
  "POST /ui-api/spaces/:space/uploads": "Upload",
};

/** Local receivers that refuse at once: nothing the fuzz saves can reach the network. */
const DEAD_URL = "http://127.0.0.1:1/hook";

export function fuzzJob(f: FuzzFixtures) {
  return {
    name: "Fuzz job",
    description: "seed of the fuzz",
    // Disabled and unscheduled: a mutation that stays valid must not start captures.
    enabled: false,
    cron: null,
    timezone: "Europe/Rome",
    retry: { attempts: 1, delayMinutes: 5 },
    notify: { minIntervalMinutes: 10 },
    retentionDays: 30,
    capture: {
      viewport: { width: 1024, height: 768 },
      auth: { type: "basic", username: "svc", password: "pw" },
      steps: [
        { type: "navigate", url: "https://dash.example.com/errors" },
        { type: "waitFor", selector: "#v", state: "visible", timeoutMs: 1000 },
        { type: "extract", as: "errors", selector: "#v", parse: "number" },
        { type: "calculate", as: "double", expression: "errors * 2" },
        { type: "if", condition: "errors > 1", then: [{ type: "break", reason: "many" }], else: [] },
        { type: "snapshot", as: "shot", fullPage: true },
        {
          type: "ai",
          as: "summary",
          providerId: f.providerId,
          prompt: "Say {{ errors }}",
          output: "text",
          context: "all",
        },
      ],
    },
    report: {
      title: "{{ job.name }}",
      paper: { size: "A4", orientation: "portrait" },
      theme: { font: "sans-serif", textColor: "#1f2937", background: "#ffffff", accent: "#2563eb" },
      pages: [
        {
          rows: [
            { cells: [{ blocks: [{ type: "text", content: "## {{ errors }}" }] }] },
            { cells: [{ blocks: [{ type: "snapshot", ref: "shot" }] }, { blocks: [{ type: "divider" }] }] },
            { cells: [{ blocks: [{ type: "image", url: "https://img.example.com/a.png" }] }] },
          ],
        },
      ],
    },
    deliveries: [{ interfaceId: f.interfaceId, message: "{{ errors }} errors", attach: "pdf" }],
  };
}

export function seedOf(kind: BodyKind, f: FuzzFixtures): unknown {
  switch (kind) {
    case "Job":
      return fuzzJob(f);
    case "JobTest":
      return { ...fuzzJob(f), deliver: false };
    case "Blueprint":
      return {
        name: "Fuzz blueprint",
        description: "d",
        job: fuzzJob(f),
        placeholders: [{ path: "capture.steps.0.url", description: "the dashboard" }],
      };
    case "Login":
      return { username: "nobody-here", password: "wrong-password" };
    case "DeliveryInterfaceWrite":
    case "DeliveryInterfaceUpdate":
      return {
        name: "Fuzz hook",
        type: "webhook",
        config: { url: DEAD_URL, method: "POST", headers: { "X-Key": "k" }, bodyType: "json", allowJobBody: true },
      };
    case "AiProviderWrite":
    case "AiProviderUpdate":
      return {
        name: "Fuzz AI",
        vendor: "openai-compatible",
        endpoint: "http://127.0.0.1:1/v1",
        model: "m",
        apiKey: "k",
      };
    case "UserCreate":
      return { username: "fuzz-user", password: "password-1234", systemRole: "user", email: "f@example.com" };
    case "UserUpdate":
      return { username: "fuzz-victim", email: "v@example.com", systemRole: "user" };
    case "SpaceCreate":
      return { id: "fuzz-space", name: "Fuzz" };
    case "Member":
      return { access: "ro" };
    case "HealthAlerts":
      return {
        enabled: false,
        deliveryInterfaceId: f.interfaceId,
        space: f.space,
        recipient: "ops@example.com",
        checkEveryMinutes: 60,
        minIntervalMinutes: 60,
      };
    case "InterfaceTest":
      return { recipients: ["ops@example.com"] };
    case "ReportPreview":
      return { report: fuzzJob(f).report, job: { name: "J", description: "" } };
    default:
      return { name: "fuzz" };
  }
}

const ZOD_BODIES: Partial<Record<BodyKind, z.ZodType>> = {
  DeliveryInterfaceWrite: DeliveryInterfaceCreateSchema,
  DeliveryInterfaceUpdate: DeliveryInterfaceUpdateSchema,
  AiProviderWrite: AiProviderCreateSchema,
  AiProviderUpdate: AiProviderUpdateSchema,
  UserCreate: UserCreateSchema,
  UserUpdate: UserUpdateSchema,
  SpaceCreate: SpaceCreateSchema,
  Member: MemberSchema,
  HealthAlerts: HealthAlertsSettingsSchema,
  InterfaceTest: InterfaceTestSchema,
  ReportPreview: ReportPreviewSchema,
};

/** The JSON Schema of a web-app body, from its zod schema; `{}` for a body of no known kind. */
export function zodBodySchema(kind: BodyKind): SchemaRef {
  const schema = ZOD_BODIES[kind];
  if (!schema) return { schema: {}, root: {} };
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  return { schema: json, root: json };
}

/** The kinds whose seed its own zod schema refuses (none, or mutations test the wrong thing). */
export function invalidSeeds(f: FuzzFixtures): string[] {
  return Object.entries(ZOD_BODIES)
    .filter(([kind, schema]) => !schema.safeParse(seedOf(kind as BodyKind, f)).success)
    .map(([kind]) => kind);
}
