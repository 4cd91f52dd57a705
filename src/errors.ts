import type { Issue } from "./schemas/errors.js";

/**
 * Domain errors that the HTTP layer turns into the answers of DESIGN.md. Modules throw these;
 * routes never build error bodies themselves.
 */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: Record<string, unknown>,
  ) {
    super(String(body.message ?? body.error));
  }
}

export const invalid = (issues: Issue[]) => new HttpError(400, { error: "invalid", issues });
export const unauthorized = () => new HttpError(401, { error: "unauthorized" });
export const forbidden = () => new HttpError(403, { error: "forbidden" });
export const notFound = () => new HttpError(404, { error: "not_found" });
export const conflict = (message?: string, details: Record<string, unknown> = {}) =>
  new HttpError(409, message ? { error: "conflict", message, ...details } : { error: "conflict" });
export const licenseLimit = (limit: string, max: number) =>
  new HttpError(403, { error: "forbidden", code: "licenseLimit", limit, max });
