import { sql, type Kysely } from 'kysely';
import { replaceSearchTriggers } from '../../search/index-schema/index.js';
import { INDEX_SOURCES_0007 } from '../../search/index-schema/sources.js';
import type { DialectSupport } from '../dialects/types.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

const TABLES = ['assets', 'folders', 'collections'] as const;

/**
 * The trash (issue #11): deleting an asset, folder or collection sets `deleted_at` (Unix seconds)
 * and `deleted_by` (the user) instead of deleting the row; housekeeping deletes rows trashed more
 * than DAM_TRASH_DAYS ago, and only then do the object-deletion triggers queue their files.
 */
export async function up(db: AnyDB, d: DialectSupport): Promise<void> {
  for (const table of TABLES) {
    await db.schema.alterTable(table).addColumn('deleted_at', d.bigint).execute();
    await db.schema
      .alterTable(table)
      .addColumn('deleted_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
      .execute();
    // Only trashed rows: the trash listing (per workspace, newest first) and the purge read this.
    await db.schema
      .createIndex(`${table}_trash_idx`)
      .on(table)
      .columns(['workspace_id', 'deleted_at'])
      .where(sql.ref('deleted_at'), 'is not', null)
      .execute();
  }
  // A trashed row leaves the search index: the triggers now test and watch deleted_at. Rows keep
  // their index entries as they are: deleted_at is NULL on every row here, so the backfill of the
  // new sources is exactly what the index holds (test/trash-migration.test.ts checks this).
  // The sources of this migration's time: later columns (0011's embedded metadata) do not exist yet.
  await replaceSearchTriggers[d.name](db, INDEX_SOURCES_0007);
}
