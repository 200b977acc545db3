import { sql, type Kysely } from 'kysely';
import { sortKey } from '../../domain/sort-key.js';
import { createSortSchema } from '../../search/sort-schema/index.js';
import type { DialectSupport } from '../dialects/types.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/** Each catalog table and the column its name_key is computed from. */
const NAMED = [
  { table: 'assets', name: 'display_file_name' },
  { table: 'folders', name: 'name' },
  { table: 'collections', name: 'name' },
] as const;

/** Rows per read and per UPDATE (two parameters a row, far under either database's limit). */
const BATCH = 1000;

/**
 * Sorting by name and size (issue #11). Each catalog table gets `name_key`,
 * the natural sort key of its name (src/domain/sort-key.ts), which the
 * repositories write with every name from now on; existing rows get theirs
 * here, computed in JS in batches of 1,000 (neither database could compute
 * it the same way in SQL). Then the B-trees of the catalog lists,
 * search_sort, the search's copy of the two orders (src/search/sort-schema/),
 * and an index of search_documents by folder.
 */
export async function up(db: AnyDB, d: DialectSupport): Promise<void> {
  for (const { table, name } of NAMED) {
    // NOT NULL needs a default for ALTER TABLE on SQLite; every write path sets the key (the Kysely types require it).
    await db.schema
      .alterTable(table)
      .addColumn('name_key', d.byteOrderedText, (c) => c.notNull().defaultTo(''))
      .execute();
    await backfillKeys(db, table, name);
    await db.schema.createIndex(`${table}_name_idx`).on(table).columns(['workspace_id', 'name_key', 'id']).execute();
  }
  await db.schema.createIndex('assets_size_idx').on('assets').columns(['workspace_id', 'file_size', 'id']).execute();
  await createSortSchema[d.name](db);
  // A folder's documents (the web client's library view): counted and read by date from this range, and
  // sorted by name or size after reading only them, instead of walking the whole workspace in that order.
  await db.schema
    .createIndex('search_documents_folder')
    .on('search_documents')
    .columns(['kind', 'workspace_id', 'folder_id', 'modified_at', 'doc_id'])
    .execute();
}

/** Writes name_key of every row, in id order, one UPDATE … FROM (VALUES …) per batch (SQLite 3.33+ and PostgreSQL). */
async function backfillKeys(db: AnyDB, table: string, nameColumn: string): Promise<void> {
  for (let after = 0; ; ) {
    const rows = await db
      .selectFrom(table)
      .select(['id', sql.ref<string>(nameColumn).as('name')])
      .where('id', '>', after)
      .orderBy('id')
      .limit(BATCH)
      .execute();
    if (rows.length === 0) return;
    // VALUES columns are column1, column2 on both databases; the cast types the ids for PostgreSQL.
    const values = rows.map((r) => sql`(CAST(${r.id} AS INTEGER), ${sortKey(String(r.name))})`);
    await sql`UPDATE ${sql.table(table)} SET name_key = v.column2 FROM (VALUES ${sql.join(values)}) AS v
      WHERE ${sql.ref(`${table}.id`)} = v.column1`.execute(db);
    after = Number(rows.at(-1)!.id);
  }
}
