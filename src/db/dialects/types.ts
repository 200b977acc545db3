import type { ColumnDataType, CreateTableBuilder, Dialect, Expression, Kysely } from 'kysely';
import type { Database } from '../schema.js';

export type DialectName = 'sqlite' | 'postgres';

/**
 * Everything that differs between SQLite and PostgreSQL at the connection,
 * DDL and locking level lives behind this interface, one file per dialect.
 * Larger query-level differences (full-text search) get their own folder per topic.
 */
export interface DialectSupport {
  readonly name: DialectName;
  readonly kyselyDialect: Dialect;
  /** Connections of the pool (PostgreSQL's pg.Pool) for GET /metrics; SQLite has one connection and no pool. */
  poolStats?(): { total: number; idle: number; waiting: number; max: number };
  /**
   * Tells `listener` of a pooled connection that broke while idle (PostgreSQL restarting or failing over); the pool
   * has dropped it and connects anew when asked. Answers the function that stops telling. SQLite: absent.
   */
  onConnectionError?(listener: (err: Error) => void): () => void;
  /**
   * A value that changes whenever the data may have changed, read without a query round trip, for the
   * answer cache (domain/answer-cache.ts). SQLite: `PRAGMA data_version` (commits of other connections:
   * another process on the same file) and `total_changes()` (rows this connection changed, triggers
   * included; a statement that changed nothing, such as the job worker's claim finding no job, does not
   * count). PostgreSQL has no counter that every process sees at no cost: absent, nothing is cached.
   */
  changeToken?(): string;
  /**
   * The change token of one request's reads: the commit counter of other connections (`PRAGMA data_version`,
   * which costs SQLite a few system calls) is read at the first call and kept, this connection's own changes
   * are read at every call. So a request reads the other processes' commits once, at its start (its cached
   * reads are those of that moment, which is after the request arrived), and still sees every write made
   * meanwhile through this connection (its own included). Present exactly when `changeToken` is.
   */
  requestChangeToken?(): () => string;
  /**
   * Schema of Kysely's migration tables. Kysely looks for them in every schema unless told,
   * so PostgreSQL names its own (other schemas in the database may hold their own copies).
   */
  readonly migrationSchema: string | undefined;
  /** Column type for integer Unix seconds and byte sizes. */
  readonly bigint: ColumnDataType;
  /** Column type for text ordered by its bytes (sort keys): SQLite's BINARY, PostgreSQL's COLLATE "C", whatever the database's locale. */
  readonly byteOrderedText: ColumnDataType | Expression<unknown>;
  /** Adds an auto-incrementing integer primary key called `id`. */
  addIdColumn<T extends string>(table: CreateTableBuilder<T, never>): CreateTableBuilder<T, 'id'>;
  /**
   * Inside a transaction, locks one row until commit. PostgreSQL: SELECT ... FOR UPDATE.
   * SQLite: nothing to do, its single connection already serialises transactions.
   */
  /**
   * Creates a trigger that, whenever a row of `table` with a non-null `keyColumn` is deleted
   * (directly or through a cascade), queues that storage key in `object_deletions`, so the
   * stored object is removed even when the row went with its workspace or folder.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  createObjectDeletionTrigger(db: Kysely<any>, table: string, keyColumn: string): Promise<void>;
  lockRow(trx: Kysely<Database>, table: 'workspaces' | 'assets' | 'shared_links' | 'users', id: number): Promise<void>;
  /**
   * Inside a transaction, keeps other writers of the table out until commit (readers go on),
   * for checks no single row can guard, e.g. "no user exists yet". PostgreSQL: LOCK TABLE
   * IN SHARE ROW EXCLUSIVE MODE. SQLite: nothing to do, as for lockRow.
   */
  lockTableForWrite(trx: Kysely<Database>, table: 'users'): Promise<void>;
}
