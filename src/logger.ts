import { createRequire } from "node:module";
import pino, { type Logger } from "pino";

/** JSON lines for machines; readable lines on a terminal when pino-pretty is installed. */
export function createLogger(level: string): Logger {
  const pretty = process.stdout.isTTY && canResolve("pino-pretty");
  return pino({
    level,
    redact: { paths: ["req.headers.cookie", "req.headers.authorization", "*.password", "*.apiKey"], censor: "***" },
    ...(pretty
      ? { transport: { target: "pino-pretty", options: { translateTime: "SYS:HH:MM:ss", ignore: "pid,hostname" } } }
      : {}),
  });
}

function canResolve(name: string) {
  try {
    createRequire(import.meta.url).resolve(name);
    return true;
  } catch {
    return false;
  }
}
