import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../app-context.js";
import { requireSystemUser } from "../../auth/access.js";
import { invalid } from "../../errors.js";
import {
  checkHealthAlertsSettings,
  readHealthAlertsSettings,
  saveHealthAlertsSettings,
} from "../../health/health-alerts-settings.js";
import { parseBody } from "../../http/validate.js";
import { HealthAlertsSettingsSchema } from "../../schemas/health-alerts.js";

/** Health alert settings (system users). The monitor reads them again at every tick. */
export function healthAlertsSettingsRoutes(app: FastifyInstance, ctx: AppContext) {
  app.get("/ui-api/admin/settings/health-alerts", async (request) => {
    await requireSystemUser(ctx, request);
    return readHealthAlertsSettings(ctx.storage.db);
  });

  app.put("/ui-api/admin/settings/health-alerts", async (request) => {
    const actor = await requireSystemUser(ctx, request);
    const settings = parseBody(HealthAlertsSettingsSchema, request.body);
    const issues = await checkHealthAlertsSettings(ctx, settings);
    if (issues.length > 0) throw invalid(issues);
    const before = await readHealthAlertsSettings(ctx.storage.db);
    await saveHealthAlertsSettings(ctx.storage.db, settings);
    await ctx.audit.record({
      actor,
      space: null,
      action: "update",
      type: "setting",
      id: "health-alerts",
      name: "Health alerts",
      before,
      after: settings,
    });
    return settings;
  });
}
