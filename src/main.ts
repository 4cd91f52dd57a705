#!/usr/bin/env node
import fs from "node:fs";
import { parseArgs } from "node:util";
import { createAppContext } from "./app-context.js";
import { hashPassword } from "./auth/passwords.js";
import { resolveSecretKey } from "./auth/secret-box.js";
import { exportData, importData } from "./backup/export-import.js";
import { ConfigError, loadConfig } from "./config/config.js";
import { HttpError } from "./errors.js";
import { createLogger } from "./logger.js";
import { startServer } from "./server.js";
import { migrate, openStorage } from "./storage/db.js";
import { MigrateDataError, migrateData } from "./storage/migrate-data.js";
import { createUsersRepository } from "./storage/repositories/users-repository.js";
import { VERSION } from "./version.js";

/** The command line: serve (default), migrate, user. Every command answers --help. */

const HELP: Record<string, string> = {
  main: `pagewright ${VERSION}: capture web pages, build reports, deliver them.

Usage: pagewright <command> [options]

Commands:
  serve     Start the web server, scheduler and capture workers (the default)
  web       Start the web server only (scale-out, PostgreSQL)
  worker    Start the scheduler and capture workers only (scale-out, PostgreSQL)
  migrate   Apply database migrations and exit
  export    Write everything but files as one JSON document: pagewright export --help
  import    Restore an export (replaces everything): pagewright import --help
  migrate-data  Copy every row to a new PostgreSQL database: pagewright migrate-data --help
  user      Create a user or set a password: pagewright user --help

Options:
  -h, --help      Show help (also: pagewright <command> --help)
  -v, --version   Show the version

Configuration comes from environment variables; see README.md (PORT, DATA_DIR, DATABASE_URL …).`,
  serve: `Usage: pagewright serve

Starts Pagewright in one process: HTTP (UI, agent API, guide), scheduler and capture workers.
Uses SQLite in DATA_DIR (default ./data) unless DATABASE_URL is a postgres:// URL. Migrations
are applied at start; the first start creates the admin from ADMIN_USERNAME / ADMIN_PASSWORD.
Stops cleanly on SIGTERM or SIGINT.`,
  web: `Usage: pagewright web

Starts an HTTP-only process (UI, agent API, guide, health) for the scale-out setup: runs are
queued in PostgreSQL and executed by \`pagewright worker\` processes, whose progress the event
streams relay through PostgreSQL. Needs DATABASE_URL=postgres://… and, with several machines,
FILES_URL=s3://bucket/prefix. Start as many as you need behind a load balancer.`,
  worker: `Usage: pagewright worker

Starts a process that runs the schedule and the captures (one Chromium, WORKER_COUNT runs at a
time) for the scale-out setup, with GET /healthz on PORT for health checks. Every worker takes
queued runs from PostgreSQL; the cron schedule is kept by pg-boss in the same database, so each
firing runs once whatever the number of workers. A run of a worker that dies is failed and
retried by another after RUN_STALE_SECONDS. Needs DATABASE_URL=postgres://….`,
  migrate: `Usage: pagewright migrate

Applies pending database migrations to the database of DATABASE_URL (or SQLite in DATA_DIR)
and prints the ones applied.`,
  export: `Usage: pagewright export [--runs] [--out FILE]

Writes users, spaces, members, jobs, blueprints, delivery interfaces and AI providers (their
secrets still encrypted with SECRET_KEY), observer keys, settings and the audit log as one JSON
document, to FILE or standard output. Report files are not included (back up DATA_DIR/files or
the bucket of FILES_URL). Keep SECRET_KEY with it: an import needs the same key.

Options:
  --runs        Include run history (runs and delivery records)
  --out FILE    Write to FILE instead of standard output`,
  import: `Usage: pagewright import --file FILE

Restores an export: the whole document is checked first (a file of an older Pagewright is
upgraded on the way in), then every table is replaced in one transaction, or nothing changes and
each problem is named. Sessions end. Refused while another import runs. Needs the SECRET_KEY the
export was made with.

Options:
  --file FILE   The export document ("-" for standard input)`,
  "migrate-data": `Usage: pagewright migrate-data --to postgres://…

Copies every row of the configured database (SQLite in DATA_DIR, or DATABASE_URL) into a new,
empty PostgreSQL database, in one transaction, printing a line per table: the way from the
embedded mode to the scale-out mode. Stop Pagewright first. Then start it with DATABASE_URL set
to the new database and the same SECRET_KEY (stored secrets stay encrypted with it). Report
files are not copied: keep DATA_DIR/files, or copy them into the bucket of FILES_URL
(e.g. aws s3 sync DATA_DIR/files s3://bucket/prefix).

Options:
  --to URL   The PostgreSQL database to fill (it is migrated first; it must hold no rows)`,
  user: `Usage: pagewright user --username NAME --password PASS [--system]

Creates a user, or sets the password (and with --system, the system role) of an existing one.
Useful when the admin password is lost.

Options:
  --username NAME   The user name (required)
  --password PASS   The new password, at least 8 characters (required)
  --system          Make the user a system user (manages users, spaces, settings)`,
};

