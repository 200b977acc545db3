import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { SqliteDialect, sql } from 'kysely';
import { withStatementCache } from './sqlite-statements.js';
import type { DialectSupport } from './types.js';

/** `sqlite:<path>` or `sqlite::memory:`. One connection; Kysely serialises transactions on it. */
export function sqliteSupport(url: string): DialectSupport {
  const file = url.slice('sqlite:'.length);
  if (file !== ':memory:') mkdirSync(path.dirname(file), { recursive: true });
  const database = new SQLite(file);
  database.pragma('journal_mode = WAL');
  database.pragma('foreign_keys = ON');
  database.pragma('synchronous = NORMAL');
  database.pragma('busy_timeout = 5000');
  // The change token (DialectSupport.changeToken): data_version about 1.3 us per read (two fcntl under load),
  // total_changes 0.1 us (no system call), where a statement of the answer costs 5 to 50.
  const dataVersion = database.prepare('PRAGMA data_version').pluck();
  const totalChanges = database.prepare('SELECT total_changes()').pluck();
  return {
    name: 'sqlite',
    kyselyDialect: new SqliteDialect({ database: withStatementCache(database) }),
    changeToken: () => `${String(dataVersion.get())}.${String(totalChanges.get())}`,
    requestChangeToken: () => {
      let commits: string | undefined;
      return () => `${(commits ??= String(dataVersion.get()))}.${String(totalChanges.get())}`;
    },
    migrationSchema: undefined,
    bigint: 'integer',
    byteOrderedText: 'text',
    addIdColumn: (table) => table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement()),
    createObjectDeletionTrigger: async (db, table, keyColumn) => {
      await sql`
        CREATE TRIGGER ${sql.id(`${table}_object_deletion`)} AFTER DELETE ON ${sql.id(table)}
        FOR EACH ROW WHEN OLD.${sql.id(keyColumn)} IS NOT NULL
        BEGIN
          INSERT INTO object_deletions (storage_key, queued_at)
          VALUES (OLD.${sql.id(keyColumn)}, CAST(strftime('%s', 'now') AS INTEGER));
        END`.execute(db);
    },
    lockRow: () => Promise.resolve(),
    lockTableForWrite: () => Promise.resolve(),
  };
}
