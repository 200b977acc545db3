import { sql } from 'kysely';
import type { DatabaseHandle } from '../../src/db/database.js';

/** The embedded-metadata tables (migration 0012); absent before it. */
const EMBEDDED = ['search_asset_facts', 'search_keywords'];
/** The term dictionary (migration 0027); absent before it. */
const TERMS = ['search_terms'];

/** Removes the search index objects (tables, triggers, PostgreSQL functions), so a test can rebuild them with the backfill. */
export async function dropSearchSchema(handle: DatabaseHandle): Promise<void> {
  const db = handle.db;
  if (handle.dialect === 'sqlite') {
    for (const table of ['assets', 'folders', 'collections']) {
      for (const event of ['insert', 'update', 'delete']) await sql.raw(`DROP TRIGGER search_${table}_${event}`).execute(db);
    }
    for (const table of ['search_fts', 'search_documents', 'search_names', 'search_tags', ...EMBEDDED, ...TERMS, 'search_term_vocab', 'search_term_stage']) {
      await sql.raw(`DROP TABLE IF EXISTS ${table}`).execute(db);
    }
    return;
  }
  for (const table of ['assets', 'folders', 'collections']) await sql.raw(`DROP FUNCTION search_index_${table}() CASCADE`).execute(db);
  for (const table of ['search_documents', 'search_names', 'search_tags', ...EMBEDDED, ...TERMS]) await sql.raw(`DROP TABLE IF EXISTS ${table}`).execute(db);
  for (const fn of ['search_fold', 'search_split_text', 'search_words', 'search_tag_list']) await sql.raw(`DROP FUNCTION ${fn}(text)`).execute(db);
  await sql.raw('DROP FUNCTION IF EXISTS search_flush_terms() CASCADE').execute(db);
  await sql.raw('DROP TABLE IF EXISTS search_term_deltas').execute(db);
}

/** Everything the index holds, in a comparable order. */
export async function indexSnapshot(handle: DatabaseHandle): Promise<unknown[]> {
  const db = handle.db;
  const text =
    handle.dialect === 'sqlite'
      ? // A contentless FTS5 table has no readable columns; its vocabulary (term, doc, column) is the content.
        sql`SELECT 1`
      : sql`SELECT doc_id, name_norm, search_vector::text AS words FROM search_documents ORDER BY doc_id`;
  return Promise.all([
    db.selectFrom('search_documents').select(['doc_id', 'kind', 'ref_id', 'workspace_id', 'folder_id', 'file_type', 'orientation', 'visibility', 'created_at', 'modified_at']).orderBy('doc_id').execute(),
    db.selectFrom('search_names').selectAll().orderBy('doc_id').execute(),
    db.selectFrom('search_tags').selectAll().orderBy('doc_id').orderBy('tag').execute(),
    text.execute(db).then((r) => r.rows),
  ]);
}

/** Everything the embedded-metadata tables (migration 0012) hold, in a comparable order. */
export async function embeddedSnapshot(handle: DatabaseHandle): Promise<unknown[]> {
  const db = handle.db;
  return Promise.all([
    db.selectFrom('search_documents').select(['doc_id', 'taken_at']).where('taken_at', 'is not', null).orderBy('doc_id').execute(),
    db.selectFrom('search_asset_facts').selectAll().orderBy('doc_id').execute(),
    db.selectFrom('search_keywords').selectAll().orderBy('doc_id').orderBy('keyword').execute(),
  ]);
}
