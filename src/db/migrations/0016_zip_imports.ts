import { sql, type Kysely } from 'kysely';
import type { DialectSupport } from '../dialects/types.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/**
 * Imports of stored ZIP archives (issue #14, POST /zip/extract): one row per import, run by a job,
 * and one row per entry it dealt with. `(import_id, entry_index)` is the entry row's primary key,
 * so a job that runs again (a lost lease, a retry) skips the entries already recorded.
 */
export async function up(db: AnyDB, d: DialectSupport): Promise<void> {
  await d
    .addIdColumn(db.schema.createTable('zip_imports'))
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('source_asset_id', 'integer', (c) => c.references('assets.id').onDelete('set null'))
    .addColumn('folder_id', 'integer', (c) => c.references('folders.id').onDelete('set null'))
    .addColumn('requested_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('requested_by_name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('queued', 'running', 'succeeded', 'failed')`))
    .addColumn('total_entries', 'integer')
    .addColumn('bytes_written', d.bigint, (c) => c.notNull().defaultTo(0))
    .addColumn('error', 'text')
    .addColumn('created_at', d.bigint, (c) => c.notNull())
    .addColumn('updated_at', d.bigint, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('zip_imports_workspace_idx').on('zip_imports').column('workspace_id').execute();

  await db.schema
    .createTable('zip_import_entries')
    .addColumn('import_id', 'integer', (c) => c.notNull().references('zip_imports.id').onDelete('cascade'))
    .addColumn('entry_index', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('file', 'directory')`))
    .addColumn('outcome', 'text', (c) => c.notNull().check(sql`outcome in ('imported', 'skipped', 'failed')`))
    .addColumn('reason', 'text')
    .addColumn('message', 'text')
    .addColumn('asset_id', 'integer', (c) => c.references('assets.id').onDelete('set null'))
    .addColumn('folder_id', 'integer', (c) => c.references('folders.id').onDelete('set null'))
    .addPrimaryKeyConstraint('zip_import_entries_pk', ['import_id', 'entry_index'])
    .execute();
  await db.schema.createIndex('zip_import_entries_asset_idx').on('zip_import_entries').column('asset_id').execute();
  await db.schema.createIndex('zip_import_entries_folder_idx').on('zip_import_entries').column('folder_id').execute();
}
