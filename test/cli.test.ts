import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

/** The command line as an operator uses it, run from the source with tsx. */
function cli(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, ["--import", "tsx", "src/main.ts", ...args], {
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", LOG_LEVEL: "silent", ...env },
    timeout: 30_000,
  });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

describe("pagewright CLI", () => {
  it.each([[["--help"]], [["serve", "--help"]], [["migrate", "--help"]], [["user", "--help"]]])(
    "answers %j with usage",
    (args) => {
      const { code, out } = cli(args);
      expect(code).toBe(0);
      expect(out).toMatch(/Usage: pagewright/);
    },
  );

  it("names a bad variable in one line and exits 2", () => {
    const { code, err } = cli(["migrate"], { PORT: "eighty" });
    expect(code).toBe(2);
    expect(err.trim().split("\n")).toHaveLength(1);
    expect(err).toMatch(/Invalid PORT/);
  });

  it("refuses an unknown command", () => {
    const { code, err } = cli(["frobnicate"]);
    expect(code).toBe(2);
    expect(err).toMatch(/Unknown command: frobnicate/);
  });

  it("migrates and creates users against the data folder", () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "pagewright-cli-"));
    try {
      const migrated = cli(["migrate"], { DATA_DIR: dataDir });
      expect(migrated.code).toBe(0);
      expect(migrated.out).toMatch(/applied 0001-initial/);
      expect(cli(["migrate"], { DATA_DIR: dataDir }).out).toMatch(/up to date/);
      const created = cli(["user", "--username", "ops", "--password", "long-password", "--system"], {
        DATA_DIR: dataDir,
      });
      expect(created.code).toBe(0);
      expect(created.out).toMatch(/user ops created/);
      expect(cli(["user", "--username", "ops", "--password", "other-password"], { DATA_DIR: dataDir }).out).toMatch(
        /password of ops set/,
      );
      expect(cli(["user", "--username", "ops", "--password", "short"], { DATA_DIR: dataDir }).code).toBe(2);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
