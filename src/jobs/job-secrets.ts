import type { CaptureStep } from "../schemas/capture.js";
import type { StoredJobBody } from "../storage/repositories/jobs-repository.js";

/**
 * A job's own secrets — the basic-auth password and the texts of `sensitive` type steps — are
 * kept apart from its body and stored sealed with SECRET_KEY, like interface secrets. The stored
 * body holds an empty string in their place.
 */
export type JobSecrets = { authPassword?: string; texts?: Record<string, string> };

export function extractSecrets(body: StoredJobBody): { body: StoredJobBody; secrets: JobSecrets | null } {
  const secrets: JobSecrets = {};
  const texts: Record<string, string> = {};
  const strip = (steps: CaptureStep[]): CaptureStep[] =>
    steps.map((step) => {
      if (step.type === "type" && step.sensitive && step.id) {
        texts[step.id] = step.text;
        return { ...step, text: "" };
      }
      if (step.type === "if")
        return { ...step, then: strip(step.then), ...(step.else ? { else: strip(step.else) } : {}) };
      return step;
    });
  const { auth } = body.capture;
  const steps = strip(body.capture.steps);
  if (auth.type === "basic" && auth.password) secrets.authPassword = auth.password;
  if (Object.keys(texts).length > 0) secrets.texts = texts;
  if (!secrets.authPassword && !secrets.texts) return { body, secrets: null };
  return {
    body: {
      ...body,
      capture: { ...body.capture, auth: auth.type === "basic" ? { ...auth, password: "" } : auth, steps },
    },
    secrets,
  };
}

export function restoreSecrets(body: StoredJobBody, secrets: JobSecrets): StoredJobBody {
  const texts = secrets.texts ?? {};
  const fill = (steps: CaptureStep[]): CaptureStep[] =>
    steps.map((step) => {
      if (step.type === "type" && step.id && Object.hasOwn(texts, step.id)) return { ...step, text: texts[step.id] };
      if (step.type === "if")
        return { ...step, then: fill(step.then), ...(step.else ? { else: fill(step.else) } : {}) };
      return step;
    });
  const { auth } = body.capture;
  return {
    ...body,
    capture: {
      ...body.capture,
      auth:
        auth.type === "basic" && secrets.authPassword !== undefined
          ? { ...auth, password: secrets.authPassword }
          : auth,
      steps: fill(body.capture.steps),
    },
  };
}
