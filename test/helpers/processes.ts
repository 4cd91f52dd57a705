import { type ChildProcess, spawn } from "node:child_process";
import crypto from "node:crypto";
import pg from "pg";
import { ADMIN } from "./server.js";

/** A Pagewright process started as operators start it (`node … src/main.ts <role>`). */
export type PagewrightProcess = { name: string; child: ChildProcess; url: string; output: () => string };

/**
 * Starts `pagewright <role>` as its own OS process (and process group, so that a kill takes its
 * Chromium along) with `env` over a test default (admin, port 0, LOG_LEVEL info); resolves once
 * it logs its URL (web, serve) or its health check address (worker).
 */
export function startPagewrightProcess(
  role: "serve" | "web" | "worker",
  name: string,
  env: Record<string, string>,
): Promise<PagewrightProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts", role], {
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      PORT: "0",
      HOST: "127.0.0.1",
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      LOG_LEVEL: "info",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      // Not left running: its process group goes with the failed start.
      try {
        process.kill(-(child.pid ?? 0), "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
      reject(new Error(`${name} did not start:\n${output}`));
    }, 60_000);
    const check = setInterval(() => {
      const match = /listening on (http:\/\/localhost:\d+)|health check on (http:\/\/[\d.]+:\d+)/.exec(output);
      if (match) {
        clearInterval(check);
        clearTimeout(timer);
        resolve({ name, child, url: match[1] ?? match[2], output: () => output });
      }
    }, 50);
    child.once("exit", (code) => {
      clearInterval(check);
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code}:\n${output}`));
    });
  });
}

/** Stops a process and its group (SIGTERM: a clean stop; SIGKILL: a crash). */
export async function stopPagewrightProcess(proc: PagewrightProcess, signal: NodeJS.Signals = "SIGTERM") {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  const exited = new Promise((resolve) => proc.child.once("exit", resolve));
  try {
    process.kill(-(proc.child.pid ?? 0), signal);
  } catch {
    proc.child.kill(signal);
  }
  await exited;
}

/** A fresh PostgreSQL database beside the one of `serverUrl`; answers its URL and how to drop it. */
export async function scratchDatabase(serverUrl: string, prefix: string) {
  const name = `${prefix}_${crypto.randomBytes(4).toString("hex")}`;
  const onServer = async (sql: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await onServer(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => onServer(`drop database if exists ${name} with (force)`).catch(() => undefined),
  };
}
