import { Cron } from "croner";
import { z } from "zod";
import { ExpressionError, parseExpression } from "../expressions/expression.js";
import { checkTemplate } from "../templates/liquid.js";
import { CSS_COLOR_NAMES } from "./css-colors.js";

/** Field rules shared by the body schemas. Each refinement names the rule in its message. */

export const MAX_TEMPLATE_LENGTH = 64 * 1024;
export const MAX_NAME_LENGTH = 200;

export const Name = z.string().trim().min(1, "must not be empty").max(MAX_NAME_LENGTH);

export const Description = z.string().max(2000).default("");

/** A string that may contain Liquid (`{{ variable }}`); its syntax is checked. */
export const TemplateString = (max = MAX_TEMPLATE_LENGTH) =>
  z
    .string()
    .max(max)
    .superRefine((value, ctx) => {
      const error = value.includes("{") ? checkTemplate(value) : null;
      if (error) ctx.addIssue({ code: "custom", message: error });
    });

/** A name a step stores its result under, usable as `{{ name }}` and in expressions. */
export const VariableName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, "a variable name: a letter or _, then letters, digits or _ (≤ 64)")
  .refine((name) => !RESERVED_NAMES.has(name), "reserved name (job, run, space, now)");

export const RESERVED_NAMES = new Set(["job", "run", "space", "now", "true", "false", "null"]);

/**
 * An http(s) URL without credentials. Liquid placeholders are allowed after the scheme
 * (`https://host/{{ path }}`); the literal parts are checked with placeholders stood in.
 */
export const HttpUrl = z
  .string()
  .max(4096)
  .superRefine((value, ctx) => {
    const problem = checkHttpUrl(value);
    if (problem) ctx.addIssue({ code: "invalid_format", format: "url", message: problem });
  });

export function checkHttpUrl(value: string): string | null {
  if (!/^https?:\/\//i.test(value)) return "must be an http:// or https:// URL";
  if (value.includes("{")) {
    const error = checkTemplate(value);
    if (error) return error;
  }
  let url: URL;
  try {
    url = new URL(value.replace(/\{\{.*?\}\}|\{%.*?%\}/g, "x"));
  } catch {
    return "not a valid URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "must be an http:// or https:// URL";
  if (url.username || url.password) return "must not carry credentials; use capture.auth or a login step";
  return null;
}

/** Five cron fields that fire at least once (a February 30th never does). */
export const CronExpression = z
  .string()
  .trim()
  .superRefine((value, ctx) => {
    const problem = checkCron(value);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

export function checkCron(value: string): string | null {
  if (value.split(/\s+/).length !== 5) return "a cron expression has five fields: minute hour day month weekday";
  try {
    const next = new Cron(value, { paused: true }).nextRun();
    return next ? null : "this schedule never fires";
  } catch (error) {
    return `invalid cron expression: ${(error as Error).message.replace(/^CronPattern: /, "")}`;
  }
}

export const TimeZone = z.string().refine((zone) => {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}, "an IANA time zone such as Europe/Rome or UTC");

export const Expression = z
  .string()
  .min(1)
  .superRefine((value, ctx) => {
    try {
      parseExpression(value);
    } catch (error) {
      if (error instanceof ExpressionError) {
        ctx.addIssue({ code: "custom", message: `expression: ${error.message}` });
      } else throw error;
    }
  });

const COLOR_FUNCTION = /^(rgb|rgba|hsl|hsla)\(\s*[-\d.%\s,/]+\)$/i;

export const Color = z
  .string()
  .max(64)
  .refine(
    (value) => /^#[0-9a-f]{6}$/i.test(value) || COLOR_FUNCTION.test(value) || CSS_COLOR_NAMES.has(value.toLowerCase()),
    "a colour: #rrggbb, rgb(), rgba(), hsl(), hsla() or a CSS colour name",
  );

export const Uuid = z.uuid({ error: "a UUID such as 3f0c1a52-5b7e-4c1e-9a53-0d3f3e1b2c44" });
