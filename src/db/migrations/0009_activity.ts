import type { Kysely } from 'kysely';
import type { DialectSupport } from '../dialects/types.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/**
 * The activity log (issue #11): one row per change, written in the transaction of the change.
 * Versions made by a restore remember their source.
 */
export async function up(db: AnyDB, d: DialectSupport): Promise<void> {
  await d
    .addIdColumn(db.schema.createTable('activity'))
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    // The log outlives what it names: no foreign key on the subject or the asset (a deleted asset keeps its history),
    // and a deleted user's entries keep the name they were recorded under.
    .addColumn('actor_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('actor_name', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('subject_kind', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'integer', (c) => c.notNull())
    .addColumn('subject_name', 'text', (c) => c.notNull())
    .addColumn('asset_id', 'integer')
    .addColumn('changes', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', d.bigint, (c) => c.notNull())
    .execute();
  // Newest first by id, paged by `id < before`: one index per filter, each ending in id so the page is read in order.
  await db.schema.createIndex('activity_workspace_idx').on('activity').columns(['workspace_id', 'id']).execute();
  await db.schema.createIndex('activity_asset_idx').on('activity').columns(['workspace_id', 'asset_id', 'id']).execute();
  await db.schema.createIndex('activity_actor_idx').on('activity').columns(['workspace_id', 'actor_id', 'id']).execute();

  // The source of a restored version: its id and label, kept as they were (no foreign key: deleting the source
  // version later must not erase where the restored one came from; labels are never reused).
  await db.schema.alterTable('asset_versions').addColumn('restored_from_id', 'integer').execute();
  await db.schema.alterTable('asset_versions').addColumn('restored_from_number', 'integer').execute();
}
