import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../app-context.js";
import { requireSpaceAccess } from "../../auth/access.js";
import { createInterface, deleteInterface, updateInterface } from "../../delivery/delivery-interfaces-service.js";
import { notFound } from "../../errors.js";
import { isUuid, parseBody } from "../../http/validate.js";
import { DeliveryInterfaceCreateSchema, DeliveryInterfaceUpdateSchema } from "../../schemas/delivery-interface.js";

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

  app.delete<{ Params: Params }>("/ui-api/spaces/:space/delivery-interfaces/:id", async (request, reply) => {
    await requireSpaceAccess(ctx, request, request.params.space, "admin");
    if (!isUuid(request.params.id)) throw notFound();
    await deleteInterface(ctx, request.params.space, request.params.id);
    return reply.code(204).send();
  });
}
