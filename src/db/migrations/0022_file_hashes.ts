import { sql, type Kysely } from 'kysely';
import type { DialectSupport } from '../dialects/types.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/**
 * Duplicate detection (issue #19): the SHA-256 of every stored file, as 64 lowercase hex digits, on its version
 * (`asset_versions.sha256`) and, like the other file facts, on its asset while that version is current
 * (`assets.sha256`). Null until the `version.sha256` job has read the file. Both are indexed behind the workspace:
 * every lookup (POST /dam/assets/check-duplicates, the search filters) is within one workspace or the caller's.
 * Files stored before this release are hashed by one `version.sha256_backfill` job, which queues the hashing of
 * the versions without a hash in bounded batches (src/services/file-hash-service.ts).
 */
export async function up(db: AnyDB, _d: DialectSupport): Promise<void> {
  await db.schema.alterTable('asset_versions').addColumn('sha256', 'text').execute();
  await db.schema.alterTable('assets').addColumn('sha256', 'text').execute();
  await db.schema.createIndex('asset_versions_sha256_idx').on('asset_versions').columns(['workspace_id', 'sha256']).execute();
  await db.schema.createIndex('assets_sha256_idx').on('assets').columns(['workspace_id', 'sha256']).execute();

  const now = Math.floor(Date.now() / 1000);
  await sql`
    INSERT INTO jobs (kind, payload, status, attempts, max_attempts, run_at, created_at, updated_at)
    VALUES ('version.sha256_backfill', '{"afterId":0}', 'queued', 0, 5, ${now}, ${now}, ${now})`.execute(db);
}
