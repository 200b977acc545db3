import pg from 'pg';

/** Drops every per-file test schema (t_<hex>) in the test database. */
async function dropTestSchemas(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ nspname: string }>(
      "SELECT nspname FROM pg_namespace WHERE nspname ~ '^t_[0-9a-f]{12}$'",
    );
    for (const { nspname } of rows) await client.query(`DROP SCHEMA IF EXISTS ${nspname} CASCADE`);
  } finally {
    await client.end();
  }
}

/**
 * vitest globalSetup of the server tests: clears the PostgreSQL test schemas before
 * the run and again after it, when no test file is migrating any more.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const url = process.env.DAM_TEST_DATABASE_URL || process.env.DATABASE_URL;
  if (!url?.startsWith('postgres')) return async () => undefined;
  await dropTestSchemas(url);
  return () => dropTestSchemas(url);
}
