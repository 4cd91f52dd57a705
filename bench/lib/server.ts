import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import pino from "pino";
import { loadConfig } from "../../src/config/config.js";
import { startServer } from "../../src/server.js";
import { login } from "./http.js";

export type Dialect = "sqlite" | "postgres";

export const DIALECT_LABEL: Record<Dialect, string> = { sqlite: "SQLite", postgres: "PostgreSQL" };

/** The clean-ups of servers not yet stopped, for an interrupted run (see stopAll). */
const live = new Set<() => Promise<void>>();

/** Stops every server this module started and has not stopped yet, and removes their data. */
export async function stopAll(): Promise<void> {
  for (const cleanUp of [...live]) {
    try {
      await cleanUp();
    } catch (error) {
      console.error(error);
    }
  }
}

export type BenchServer = {
  dialect: Dialect;
  url: string;
  /** The admin's session cookie, `pagewright_session=…`. */
  cookie: string;
  /** The database as the start-up log names it, plus its version. */
  description: string;
  /** Stops the server and removes its data (folder, PostgreSQL schema). Safe to call twice. */
  stop(): Promise<void>;
};

/**
 * A real server in this process on a free port, with its own temporary DATA_DIR and, for
 * PostgreSQL, a fresh schema: as test/helpers/server.ts does, so that a run leaves nothing behind.
 * Whatever was created is removed again when a later step of the start fails.
 */
export async function startBenchServer(dialect: Dialect, databaseUrl?: string): Promise<BenchServer> {
  const cleanups: Array<() => Promise<void>> = [];
  // Every caller (the run's finally, an interrupt) waits for the same clean-up, run once.
  let cleaning: Promise<void> | undefined;
  const cleanUp = () => {
    cleaning ??= (async () => {
      const failures: unknown[] = [];
      for (const step of cleanups.splice(0).reverse()) {
        try {
          await step();
        } catch (error) {
          failures.push(error);
        }
      }
      live.delete(cleanUp);
      if (failures.length) {
        throw new AggregateError(failures, `cleaning up the ${DIALECT_LABEL[dialect]} server failed`);
      }
    })();
    return cleaning;
  };

  live.add(cleanUp);
  try {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "pagewright-bench-"));
    cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));

    let pgSchema: string | undefined;
    let version: string;
    if (dialect === "postgres") {
      if (!databaseUrl) throw new Error("no PostgreSQL URL");
      const schema = `bench_${crypto.randomBytes(6).toString("hex")}`;
      version = await withPg(databaseUrl, async (client) => {
        await client.query(`create schema ${schema}`);
        return (await client.query<{ server_version: string }>("show server_version")).rows[0].server_version;
      });
      pgSchema = schema;
      cleanups.push(() =>
        withPg(databaseUrl, (client) => client.query(`drop schema ${schema} cascade`)).then(() => {}),
      );
    } else {
      const { default: SQLite } = await import("better-sqlite3");
      const probe = new SQLite(":memory:");
      version = (probe.prepare("select sqlite_version() as v").get() as { v: string }).v;
      probe.close();
    }

    const password = crypto.randomBytes(12).toString("hex");
    const config = loadConfig({
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      ADMIN_USERNAME: "admin",
      ADMIN_PASSWORD: password,
      SECRET_KEY: crypto.randomBytes(24).toString("hex"),
      LOG_LEVEL: "silent",
      ...(dialect === "postgres" ? { DATABASE_URL: databaseUrl } : {}),
    });
    // A short grace: the benchmark's jobs never fire (see jobBody), so no run should be running.
    const server = await startServer(config, pino({ level: "silent" }), { pgSchema, graceMs: 2000 });
    cleanups.push(async () => {
      // Fastify's close reaps the keep-alive connections idle at that moment, then waits for the
      // others: one that was busy then stays open for the keep-alive timeout (72 s) unless reaped
      // when it goes idle. That happens when a run is interrupted mid-load.
      const reaper = setInterval(() => server.app.server.closeIdleConnections(), 50);
      const force = setTimeout(() => server.app.server.closeAllConnections(), 5000);
      try {
        await server.stop();
      } finally {
        clearInterval(reaper);
        clearTimeout(force);
      }
    });

    const cookie = await login(server.url, "admin", password);
    return {
      dialect,
      url: server.url,
      cookie,
      description: `${server.ctx.storage.description}, version ${version}`,
      stop: cleanUp,
    };
  } catch (error) {
    try {
      await cleanUp();
    } catch (cleanupError) {
      console.error(cleanupError);
    }
    throw error;
  }
}

async function withPg<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(`cannot connect to PostgreSQL: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
