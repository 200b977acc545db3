import { sql, type Kysely } from 'kysely';
import { docIdSql } from '../index-schema/sources.js';
import { SORT_INDEXES, SORT_SOURCES, type SortSource } from './sources.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/**
 * search_sort on PostgreSQL: the same table, name_key in COLLATE "C" (byte
 * order, as SQLite's BINARY, so both order names alike), kept by one plpgsql
 * function per catalog table.
 */

const TABLE = `CREATE TABLE search_sort (
  doc_id bigint PRIMARY KEY, kind smallint NOT NULL, workspace_id integer NOT NULL, name_key text COLLATE "C" NOT NULL, file_size bigint NOT NULL)`;

function backfill(s: SortSource): string {
  return `INSERT INTO search_sort (doc_id, kind, workspace_id, name_key, file_size)
    SELECT ${docIdSql('r', s.kind, '::bigint')}, ${s.kind}, r.workspace_id, r.name_key, ${s.size('r')} FROM ${s.table} r`;
}

function trigger(s: SortSource): string[] {
  const fn = `search_sort_${s.table}`;
  return [
    `CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF TG_OP = 'DELETE' THEN
         DELETE FROM search_sort WHERE doc_id = ${docIdSql('OLD', s.kind, '::bigint')};
       ELSIF TG_OP = 'INSERT' THEN
         INSERT INTO search_sort (doc_id, kind, workspace_id, name_key, file_size)
         VALUES (${docIdSql('NEW', s.kind, '::bigint')}, ${s.kind}, NEW.workspace_id, NEW.name_key, ${s.size('NEW')});
       ELSE
         UPDATE search_sort SET workspace_id = NEW.workspace_id, name_key = NEW.name_key, file_size = ${s.size('NEW')}
         WHERE doc_id = ${docIdSql('NEW', s.kind, '::bigint')};
       END IF;
       RETURN NULL;
     END $$`,
    `CREATE TRIGGER ${fn} AFTER INSERT OR DELETE OR UPDATE OF ${s.watched.join(', ')} ON ${s.table} FOR EACH ROW EXECUTE FUNCTION ${fn}()`,
  ];
}

export async function createPostgresSortSchema(db: AnyDB): Promise<void> {
  const statements = [TABLE, ...SORT_SOURCES.map(backfill), ...SORT_INDEXES, ...SORT_SOURCES.flatMap(trigger)];
  for (const statement of statements) await sql.raw(statement).execute(db);
}
