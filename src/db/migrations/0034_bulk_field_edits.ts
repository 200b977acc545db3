import type { Kysely } from 'kysely';
import type { DialectSupport } from '../dialects/types.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/**
 * Bulk edits of custom fields (issue #30, POST /dam/bulk/fields): one row per edit, and per asset it changed the
 * values of the keys it touched before and after (JSON, as PATCH custom_fields writes them), so that
 * POST /dam/bulk/fields/{id}/undo puts back exactly what was there, on the assets nobody changed since.
 */
export async function up(db: AnyDB, d: DialectSupport): Promise<void> {
  await d
    .addIdColumn(db.schema.createTable('bulk_field_edits'))
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('operations', 'text', (c) => c.notNull())
    .addColumn('matched', 'integer', (c) => c.notNull())
    .addColumn('succeeded', 'integer', (c) => c.notNull())
    .addColumn('created_at', d.bigint, (c) => c.notNull())
    .addColumn('undone_at', d.bigint)
    .execute();
  await db.schema.createIndex('bulk_field_edits_workspace_idx').on('bulk_field_edits').columns(['workspace_id', 'id']).execute();
  await db.schema
    .createTable('bulk_field_edit_items')
    .addColumn('edit_id', 'integer', (c) => c.notNull().references('bulk_field_edits.id').onDelete('cascade'))
    .addColumn('asset_id', 'integer', (c) => c.notNull().references('assets.id').onDelete('cascade'))
    .addColumn('before', 'text', (c) => c.notNull())
    .addColumn('after', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('bulk_field_edit_items_pk', ['edit_id', 'asset_id'])
    .execute();
  await db.schema.createIndex('bulk_field_edit_items_asset_idx').on('bulk_field_edit_items').column('asset_id').execute();
}
