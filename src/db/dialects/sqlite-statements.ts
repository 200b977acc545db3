import type SQLite from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

type RowBuilder = (values: unknown[]) => Record<string, unknown>;

/**
 * One object literal per statement, of its result columns in order: `{"id": v[0], "name": v[1], ...}`.
 * better-sqlite3 builds each row object by adding one property at a time, which for the catalog's 40-odd
 * columns cost as much as running the query; rows read as arrays (raw mode) and made into objects of one fixed
 * shape by this function cost about 40 % less CPU (issue #18). A repeated column name keeps its last value,
 * as better-sqlite3's own objects do. The names come from SQLite, never from a request.
 */
function rowBuilder(statement: SQLite.Statement): { width: number; build: RowBuilder } {
  const names = statement.columns().map((c) => c.name);
  const fields = names.map((name, i) => `${JSON.stringify(name)}: v[${i}]`).join(', ');
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- generated from column names, like fast-json-stringify's serialisers
  return { width: names.length, build: new Function('v', `return { ${fields} };`) as RowBuilder };
}

/** A statement that answers rows as objects (what Kysely expects), read in raw mode and built by `rowBuilder`. */
function objectRows(statement: SQLite.Statement): SqliteStatement {
  if (!statement.reader) return statement;
  statement.raw(true);
  let shape = rowBuilder(statement);
  const toObject = (values: unknown[]) => {
    // A schema change re-prepares the statement inside SQLite and may change its columns.
    if (values.length !== shape.width) shape = rowBuilder(statement);
    return shape.build(values);
  };
  return {
    reader: true,
    all(parameters) {
      const rows = statement.all(parameters) as unknown[][];
      const out = new Array<Record<string, unknown>>(rows.length);
      for (let i = 0; i < rows.length; i += 1) out[i] = toObject(rows[i]!);
      return out;
    },
    run: (parameters) => statement.run(parameters),
    *iterate(parameters) {
      for (const values of statement.iterate(parameters) as IterableIterator<unknown[]>) yield toObject(values);
    },
  };
}

/** Schema changes (migrations) invalidate the cached statements and their row shapes. */
const DDL = /^\s*(create|alter|drop)\b/i;

const ROLLBACK = /^\s*rollback\s*;?\s*$/i;

/**
 * Kysely's ROLLBACK after a failed transaction, when SQLite has already rolled it back itself: it does so on
 * SQLITE_FULL (a full disk, issue #37), SQLITE_IOERR and SQLITE_NOMEM, and the ROLLBACK would then fail with "cannot
 * rollback - no transaction is active", an error that takes the place of the one that explains what happened (and
 * is answered as a 500 instead of 507 INSUFFICIENT_STORAGE). Nothing is left to roll back: the statement does nothing.
 */
function rollbackIfOpen(database: SQLite.Database, statement: SqliteStatement): SqliteStatement {
  return {
    reader: false,
    all: (parameters) => statement.all(parameters),
    run: (parameters) => (database.inTransaction ? statement.run(parameters) : { changes: 0, lastInsertRowid: 0 }),
    iterate: (parameters) => statement.iterate(parameters),
  };
}

/**
 * Kysely's SQLite driver prepares every statement it runs, and preparing costs
 * about as much as running a small indexed query (a quarter of a millisecond
 * per request was spent in prepare() before this cache). Statements are kept
 * by their SQL text, least recently used dropped first; the values are bound
 * at each run, so one statement serves every call of the same query shape.
 *
 * Safe to share: the driver holds its single connection for the whole of a
 * query or stream, so no cached statement is ever used by two at once, and
 * SQLite re-prepares a statement itself when the schema has changed; after a
 * schema change made through this handle the cache starts afresh, so that the
 * row shapes are read again too.
 */
export function withStatementCache(database: SQLite.Database, capacity = 500): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    prepare(sql: string) {
      if (DDL.test(sql)) {
        statements.clear();
        return database.prepare(sql);
      }
      if (ROLLBACK.test(sql)) return rollbackIfOpen(database, database.prepare(sql));
      let statement = statements.get(sql);
      if (statement) {
        statements.delete(sql);
      } else {
        statement = objectRows(database.prepare(sql));
        if (statements.size >= capacity) statements.delete(statements.keys().next().value!);
      }
      statements.set(sql, statement);
      return statement;
    },
    close() {
      statements.clear();
      database.close();
    },
  };
}
