import pg from 'pg';
import { PostgresDialect } from 'kysely';
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
      getTypeParser: ((oid: number, format?: string) =>
        oid === INT8_OID ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  return {
    name: 'postgres',
    kyselyDialect: new PostgresDialect({ pool }),
    bigint: 'bigint',
    addIdColumn: (table) => table.addColumn('id', 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity()),
    lockRow: async (trx, table, id) => {
      await trx.selectFrom(table).select('id').where('id', '=', id).forUpdate().execute();
    },
  };
}
