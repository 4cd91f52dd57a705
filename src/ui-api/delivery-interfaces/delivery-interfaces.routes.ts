import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../app-context.js";
import { requireSpaceAccess } from "../../auth/access.js";
import {
  createInterface,
  deleteInterface,
  presentInterface,
  updateInterface,
} from "../../delivery/delivery-interfaces-service.js";
import { sendPlainMessage } from "../../delivery/send-message.js";
import { invalid, notFound } from "../../errors.js";
import { isUuid, parseBody } from "../../http/validate.js";
import {
  DeliveryInterfaceCreateSchema,
  DeliveryInterfaceUpdateSchema,
  InterfaceTestSchema,
} from "../../schemas/delivery-interface.js";
import type { User } from "../../storage/repositories/users-repository.js";

type Params = { space: string; id: string };

/** Secret-bearing set-up of delivery interfaces: space admins only, never in the agent API. */
/** An audit entry's target: the interface, named. Its secrets never reach the log (present* leaves them out). */
const audited = (user: User, space: string, item: { id: string; name: string }) => ({
  actor: user,
  space,
  type: "delivery_interface" as const,
  id: item.id,
  name: item.name,
});

export function deliveryInterfacesUiRoutes(app: FastifyInstance, ctx: AppContext) {
  app.post<{ Params: { space: string } }>("/ui-api/spaces/:space/delivery-interfaces", async (request, reply) => {
    const { user } = await requireSpaceAccess(ctx, request, request.params.space, "admin");
    const body = parseBody(DeliveryInterfaceCreateSchema, request.body);
    const created = await createInterface(ctx, request.params.space, body);
    await ctx.audit.record({ ...audited(user, request.params.space, created), action: "create", after: created });
    return reply.code(201).send(created);
  });

  app.put<{ Params: Params }>("/ui-api/spaces/:space/delivery-interfaces/:id", async (request) => {
    const { user } = await requireSpaceAccess(ctx, request, request.params.space, "admin");
    if (!isUuid(request.params.id)) throw notFound();
    const body = parseBody(DeliveryInterfaceUpdateSchema, request.body);
    const before = await ctx.interfaces.get(request.params.space, request.params.id);
    const updated = await updateInterface(ctx, request.params.space, request.params.id, body);
    await ctx.audit.record({
      ...audited(user, request.params.space, updated),
      action: "update",
      before: before && presentInterface(before),
      after: updated,
    });
    return updated;
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
    const { user } = await requireSpaceAccess(ctx, request, request.params.space, "admin");
    if (!isUuid(request.params.id)) throw notFound();
    const before = await ctx.interfaces.get(request.params.space, request.params.id);
    await deleteInterface(ctx, request.params.space, request.params.id);
    if (before) {
      await ctx.audit.record({
        ...audited(user, request.params.space, before),
        action: "delete",
        before: { name: before.name },
      });
    }
    return reply.code(204).send();
  });
}
