import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../app-context.js";
import { requireSpaceAccess } from "../../auth/access.js";
import { createInterface, deleteInterface, updateInterface } from "../../delivery/delivery-interfaces-service.js";
import { sendPlainMessage } from "../../delivery/send-message.js";
import { invalid, notFound } from "../../errors.js";
import { isUuid, parseBody } from "../../http/validate.js";
import {
  DeliveryInterfaceCreateSchema,
  DeliveryInterfaceUpdateSchema,
  InterfaceTestSchema,
} from "../../schemas/delivery-interface.js";

type Params = { space: string; id: string };

/** Secret-bearing set-up of delivery interfaces: space admins only, never in the agent API. */
export function deliveryInterfacesUiRoutes(app: FastifyInstance, ctx: AppContext) {
  app.post<{ Params: { space: string } }>("/ui-api/spaces/:space/delivery-interfaces", async (request, reply) => {
    await requireSpaceAccess(ctx, request, request.params.space, "admin");
    const body = parseBody(DeliveryInterfaceCreateSchema, request.body);
    return reply.code(201).send(await createInterface(ctx, request.params.space, body));
  });

  app.put<{ Params: Params }>("/ui-api/spaces/:space/delivery-interfaces/:id", async (request) => {
    await requireSpaceAccess(ctx, request, request.params.space, "admin");
    if (!isUuid(request.params.id)) throw notFound();
    const body = parseBody(DeliveryInterfaceUpdateSchema, request.body);
    return updateInterface(ctx, request.params.space, request.params.id, body);
  });

  /** Sends a test message; e-mail types send it to `recipients` (default: the caller's e-mail). */
  app.post<{ Params: Params }>("/ui-api/spaces/:space/delivery-interfaces/:id/test", async (request) => {
    const { user } = await requireSpaceAccess(ctx, request, request.params.space, "admin");
    if (!isUuid(request.params.id)) throw notFound();
    const body = parseBody(InterfaceTestSchema, request.body ?? {});
    const holder = await ctx.interfaces.get(request.params.space, request.params.id);
    if (!holder) throw notFound();
    const recipients = body.recipients ?? (user.email ? [user.email] : []);
    if ((holder.kind === "smtp" || holder.kind === "mailgun") && recipients.length === 0) {
      throw invalid([
        {
          path: ["recipients"],
          code: "custom",
          message: "give recipients for the test e-mail (your account has no e-mail)",
        },
      ]);
    }
    const outcomes = await sendPlainMessage(ctx.interfaces, request.params.space, request.params.id, {
      subject: "Pagewright test message",
      text: `This is a test of the delivery interface "${holder.name}", sent by ${user.username} at ${new Date().toISOString()}.`,
      recipients,
    });
    return { ok: outcomes.every((o) => o.state === "sent"), outcomes };
  });

  app.delete<{ Params: Params }>("/ui-api/spaces/:space/delivery-interfaces/:id", async (request, reply) => {
    await requireSpaceAccess(ctx, request, request.params.space, "admin");
    if (!isUuid(request.params.id)) throw notFound();
    await deleteInterface(ctx, request.params.space, request.params.id);
    return reply.code(204).send();
  });
}
