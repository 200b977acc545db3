import type { ColumnDataType, CreateTableBuilder, Dialect, Kysely } from 'kysely';
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
  /** Column type for integer Unix seconds and byte sizes. */
  readonly bigint: ColumnDataType;
  /** Adds an auto-incrementing integer primary key called `id`. */
  addIdColumn<T extends string>(table: CreateTableBuilder<T, never>): CreateTableBuilder<T, 'id'>;
  /**
   * Inside a transaction, locks one row until commit. PostgreSQL: SELECT ... FOR UPDATE.
   * SQLite: nothing to do, its single connection already serialises transactions.
   */
  lockRow(trx: Kysely<Database>, table: 'workspaces' | 'assets', id: number): Promise<void>;
}
