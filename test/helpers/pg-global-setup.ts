import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** This run's PostgreSQL schema prefix, `t_<run>_`; its test files create `t_<run>_<file>` schemas. */
    pgSchemaPrefix: string;
  }
}

const SCHEMA = /^t_([0-9a-f]{8})_[0-9a-f]{12}$/;
const lockKey = (run: string) => `dam-test-run-${run}`;

/** The test schemas of runs whose lock is free (the run is over or died), or of `only`. */
async function dropSchemas(client: pg.Client, only?: string): Promise<void> {
  const { rows } = await client.query<{ nspname: string }>("SELECT nspname FROM pg_namespace WHERE nspname LIKE 't\\_%'");
  const runs = new Map<string, string[]>();
  for (const { nspname } of rows) {
    const run = SCHEMA.exec(nspname)?.[1];
    if (run && (only === undefined || run === only)) runs.set(run, [...(runs.get(run) ?? []), nspname]);
  }
  for (const [run, schemas] of runs) {
    if (run !== only) {
      // A run holds its lock until it ends: a lock we can take belongs to a finished run.
      const { rows: taken } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [lockKey(run)]);
      if (!taken[0]?.ok) continue;
    }
    for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    if (run !== only) await client.query('SELECT pg_advisory_unlock(hashtext($1))', [lockKey(run)]);
  }
}

/**
 * vitest globalSetup of the server tests. Each run gets its own schema
 * prefix and holds an advisory lock for its lifetime, so runs on the same
 * test database (two terminals, CI beside a developer) never drop each
 * other's schemas: at start, a run drops what finished or crashed runs left;
 * at the end, its own schemas (not earlier: dropping a schema while other
 * files migrate races with Kysely's catalog introspection).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const run = randomBytes(4).toString('hex');
  project.provide('pgSchemaPrefix', `t_${run}_`);
  const url = process.env.DAM_TEST_DATABASE_URL || process.env.DATABASE_URL;
  if (!url?.startsWith('postgres')) return async () => undefined;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('SELECT pg_advisory_lock(hashtext($1))', [lockKey(run)]);
  await dropSchemas(client);
  return async () => {
    try {
      await dropSchemas(client, run);
    } finally {
      await client.end();
    }
  };
}
