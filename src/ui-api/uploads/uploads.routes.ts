import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../app-context.js";
import { requireSpaceAccess } from "../../auth/access.js";
import { invalid, notFound } from "../../errors.js";
import { MAX_UPLOAD_BYTES, sniffImageType, uploadKey } from "../../files/uploads.js";
import { isUuid } from "../../http/validate.js";

/**
 * Images for report `image` blocks (`{"type":"image","upload":"<id>"}`): uploaded by rw members
 * as the raw body (any `image/*` or `application/octet-stream` type; the bytes decide), read by
 * members of the space.
 */
export function uploadsUiRoutes(app: FastifyInstance, ctx: AppContext) {
  app.register(async (scope) => {
    scope.addContentTypeParser(
      /^(image\/[a-z0-9.+-]+|application\/octet-stream)$/,
      { parseAs: "buffer", bodyLimit: MAX_UPLOAD_BYTES },
      (_request, body, done) => done(null, body),
    );

    scope.post<{ Params: { space: string } }>(
      "/ui-api/spaces/:space/uploads",
      { bodyLimit: MAX_UPLOAD_BYTES },
      async (request, reply) => {
        await requireSpaceAccess(ctx, request, request.params.space, "rw");
        const data = request.body;
        const type = Buffer.isBuffer(data) ? sniffImageType(data) : undefined;
        if (!Buffer.isBuffer(data) || !type) {
          throw invalid([
            { path: [], code: "custom", message: "upload a PNG, JPEG, GIF or WebP image (at most 20 MB)" },
          ]);
        }
        const id = randomUUID();
        await ctx.files.put(uploadKey(request.params.space, id), data, type);
        return reply.code(201).send({ id, type, bytes: data.length, url: uploadPath(request.params.space, id) });
      },
    );

    scope.get<{ Params: { space: string; id: string } }>(
      "/ui-api/spaces/:space/uploads/:id",
      async (request, reply) => {
        await requireSpaceAccess(ctx, request, request.params.space, "ro");
        if (!isUuid(request.params.id)) throw notFound();
        const data = await ctx.files.get(uploadKey(request.params.space, request.params.id));
        const type = data && sniffImageType(data);
        if (!data || !type) throw notFound();
        return reply
          .header("content-type", type)
          .header("x-content-type-options", "nosniff")
          .header("cache-control", "private, max-age=86400, immutable")
          .send(data);
      },
    );
  });
}

export const uploadPath = (space: string, id: string) => `/ui-api/spaces/${encodeURIComponent(space)}/uploads/${id}`;
