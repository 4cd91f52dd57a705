import type { Kysely } from "kysely";

// Column types are the same on SQLite and PostgreSQL (see ../schema.ts): text timestamps,
// integer booleans, JSON as text.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("users")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("username", "text", (c) => c.notNull().unique())
    .addColumn("password_hash", "text", (c) => c.notNull())
    .addColumn("system_role", "text", (c) => c.notNull())
    .addColumn("email", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("sessions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("last_seen_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("sessions_user_id").on("sessions").column("user_id").execute();
  await db.schema.createIndex("sessions_expires_at").on("sessions").column("expires_at").execute();

  await db.schema
    .createTable("spaces")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("space_members")
    .addColumn("space_id", "text", (c) => c.notNull().references("spaces.id").onDelete("cascade"))
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("access", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("space_members_pk", ["space_id", "user_id"])
    .execute();
  await db.schema.createIndex("space_members_user_id").on("space_members").column("user_id").execute();

  await db.schema
    .createTable("jobs")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("space_id", "text", (c) => c.notNull().references("spaces.id").onDelete("cascade"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("enabled", "integer", (c) => c.notNull())
    .addColumn("cron", "text")
    .addColumn("body", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  // Lists are ordered by name within a space; the scheduler reads enabled jobs with a cron.
  await db.schema.createIndex("jobs_space_name").on("jobs").columns(["space_id", "name", "id"]).execute();
  await db.schema.createIndex("jobs_enabled_cron").on("jobs").columns(["enabled", "cron"]).execute();

  await db.schema
    .createTable("blueprints")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("space_id", "text", (c) => c.notNull().references("spaces.id").onDelete("cascade"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("body", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("blueprints_space_name").on("blueprints").columns(["space_id", "name"]).execute();

  for (const [table, kind] of [
    ["delivery_interfaces", "type"],
    ["ai_providers", "vendor"],
  ] as const) {
    await db.schema
      .createTable(table)
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("space_id", "text", (c) => c.notNull().references("spaces.id").onDelete("cascade"))
      .addColumn("name", "text", (c) => c.notNull())
      .addColumn(kind, "text", (c) => c.notNull())
      .addColumn("config", "text", (c) => c.notNull())
      .addColumn("secrets", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("updated_at", "text", (c) => c.notNull())
      .execute();
    await db.schema.createIndex(`${table}_space_name`).on(table).columns(["space_id", "name"]).execute();
  }

  await db.schema
    .createTable("login_failures")
    .addColumn("username", "text", (c) => c.notNull())
    .addColumn("address", "text", (c) => c.notNull())
    .addColumn("at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("login_failures_address_at").on("login_failures").columns(["address", "at"]).execute();
  await db.schema
    .createIndex("login_failures_user_address_at")
    .on("login_failures")
    .columns(["username", "address", "at"])
    .execute();

  await db.schema
    .createTable("settings")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("value", "text", (c) => c.notNull())
    .execute();
}
