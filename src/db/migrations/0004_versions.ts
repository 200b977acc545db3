import { sql, type Kysely } from 'kysely';
import type { DialectSupport } from '../dialects/types.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/**
 * Asset versions (seed 2.5, 3, 9), their preview renditions and the durable job queue
 * that makes them (issue #5). Existing assets get their file as v1, with a job each.
 */
export async function up(db: AnyDB, d: DialectSupport): Promise<void> {
  await d
    .addIdColumn(db.schema.createTable('asset_versions'))
    .addColumn('asset_id', 'integer', (c) => c.notNull().references('assets.id').onDelete('cascade'))
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('number', 'integer')
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('uploading', 'ready')`))
    .addColumn('is_current', 'integer', (c) => c.notNull().defaultTo(0).check(sql`is_current in (0, 1)`))
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('display_file_name', 'text', (c) => c.notNull())
    .addColumn('mime_type', 'text', (c) => c.notNull())
    .addColumn('file_size', d.bigint, (c) => c.notNull().defaultTo(0))
    .addColumn('width', 'integer')
    .addColumn('height', 'integer')
    .addColumn('metadata', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('preview_status', 'text', (c) =>
      c.notNull().defaultTo('pending').check(sql`preview_status in ('pending', 'ready', 'unavailable', 'failed')`),
    )
    .addColumn('preview_note', 'text')
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', d.bigint, (c) => c.notNull())
    // A label exactly when the version is ready; only a ready version can be current.
    .addCheckConstraint('asset_versions_label_check', sql`(status = 'ready') = (number is not null)`)
    .addCheckConstraint('asset_versions_current_check', sql`is_current = 0 or status = 'ready'`)
    .execute();
  // seed 9: labels are never reused within an asset.
  await db.schema.createIndex('asset_versions_label_idx').on('asset_versions').columns(['asset_id', 'number']).unique().execute();
  // seed 3: exactly one current version per asset, enforced here and not only in code.
  await db.schema
    .createIndex('asset_versions_one_current_idx')
    .on('asset_versions')
    .column('asset_id')
    .unique()
    .where(sql.ref('is_current'), '=', sql.lit(1))
    .execute();
  await d.createObjectDeletionTrigger(db, 'asset_versions', 'storage_key');

  await db.schema
    .createTable('version_renditions')
    .addColumn('version_id', 'integer', (c) => c.notNull().references('asset_versions.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('thumbnail', 'preview')`))
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('mime_type', 'text', (c) => c.notNull())
    .addColumn('width', 'integer', (c) => c.notNull())
    .addColumn('height', 'integer', (c) => c.notNull())
    .addColumn('file_size', d.bigint, (c) => c.notNull())
    .addPrimaryKeyConstraint('version_renditions_pk', ['version_id', 'kind'])
    .execute();
  await d.createObjectDeletionTrigger(db, 'version_renditions', 'storage_key');

  await db.schema
    .alterTable('upload_sessions')
    .addColumn('version_id', 'integer', (c) => c.references('asset_versions.id').onDelete('cascade'))
    .execute();

  await d
    .addIdColumn(db.schema.createTable('jobs'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('queued', 'running', 'succeeded', 'failed')`))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('run_at', d.bigint, (c) => c.notNull())
    .addColumn('locked_by', 'text')
    .addColumn('locked_until', d.bigint)
    .addColumn('last_error', 'text')
    .addColumn('created_at', d.bigint, (c) => c.notNull())
    .addColumn('updated_at', d.bigint, (c) => c.notNull())
    .addColumn('finished_at', d.bigint)
    .execute();
  // Claims look for queued jobs that are due and running jobs whose lease ran out.
  await db.schema.createIndex('jobs_status_run_at_idx').on('jobs').columns(['status', 'run_at']).execute();
  await db.schema.createIndex('jobs_status_locked_until_idx').on('jobs').columns(['status', 'locked_until']).execute();

  // Every ready asset of an existing installation gets its file as v1, and a job for its renditions.
  await sql`
    INSERT INTO asset_versions (asset_id, workspace_id, number, status, is_current, file_name, display_file_name, mime_type,
      file_size, width, height, metadata, storage_key, created_by, created_at)
    SELECT id, workspace_id, 1, 'ready', 1, file_name, display_file_name, mime_type,
      file_size, width, height, metadata, storage_key, created_by, modified_at
    FROM assets WHERE status = 'ready' AND storage_key IS NOT NULL`.execute(db);
  await sql`
    INSERT INTO jobs (kind, payload, status, attempts, max_attempts, run_at, created_at, updated_at)
    SELECT 'version.renditions', '{"versionId":' || CAST(id AS TEXT) || '}', 'queued', 0, 5, created_at, created_at, created_at
    FROM asset_versions`.execute(db);
}
