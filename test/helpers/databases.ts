import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { openDatabase, openMigratedDatabase, type DatabaseHandle } from '../../src/db/database.js';
import type { DialectName } from '../../src/db/dialects/types.js';
import { migrateTo } from '../../src/db/migrator.js';

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
  return openMigratedDatabase(pgUrlOrThrow(), { schema: await newPgSchema(), maxConnections: 25 });
}

/** A fresh database migrated up to and including `migration`, for tests of what a later migration does to existing rows. */
export async function openDatabaseAt(dialect: DialectName, migration: string): Promise<DatabaseHandle> {
  const handle =
    dialect === 'sqlite' ? openDatabase(`sqlite:${path.join(tempDir(), 'old.sqlite')}`) : openDatabase(pgUrlOrThrow(), { schema: await newPgSchema() });
  await migrateTo(handle, migration);
  return handle;
}

function pgUrlOrThrow(): string {
  if (!pgUrl) throw new Error('PostgreSQL tests need DAM_TEST_DATABASE_URL');
  return pgUrl;
}

/**
 * A new schema of this run. It is not dropped here: dropping schemas while other test files run
 * their migrations races with Kysely's catalog introspection ("schema does not exist").
 * test/helpers/pg-global-setup.ts drops this run's schemas after the run.
 */
async function newPgSchema(): Promise<string> {
  const schema = `${inject('pgSchemaPrefix')}${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: pgUrlOrThrow() });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  return schema;
}
