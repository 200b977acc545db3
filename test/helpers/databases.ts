import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { openMigratedDatabase, type DatabaseHandle } from '../../src/db/database.js';
import type { DialectName } from '../../src/db/dialects/types.js';

/**
 * The PostgreSQL suite runs when DAM_TEST_DATABASE_URL (or DATABASE_URL) names a
 * postgres database. DAM_TEST_REQUIRE_PG=1 (set by .ci/run) turns a missing URL
 * into a failure, so CI cannot skip PostgreSQL silently.
 */
export const pgUrl = (() => {
  const url = process.env.DAM_TEST_DATABASE_URL || process.env.DATABASE_URL;
  if (url?.startsWith('postgres')) return url;
  if (process.env.DAM_TEST_REQUIRE_PG === '1') {
    throw new Error('DAM_TEST_REQUIRE_PG=1 but neither DAM_TEST_DATABASE_URL nor DATABASE_URL is a postgres:// URL');
  }
  return undefined;
})();

/** Dialects the repository-level suites run on: SQLite always, PostgreSQL when configured. */
export const dialects: DialectName[] = pgUrl ? ['sqlite', 'postgres'] : ['sqlite'];

export function tempDir(prefix = 'dam-test-'): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

/**
 * A fresh, migrated database: a new SQLite file, or a new PostgreSQL schema
 * (named t_<run>_<random>, see pg-global-setup.ts). Test files never share state.
 */
export async function openTestDatabase(dialect: DialectName = 'sqlite'): Promise<DatabaseHandle> {
  if (dialect === 'sqlite') {
    return openMigratedDatabase(`sqlite:${path.join(tempDir(), 'test.sqlite')}`);
  }
  if (!pgUrl) throw new Error('PostgreSQL tests need DAM_TEST_DATABASE_URL');
  const schema = `${inject('pgSchemaPrefix')}${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const handle = await openMigratedDatabase(pgUrl, { schema, maxConnections: 25 });
  // The schema is not dropped here: dropping schemas while other test files run their
  // migrations races with Kysely's catalog introspection ("schema does not exist").
  // test/helpers/pg-global-setup.ts drops this run's schemas after the run.
  return handle;
}
