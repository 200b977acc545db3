import { sql, type Kysely } from 'kysely';
import type { DialectSupport } from '../dialects/types.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/**
 * Document previews (issue #11): a version's page count (PDFs, and office documents through their
 * PDF), copied to its asset like the other file facts; null when unknown or not paged.
 * Versions whose preview was unavailable are queued again: PDFs, office and text files made
 * before this release get their previews now (types still without one only say so again).
 */
export async function up(db: AnyDB, _d: DialectSupport): Promise<void> {
  await db.schema.alterTable('asset_versions').addColumn('page_count', 'integer').execute();
  await db.schema.alterTable('assets').addColumn('page_count', 'integer').execute();

  const now = Math.floor(Date.now() / 1000);
  await sql`
    INSERT INTO jobs (kind, payload, status, attempts, max_attempts, run_at, created_at, updated_at)
    SELECT 'version.renditions', '{"versionId":' || CAST(id AS TEXT) || '}', 'queued', 0, 5, ${now}, ${now}, ${now}
    FROM asset_versions WHERE status = 'ready' AND preview_status = 'unavailable'`.execute(db);
  await sql`
    UPDATE asset_versions SET preview_status = 'pending', preview_note = NULL
    WHERE status = 'ready' AND preview_status = 'unavailable'`.execute(db);
}
