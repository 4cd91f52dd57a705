import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Migrator, sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { KEPT_BACKUPS, migrate, migrationNames, openStorage, type Storage } from "../../src/storage/db.js";

/** An existing SQLite database one migration behind, as an upgrade finds it. */
async function olderDatabase(dataDir: string): Promise<Storage> {
  const storage = await openStorage({ dataDir });
  const migrator = new Migrator({
    db: storage.db,
    provider: { getMigrations: async () => (await import("../../src/storage/db.js")).migrationsForTests() },
  });
  const previous = migrationNames[migrationNames.length - 2];
  const { error } = await migrator.migrateTo(previous);
  if (error) throw error;
  await sql`insert into settings (key, value) values ('marker', '"before"')`.execute(storage.db);
  return storage;
}

const appliedMigrations = async (storage: Storage) =>
  (await sql<{ name: string }>`select name from kysely_migration`.execute(storage.db)).rows.map((r) => r.name);

describe("a copy of the SQLite database before a migration", () => {
  const folders: string[] = [];
  const folder = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pagewright-backup-"));
    folders.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of folders.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("is written to DATA_DIR/backups before the migration runs, and holds the old state", async () => {
    const dataDir = folder();
    const storage = await olderDatabase(dataDir);
    const last = migrationNames[migrationNames.length - 1];
    expect(await migrate(storage)).toEqual([last]);
    await storage.destroy();
    const copies = fs.readdirSync(path.join(dataDir, "backups"));
    expect(copies).toHaveLength(1);
    expect(copies[0]).toMatch(new RegExp(`^pagewright-.*-before-${last}\\.db$`));
    // Opened as a database of its own: the marker is there, the last migration is not.
    const { default: SQLite } = await import("better-sqlite3");
    const old = new SQLite(path.join(dataDir, "backups", copies[0]), { readonly: true });
    expect(old.prepare("select value from settings where key = 'marker'").get()).toEqual({ value: '"before"' });
    const appliedInCopy = old.prepare("select name from kysely_migration").all() as { name: string }[];
    expect(appliedInCopy.map((m) => m.name)).not.toContain(last);
    old.close();
  });

  it("is not made for a new database, nor when nothing is pending", async () => {
    const dataDir = folder();
    const fresh = await openStorage({ dataDir });
    await migrate(fresh);
    await migrate(fresh);
    await fresh.destroy();
    expect(fs.existsSync(path.join(dataDir, "backups"))).toBe(false);
  });

  it("stops the migration when the copy cannot be written", async () => {
    const dataDir = folder();
    const storage = await olderDatabase(dataDir);
    // A file where the folder should be: the copy fails.
    fs.writeFileSync(path.join(dataDir, "backups"), "not a folder");
    await expect(migrate(storage)).rejects.toThrow(/could not back up the database .* no migration was run/);
    expect(await appliedMigrations(storage)).not.toContain(migrationNames[migrationNames.length - 1]);
    await storage.destroy();
  });

  it(`keeps the ${KEPT_BACKUPS} newest copies`, async () => {
    const dataDir = folder();
    const storage = await olderDatabase(dataDir);
    const backups = path.join(dataDir, "backups");
    fs.mkdirSync(backups);
    for (const year of [2020, 2021, 2022, 2023]) {
      fs.writeFileSync(path.join(backups, `pagewright-${year}-01-01T00-00-00-000Z-before-x.db`), "old");
    }
    await migrate(storage);
    await storage.destroy();
    const left = fs.readdirSync(backups).sort();
    expect(left).toHaveLength(KEPT_BACKUPS);
    expect(left[0]).toMatch(/^pagewright-2022-/);
  });
});
