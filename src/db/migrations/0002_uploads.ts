import { sql, type Kysely } from 'kysely';
import type { DialectSupport } from '../dialects/types.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/** Multipart upload sessions and their parts (they survive restarts), local-store settings, asset status. */
export async function up(db: AnyDB, d: DialectSupport): Promise<void> {
  // An asset exists from start-upload on, as 'uploading', so that its id (and key) is known
  // to the client; it is listed and searchable only once 'ready'.
  await db.schema
    .alterTable('assets')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('ready').check(sql`status in ('uploading', 'ready')`))
    .execute();

  await db.schema
    .createTable('upload_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('asset_id', 'integer', (c) => c.notNull().references('assets.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('mime_type', 'text', (c) => c.notNull())
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('created_at', d.bigint, (c) => c.notNull())
    .addColumn('touched_at', d.bigint, (c) => c.notNull())
    .addColumn('completed_at', d.bigint)
    /** JSON: the parts list and the answer of the completion, for idempotent repeats. */
    .addColumn('completion', 'text')
    .execute();
  await db.schema.createIndex('upload_sessions_touched_idx').on('upload_sessions').column('touched_at').execute();
  await db.schema.createIndex('upload_sessions_asset_idx').on('upload_sessions').column('asset_id').execute();

  await db.schema
    .createTable('upload_parts')
    .addColumn('upload_id', 'text', (c) => c.notNull().references('upload_sessions.id').onDelete('cascade'))
    .addColumn('part_number', 'integer', (c) => c.notNull())
    .addColumn('etag', 'text', (c) => c.notNull())
    .addColumn('size', d.bigint, (c) => c.notNull())
    .addColumn('uploaded_at', d.bigint, (c) => c.notNull())
    .addPrimaryKeyConstraint('upload_parts_pk', ['upload_id', 'part_number'])
    .execute();

  // Storage keys whose rows are gone; housekeeping deletes the objects, then the entry.
  await d
    .addIdColumn(db.schema.createTable('object_deletions'))
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('queued_at', d.bigint, (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await d.createObjectDeletionTrigger(db, 'assets', 'storage_key');

  await db.schema
    .createTable('settings')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
}
