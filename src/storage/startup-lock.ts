import pg from "pg";

/**
 * Scale-out: processes that start together on one PostgreSQL (docker compose starts two workers
 * at once) take turns through their start-up — migrations, the first admin, pg-boss's tables and
 * queues — which would otherwise collide (PostgreSQL answers "deadlock detected" to concurrent DDL).
 * A session-level advisory lock on a connection of its own; closing it releases the lock, also when
 * the process dies. Answers the function that releases it; SQLite needs none.
 */
export async function takeStartupLock(
  databaseUrl: string | undefined,
  schema = "public",
): Promise<() => Promise<void>> {
  if (!databaseUrl) return async () => {};
  const client = new pg.Client({ connectionString: databaseUrl, application_name: "pagewright-start" });
  await client.connect();
  try {
    await client.query("select pg_advisory_lock(hashtext($1))", [`pagewright-start:${schema}`]);
  } catch (error) {
    await client.end().catch(() => undefined);
    throw error;
  }
  let released: Promise<void> | undefined;
  return () => {
    released ??= client.end().catch(() => undefined);
    return released;
  };
}
