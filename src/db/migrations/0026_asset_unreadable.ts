import { sql, type Kysely } from 'kysely';
import type { DialectSupport } from '../dialects/types.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/**
 * Unreadable files (issue #27, section 3): `unreadable_reason`, in plain words, on a version whose file its preview
 * job could not decode or probe (a truncated JPEG, bytes that are no video), and on its asset while that version is
 * current, as the other file facts are; null = readable, or not checked (yet). The file itself is kept. The search
 * filter `unreadable:true` reads the asset column through a partial index behind the workspace: few assets have
 * one, so the index stays small and `unreadable_reason IS NOT NULL` lets both planners use it.
 *
 * Versions checked before this release are checked again: those whose preview or video preview a tool could not
 * make (images, videos, audio, PDFs, and office documents LibreOffice refused) get their jobs queued, so that damaged
 * files are marked and the notes that quoted a tool's own output (with a server path) are rewritten in fixed words.
 */
export async function up(db: AnyDB, _d: DialectSupport): Promise<void> {
  await db.schema.alterTable('asset_versions').addColumn('unreadable_reason', 'text').execute();
  await db.schema.alterTable('assets').addColumn('unreadable_reason', 'text').execute();
  await db.schema
    .createIndex('assets_unreadable_idx')
    .on('assets')
    .columns(['workspace_id', 'id'])
    .where(sql.ref('unreadable_reason'), 'is not', null)
    .execute();

  const now = Math.floor(Date.now() / 1000);
  const checked = sql`status = 'ready' AND preview_status IN ('unavailable', 'failed') AND (mime_type LIKE 'image/%'
    OR mime_type LIKE 'video/%' OR mime_type LIKE 'audio/%' OR mime_type = 'application/pdf' OR preview_note LIKE 'LibreOffice could not%')`;
  await sql`
    INSERT INTO jobs (kind, payload, status, attempts, max_attempts, run_at, created_at, updated_at)
    SELECT 'version.renditions', '{"versionId":' || CAST(id AS TEXT) || '}', 'queued', 0, 5, ${now}, ${now}, ${now}
    FROM asset_versions WHERE ${checked}`.execute(db);
  await sql`UPDATE asset_versions SET preview_status = 'pending', preview_note = NULL WHERE ${checked}`.execute(db);
  const videos = sql`status = 'ready' AND video_preview_status IN ('unavailable', 'failed')`;
  await sql`
    INSERT INTO jobs (kind, payload, status, attempts, max_attempts, run_at, created_at, updated_at)
    SELECT 'version.video_preview', '{"versionId":' || CAST(id AS TEXT) || '}', 'queued', 0, 5, ${now}, ${now}, ${now}
    FROM asset_versions WHERE ${videos}`.execute(db);
  await sql`UPDATE asset_versions SET video_preview_status = 'pending', video_preview_note = NULL WHERE ${videos}`.execute(db);
}
