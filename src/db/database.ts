import { Kysely, sql } from 'kysely';
import type { Database } from './schema.js';
import type { DialectName, DialectSupport } from './dialects/types.js';
import { sqliteSupport } from './dialects/sqlite.js';
import { postgresSupport, type PostgresOptions } from './dialects/postgres.js';
import { migrateToLatest } from './migrator.js';

export type DB = Kysely<Database>;

export interface DatabaseHandle {
  readonly db: DB;
  readonly dialect: DialectName;
  readonly support: DialectSupport;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export function openDatabase(url: string, pgOptions: PostgresOptions = {}): DatabaseHandle {
  const support = url.startsWith('sqlite:') ? sqliteSupport(url) : postgresSupport(url, pgOptions);
  const db = new Kysely<Database>({ dialect: support.kyselyDialect });
  return {
    db,
    dialect: support.name,
    support,
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: () => db.destroy(),
  };
}

/**
 * Opens the database and brings its schema to the latest migration. With a statement timeout (PostgreSQL,
 * DAM_DB_STATEMENT_TIMEOUT) the migrations run first on connections of their own without it: a migration may build
 * an index or backfill a table for longer than any request should take.
 */
export async function openMigratedDatabase(url: string, pgOptions: PostgresOptions = {}): Promise<DatabaseHandle> {
  if (pgOptions.statementTimeoutMs && !url.startsWith('sqlite:')) {
    const migrating = openDatabase(url, { ...pgOptions, statementTimeoutMs: 0 });
    try {
      await migrateToLatest(migrating);
    } finally {
      await migrating.close();
    }
    return openDatabase(url, pgOptions);
  }
  const handle = openDatabase(url, pgOptions);
  try {
    await migrateToLatest(handle);
  } catch (err) {
    await handle.close();
    throw err;
  }
  return handle;
}
