/**
 * The one way the app talks to the server: JSON over fetch with the session cookie. Failures
 * become an ApiError that keeps the server's `error`, `issues` and, for 429, the wait.
 */
export type Issue = { path: (string | number)[]; code: string; message: string };

type ErrorBody = {
  error?: string;
  message?: string;
  issues?: Issue[];
  code?: string;
  limit?: string;
  max?: number;
};

export class ApiError extends Error {
  readonly status: number;
  readonly body: ErrorBody;
  /** Seconds to wait, from Retry-After (429). */
  readonly retryAfter: number | undefined;

  constructor(status: number, body: ErrorBody, retryAfter?: number) {
    super(body.message ?? body.error ?? `HTTP ${status}`);
    this.name = "ApiError";
    this.status = status;
    this.body = body;
    this.retryAfter = retryAfter;
  }

  get issues(): Issue[] {
    return this.body.issues ?? [];
  }
}

let onUnauthorized: (() => void) | undefined;

/** Called when a request of a signed-in page answers 401 (the session ended). */
export function setUnauthorizedHandler(handler: () => void) {
  onUnauthorized = handler;
}

export async function errorFromResponse(response: Response): Promise<ApiError> {
  let body: ErrorBody = {};
  try {
    body = (await response.json()) as ErrorBody;
  } catch {
    body = { error: response.status >= 500 ? "internal" : "invalid" };
  }
  const retryAfter = Number(response.headers.get("retry-after"));
  return new ApiError(response.status, body, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined);
}

export async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      credentials: "same-origin",
      headers: body === undefined ? { accept: "application/json" } : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, { error: "network", message: "the server cannot be reached" });
  }
  if (!response.ok) {
    const error = await errorFromResponse(response);
    if (response.status === 401 && !path.startsWith("/auth/")) onUnauthorized?.();
    throw error;
  }
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

export const get = <T>(path: string) => api<T>("GET", path);
export const post = <T>(path: string, body?: unknown) => api<T>("POST", path, body ?? {});
export const put = <T>(path: string, body: unknown) => api<T>("PUT", path, body);
export const del = (path: string) => api<void>("DELETE", path);

export type Upload = { id: string; url: string; type: string; bytes: number };

/** Uploads an image for a report block (≤ 20 MB; the server checks that it is PNG, JPEG, GIF or WebP). */
export async function uploadImage(space: string, file: Blob): Promise<Upload> {
  if (file.size > 20 * 1024 * 1024) {
    throw new ApiError(413, { error: "too_large", message: "an image may be at most 20 MB" });
  }
  let response: Response;
  try {
    response = await fetch(`/ui-api/spaces/${encodeURIComponent(space)}/uploads`, {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": file.type || "application/octet-stream" },
      body: file,
    });
  } catch {
    throw new ApiError(0, { error: "network", message: "the server cannot be reached" });
  }
  if (!response.ok) throw await errorFromResponse(response);
  return (await response.json()) as Upload;
}

const LIMIT_NAMES: Record<string, string> = {
  jobs: "jobs",
  deliveryInterfaces: "delivery interfaces",
  aiProviders: "AI providers",
  captureSteps: "capture steps",
};

/** An error in words, for a person. */
export function describeError(error: unknown): string {
  if (!(error instanceof ApiError)) return error instanceof Error ? error.message : String(error);
  const { status, body } = error;
  if (status === 0) return "The server cannot be reached. Check your connection and try again.";
  if (status === 400) {
    const first = error.issues[0];
    if (!first) return body.message ?? "The request is not valid.";
    const where = first.path.length ? `${first.path.join(".")}: ` : "";
    const more = error.issues.length > 1 ? ` (and ${error.issues.length - 1} more)` : "";
    return `Refused: ${where}${first.message}${more}.`;
  }
  if (status === 401) return "You are signed out. Sign in again.";
  if (status === 403 && body.code === "licenseLimit") {
    return `This edition allows at most ${body.max} ${LIMIT_NAMES[body.limit ?? ""] ?? body.limit} per space.`;
  }
  if (status === 403 && body.error === "cross_origin") return "Refused: the request came from another site.";
  if (status === 403) return "Your access to this space does not allow this.";
  if (status === 404) return "Not found: it may have been deleted.";
  if (status === 409) return body.message ?? "Conflict: it was changed or is in use; reload and try again.";
  if (status === 413) return body.message ? `Too large: ${body.message}.` : "Too large.";
  if (status === 429) return `Too many attempts. Try again in ${formatWait(error.retryAfter ?? 60)}.`;
  if (status >= 500) return "The server failed to answer; see its log.";
  return body.message ?? `The request failed (HTTP ${status}).`;
}

/** 90 → "2 minutes", 30 → "30 seconds". */
export function formatWait(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? "" : "s"}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? "" : "s"}`;
}

/** Issues keyed by their dotted path ("config.url"), the first message of each. */
export function issuesByField(error: unknown): Record<string, string> {
  const fields: Record<string, string> = {};
  if (error instanceof ApiError) {
    for (const issue of error.issues) {
      const key = issue.path.join(".");
      fields[key] ??= issue.message;
    }
  }
  return fields;
}
