import pg from 'pg';
import { PostgresDialect, sql } from 'kysely';
import { markDatabaseError, ResilientClient } from './postgres-client.js';
import type { DialectSupport } from './types.js';

const INT8_OID = 20;

/**
 * How much longer than the statement timeout the client waits for an answer before it gives the connection up:
 * PostgreSQL cancels a slow statement itself (57014) first; this catches a server that is gone without closing the
 * connection (a failover to another host, a network partition), which would otherwise hold the request for as long
 * as TCP takes to notice (many minutes).
 */
const READ_TIMEOUT_MARGIN_MS = 5000;
/** Idle connections are closed after this long (fewer connections held on a quiet server; none survive a restart anyway). */
const IDLE_TIMEOUT_MS = 10_000;
/** TCP keep-alive on every connection, first probe after this long idle: a dead peer is noticed without a query. */
const KEEPALIVE_DELAY_MS = 10_000;

export interface PostgresOptions {
  /** Schema to put first on the search path (tests isolate each file in its own). */
  schema?: string;
  maxConnections?: number;
  /**
   * Longest wait for a connection, new or from a full pool (DAM_DB_CONNECT_TIMEOUT), then "timeout exceeded when
   * trying to connect" (503 DATABASE_UNAVAILABLE). Unset: no limit (tests, tools).
   */
  connectTimeoutMs?: number;
  /**
   * PostgreSQL's statement_timeout on every connection (DAM_DB_STATEMENT_TIMEOUT); the client gives a statement up
   * READ_TIMEOUT_MARGIN_MS after it. 0 or unset: none (migrations run without it).
   */
  statementTimeoutMs?: number;
}

export function postgresSupport(url: string, options: PostgresOptions = {}): DialectSupport {
  const statementTimeout = options.statementTimeoutMs || undefined;
  const pool = new pg.Pool({
    Client: ResilientClient as unknown as new () => pg.ClientBase,
    connectionString: url,
    max: options.maxConnections ?? 10,
    options: options.schema ? `-c search_path=${options.schema},public` : undefined,
    connectionTimeoutMillis: options.connectTimeoutMs,
    statement_timeout: statementTimeout,
    query_timeout: statementTimeout === undefined ? undefined : statementTimeout + READ_TIMEOUT_MARGIN_MS,
    idleTimeoutMillis: IDLE_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
    // Our BIGINT columns hold Unix seconds and byte sizes, well inside 2^53.
    types: {
      getTypeParser: ((oid: number, format: 'text') =>
        oid === INT8_OID ? (v: string) => Number(v) : (pg.types.getTypeParser(oid, format) as (v: string) => unknown)) as typeof pg.types.getTypeParser,
    },
  });
  // An idle connection whose server went away (a restart, a failover) emits 'error' on the pool; unheard, that ends
  // the process. The pool drops the connection and opens a new one when asked.
  const connectionErrorListeners = new Set<(err: Error) => void>();
  pool.on('error', (err) => {
    markDatabaseError(err);
    for (const listener of connectionErrorListeners) listener(err);
  });
  return {
    name: 'postgres',
    kyselyDialect: new PostgresDialect({ pool }),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: pool.options.max }),
    onConnectionError: (listener) => {
      connectionErrorListeners.add(listener);
      return () => connectionErrorListeners.delete(listener);
    },
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
