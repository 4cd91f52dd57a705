import type { Kysely } from "kysely";
import type { AppContext } from "../app-context.js";
import type { Issue } from "../schemas/errors.js";
import {
  DEFAULT_HEALTH_ALERTS_SETTINGS,
  type HealthAlertsSettings,
  HealthAlertsSettingsSchema,
} from "../schemas/health-alerts.js";
import type { Database } from "../storage/schema.js";

/** The settings live in table `settings` under this key, as JSON. */
export const HEALTH_ALERTS_SETTINGS_KEY = "health.alerts.settings";

/** Interface types that send e-mail and so need a recipient. */
const EMAIL_TYPES = new Set(["smtp", "mailgun"]);

export async function readHealthAlertsSettings(db: Kysely<Database>): Promise<HealthAlertsSettings> {
  const row = await db
    .selectFrom("settings")
    .select("value")
    .where("key", "=", HEALTH_ALERTS_SETTINGS_KEY)
    .executeTakeFirst();
  if (!row) return { ...DEFAULT_HEALTH_ALERTS_SETTINGS };
  // Stored by saveHealthAlertsSettings after validation; defaults fill fields added since.
  const parsed = HealthAlertsSettingsSchema.safeParse(JSON.parse(row.value));
  return parsed.success ? parsed.data : { ...DEFAULT_HEALTH_ALERTS_SETTINGS };
}

export async function saveHealthAlertsSettings(db: Kysely<Database>, settings: HealthAlertsSettings): Promise<void> {
  const value = JSON.stringify(settings);
  await db
    .insertInto("settings")
    .values({ key: HEALTH_ALERTS_SETTINGS_KEY, value })
    .onConflict((oc) => oc.column("key").doUpdateSet({ value }))
    .execute();
}

/**
 * What the schema cannot see: the interface must exist in the space, and an e-mail interface
 * needs a recipient. Returns the issues, in the shape of a 400 answer.
 */
export async function checkHealthAlertsSettings(ctx: AppContext, settings: HealthAlertsSettings): Promise<Issue[]> {
  if (settings.deliveryInterfaceId === null) return [];
  const holder = (await ctx.spaces.get(settings.space))
    ? await ctx.interfaces.get(settings.space, settings.deliveryInterfaceId)
    : undefined;
  if (!holder) {
    return [
      {
        path: ["deliveryInterfaceId"],
        code: "custom",
        message: `no delivery interface with this id in space "${settings.space}"`,
      },
    ];
  }
  if (EMAIL_TYPES.has(holder.kind) && settings.recipient === null) {
    return [
      {
        path: ["recipient"],
        code: "custom",
        message: `the interface "${holder.name}" sends e-mail: give the recipient's address`,
      },
    ];
  }
  return [];
}
