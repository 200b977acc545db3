import pg from 'pg';
import { PostgresDialect, sql } from 'kysely';
import type { DialectSupport } from './types.js';

const INT8_OID = 20;

export interface PostgresOptions {
  /** Schema to put first on the search path (tests isolate each file in its own). */
  schema?: string;
  maxConnections?: number;
}

export function postgresSupport(url: string, options: PostgresOptions = {}): DialectSupport {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.maxConnections ?? 10,
    options: options.schema ? `-c search_path=${options.schema},public` : undefined,
    // Our BIGINT columns hold Unix seconds and byte sizes, well inside 2^53.
    types: {
      getTypeParser: ((oid: number, format: 'text') =>
        oid === INT8_OID ? (v: string) => Number(v) : (pg.types.getTypeParser(oid, format) as (v: string) => unknown)) as typeof pg.types.getTypeParser,
    },
  });
  return {
    name: 'postgres',
    kyselyDialect: new PostgresDialect({ pool }),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: pool.options.max }),
    migrationSchema: options.schema ?? 'public',
    bigint: 'bigint',
    byteOrderedText: sql`text COLLATE "C"`,
    addIdColumn: (table) => table.addColumn('id', 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity()),
    createObjectDeletionTrigger: async (db, table, keyColumn) => {
      const fn = sql.id(`${table}_object_deletion`);
      await sql`
        CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF OLD.${sql.id(keyColumn)} IS NOT NULL THEN
            INSERT INTO object_deletions (storage_key, queued_at)
            VALUES (OLD.${sql.id(keyColumn)}, extract(epoch from now())::bigint);
          END IF;
          RETURN OLD;
        END $$`.execute(db);
      await sql`CREATE TRIGGER ${fn} AFTER DELETE ON ${sql.id(table)} FOR EACH ROW EXECUTE FUNCTION ${fn}()`.execute(db);
    },
    lockRow: async (trx, table, id) => {
      await trx.selectFrom(table).select('id').where('id', '=', id).forUpdate().execute();
    },
    lockTableForWrite: async (trx, table) => {
      await sql`lock table ${sql.table(table)} in share row exclusive mode`.execute(trx);
    },
  };
}
