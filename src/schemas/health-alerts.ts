import { z } from "zod";

/**
 * Health alert settings (Settings > Application > Health Monitoring), system users only:
 * GET|PUT /ui-api/admin/settings/health-alerts. The monitor sends one message per check that
 * found job colours changed, through `deliveryInterfaceId` of `space`, at most once per
 * `minIntervalMinutes`. E-mail interfaces (smtp, mailgun) send it to `recipient`.
 */
export const HealthAlertsSettingsSchema = z
  .strictObject({
    enabled: z.boolean().describe("Enable Health Alerts."),
    deliveryInterfaceId: z.uuid().nullable().default(null).describe("The interface that sends the alert."),
    space: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, "a space id")
      .default("default")
      .describe("The space of the interface (interfaces belong to spaces)."),
    recipient: z.email().max(320).nullable().default(null).describe("Recipient e-mail (smtp and mailgun interfaces)."),
    checkEveryMinutes: z.number().int().min(1).max(1440).default(5).describe("Health Check Frequency."),
    minIntervalMinutes: z
      .number()
      .int()
      .min(1)
      .max(10080)
      .nullable()
      .default(null)
      .describe("Maximum Notification Frequency: at least this long between two alerts; null: no minimum."),
  })
  .superRefine((value, ctx) => {
    if (value.enabled && value.deliveryInterfaceId === null) {
      ctx.addIssue({
        code: "custom",
        path: ["deliveryInterfaceId"],
        message: "choose the delivery interface that sends the alerts",
      });
    }
  });

export type HealthAlertsSettings = z.infer<typeof HealthAlertsSettingsSchema>;

/** What an installation has before anyone saved the settings. */
export const DEFAULT_HEALTH_ALERTS_SETTINGS: HealthAlertsSettings = {
  enabled: false,
  deliveryInterfaceId: null,
  space: "default",
  recipient: null,
  checkEveryMinutes: 5,
  minIntervalMinutes: null,
};
