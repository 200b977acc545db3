import { sql, type Kysely } from 'kysely';
import type { DialectSupport } from '../dialects/types.js';
import { allowRenditionKinds } from './rendition-kinds/index.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/**
 * Conversions and video previews (issue #15).
 *
 * - `conversions`: one row per POST /convert/image or /convert/video, run by a job of the queue.
 *   `dedup_key` (a hash of the source version and the normalised parameters) is unique while it
 *   is set: set for queued, running and succeeded conversions, cleared when one fails or is
 *   canceled (or its result is gone), so the same request finds the same conversion without a race
 *   (NULLs never collide in a unique index, on either database).
 * - `version_renditions.kind` gains `video`: the web-playable MP4 preview of a video version.
 * - `asset_versions.video_preview_status` / `_note`: null for versions that are not videos;
 *   `original` when the file itself plays in browsers and no transcode was made.
 *   Every ready video version is queued for its preview now (current versions first).
 */
export async function up(db: AnyDB, d: DialectSupport): Promise<void> {
  await d
    .addIdColumn(db.schema.createTable('conversions'))
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    // A source deleted for good takes its conversions with it; one in the trash keeps them.
    .addColumn('asset_id', 'integer', (c) => c.notNull().references('assets.id').onDelete('cascade'))
    .addColumn('source_version_id', 'integer', (c) => c.notNull().references('asset_versions.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('image', 'video')`))
    .addColumn('params', 'text', (c) => c.notNull())
    .addColumn('dedup_key', 'text')
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('queued', 'running', 'succeeded', 'failed', 'canceled')`))
    .addColumn('progress', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('result_asset_id', 'integer', (c) => c.references('assets.id').onDelete('set null'))
    .addColumn('result_version_id', 'integer', (c) => c.references('asset_versions.id').onDelete('set null'))
    .addColumn('error', 'text')
    .addColumn('requested_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('requested_by_name', 'text', (c) => c.notNull())
    .addColumn('created_at', d.bigint, (c) => c.notNull())
    .addColumn('updated_at', d.bigint, (c) => c.notNull())
    .addColumn('started_at', d.bigint)
    .addColumn('finished_at', d.bigint)
    .execute();
  await db.schema.createIndex('conversions_dedup_idx').on('conversions').column('dedup_key').unique().execute();
  // GET /convert/jobs: a workspace's newest first, optionally of one asset.
  await db.schema.createIndex('conversions_workspace_idx').on('conversions').columns(['workspace_id', 'id']).execute();
  await db.schema.createIndex('conversions_asset_idx').on('conversions').columns(['asset_id', 'id']).execute();
  await db.schema.createIndex('conversions_result_asset_idx').on('conversions').column('result_asset_id').execute();
  await db.schema.createIndex('conversions_result_version_idx').on('conversions').column('result_version_id').execute();
  await db.schema.createIndex('conversions_source_version_idx').on('conversions').column('source_version_id').execute();

  await allowRenditionKinds[d.name](db, d, ['thumbnail', 'preview', 'video']);

  await db.schema.alterTable('asset_versions').addColumn('video_preview_status', 'text').execute();
  await db.schema.alterTable('asset_versions').addColumn('video_preview_note', 'text').execute();
  const now = Math.floor(Date.now() / 1000);
  await sql`
    INSERT INTO jobs (kind, payload, status, attempts, max_attempts, run_at, created_at, updated_at)
    SELECT 'version.video_preview', '{"versionId":' || CAST(id AS TEXT) || '}', 'queued', 0, 5, ${now}, ${now}, ${now}
    FROM asset_versions WHERE status = 'ready' AND lower(mime_type) LIKE 'video/%'
    ORDER BY is_current DESC, id`.execute(db);
  await sql`
    UPDATE asset_versions SET video_preview_status = 'pending'
    WHERE status = 'ready' AND lower(mime_type) LIKE 'video/%'`.execute(db);
}
