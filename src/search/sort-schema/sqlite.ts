import { sql, type Kysely } from 'kysely';
import { docIdSql } from '../index-schema/sources.js';
import { SORT_INDEXES, SORT_SOURCES, type SortSource } from './sources.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/** search_sort on SQLite: a plain table (doc_id is the rowid), filled once, then kept by three triggers per catalog table. */

const TABLE = `CREATE TABLE search_sort (
  doc_id INTEGER PRIMARY KEY, kind INTEGER NOT NULL, workspace_id INTEGER NOT NULL, name_key TEXT NOT NULL, file_size INTEGER NOT NULL)`;

function backfill(s: SortSource): string {
  return `INSERT INTO search_sort (doc_id, kind, workspace_id, name_key, file_size)
    SELECT ${docIdSql('r', s.kind)}, ${s.kind}, r.workspace_id, r.name_key, ${s.size('r')} FROM ${s.table} r`;
}

function triggers(s: SortSource): string[] {
  const name = `search_sort_${s.table}`;
  return [
    `CREATE TRIGGER ${name}_insert AFTER INSERT ON ${s.table} BEGIN
       INSERT INTO search_sort (doc_id, kind, workspace_id, name_key, file_size)
       VALUES (${docIdSql('NEW', s.kind)}, ${s.kind}, NEW.workspace_id, NEW.name_key, ${s.size('NEW')});
     END`,
    `CREATE TRIGGER ${name}_update AFTER UPDATE OF ${s.watched.join(', ')} ON ${s.table} BEGIN
       UPDATE search_sort SET workspace_id = NEW.workspace_id, name_key = NEW.name_key, file_size = ${s.size('NEW')}
       WHERE doc_id = ${docIdSql('NEW', s.kind)};
     END`,
    `CREATE TRIGGER ${name}_delete AFTER DELETE ON ${s.table} BEGIN
       DELETE FROM search_sort WHERE doc_id = ${docIdSql('OLD', s.kind)};
     END`,
  ];
}

export async function createSqliteSortSchema(db: AnyDB): Promise<void> {
  const statements = [TABLE, ...SORT_SOURCES.map(backfill), ...SORT_INDEXES, ...SORT_SOURCES.flatMap(triggers)];
  for (const statement of statements) await sql.raw(statement).execute(db);
}