async function main(argv: string[]): Promise<number> {
  const command = argv[0] && !argv[0].startsWith("-") ? argv[0] : "serve";
  const rest = argv[0] === command ? argv.slice(1) : argv;
  if (argv[0] === "-v" || argv[0] === "--version") {
    console.log(VERSION);
    return 0;
  }
  if (!(command in HELP) || command === "main") {
    console.error(`Unknown command: ${command}\n\n${HELP.main}`);
    return 2;
  }
  const { values } = parseArgs({
    args: rest,
    options: {
      help: { type: "boolean", short: "h" },
      username: { type: "string" },
      password: { type: "string" },
      system: { type: "boolean" },
      to: { type: "string" },
      runs: { type: "boolean" },
      out: { type: "string" },
      file: { type: "string" },
    },
    strict: true,
  });
  if (values.help) {
    console.log(argv[0] === "--help" || argv[0] === "-h" ? HELP.main : HELP[command]);
    return 0;
  }

  const config = loadConfig();
  const log = createLogger(config.logLevel);

  if (command === "serve" || command === "web" || command === "worker") {
    const server = await startServer(config, log, { role: command === "serve" ? "all" : command });
    const stop = async (signal: string) => {
      log.info(`${signal}: stopping`);
      await server.stop();
      process.exit(0);
    };
    process.once("SIGTERM", () => void stop("SIGTERM"));
    process.once("SIGINT", () => void stop("SIGINT"));
    return -1;
  }

  if (command === "export" || command === "import") {
    const secret = resolveSecretKey(config.secretKey, config.dataDir);
    const storage = await openStorage({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
    try {
      await migrate(storage);
      const ctx = createAppContext({ config, storage, secretKey: secret.key, log });
      if (command === "export") {
        const text = JSON.stringify(await exportData(ctx, { runs: values.runs === true }));
        if (values.out) {
          fs.writeFileSync(values.out, text);
          console.error(`exported ${storage.description} to ${values.out} (${Math.round(text.length / 1024)} kB)`);
        } else process.stdout.write(`${text}\n`);
        return 0;
      }
      if (!values.file) throw new UsageError("import needs --file FILE (or --file - for standard input)");
      const text = fs.readFileSync(values.file === "-" ? 0 : values.file, "utf8");
      let document: unknown;
      try {
        document = JSON.parse(text);
      } catch (error) {
        throw new UsageError(`${values.file} is not JSON: ${(error as Error).message}`);
      }
      try {
        const counts = await importData(ctx, document);
        for (const [table, count] of Object.entries(counts))
          console.log(`${table}: ${count} row${count === 1 ? "" : "s"}`);
        console.log(`imported into ${storage.description}`);
        return 0;
      } catch (error) {
        if (error instanceof HttpError) {
          const issues = (error.body.issues as { path: (string | number)[]; message: string }[] | undefined) ?? [];
          throw new UsageError(
            issues.length
              ? `the file was not imported:\n${issues.map((i) => `  ${i.path.join(".") || "file"}: ${i.message}`).join("\n")}`
              : `the file was not imported: ${error.message}`,
          );
        }
        throw error;
      }
    } finally {
      await storage.destroy();
    }
  }

  if (command === "migrate-data") {
    if (!values.to || !/^postgres(ql)?:\/\//.test(values.to)) {
      throw new UsageError("migrate-data needs --to postgres://… (a new, empty database)");
    }
    const source = await openStorage({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
    const target = await openStorage({ databaseUrl: values.to, dataDir: config.dataDir });
    try {
      console.log(`copying ${source.description} → ${target.description}`);
      const copied = await migrateData(source, target, (line) => console.log(line));
      const total = Object.values(copied).reduce((sum, n) => sum + n, 0);
      console.log(
        `done: ${total} rows. Start Pagewright with DATABASE_URL set to the new database and the same SECRET_KEY.`,
      );
      return 0;
    } catch (error) {
      if (error instanceof MigrateDataError) throw new UsageError(error.message);
      throw error;
    } finally {
      await source.destroy();
      await target.destroy();
    }
  }

  const storage = await openStorage({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    const applied = await migrate(storage);
    if (command === "migrate") {
      console.log(`${storage.description}: ${applied.length ? `applied ${applied.join(", ")}` : "up to date"}`);
      return 0;
    }
    if (!values.username || !values.password) throw new UsageError("user needs --username and --password");
    if (values.password.length < 8) throw new UsageError("the password needs at least 8 characters");
    const users = createUsersRepository(storage.db);
    const existing = await users.findByUsername(values.username);
    const passwordHash = await hashPassword(values.password);
    if (existing) {
      await users.update(existing.id, { passwordHash, ...(values.system ? { systemRole: "system" as const } : {}) });
      console.log(`password of ${values.username} set`);
    } else {
      await users.create({ username: values.username, passwordHash, systemRole: values.system ? "system" : "user" });
      console.log(`user ${values.username} created`);
    }
    return 0;
  } finally {
    await storage.destroy();
  }
}

class UsageError extends Error {}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    if (error instanceof ConfigError || error instanceof UsageError) {
      console.error(`pagewright: ${error.message}`);
      process.exit(2);
    }
    if (error instanceof TypeError && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS")) {
      console.error(`pagewright: ${error.message}\nSee pagewright --help`);
      process.exit(2);
    }
    console.error("pagewright: failed to start:", error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
