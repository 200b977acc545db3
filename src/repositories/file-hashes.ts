import type { DB } from '../db/database.js';
import { visibleAssetsSql, type AssetSight } from '../domain/asset-visibility.js';

/** SQL of duplicate detection (issue #19, migration 0022): the SHA-256 of stored files, on versions and assets. */

/** Ids of ready versions without a hash after `afterId`, in id order: one backfill batch. */
export async function versionsWithoutHash(db: DB, afterId: number, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom('asset_versions')
    .select('id')
    .where('status', '=', 'ready')
    .where('sha256', 'is', null)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/**
 * Records a version's hash and, while that version is its asset's current one (the asset's storage_key is the
 * version's: every version has a key of its own), the asset's. A version made current meanwhile copies the
 * hash itself (applyVersionToAsset), so no lock is needed.
 */
export async function saveVersionHash(db: DB, version: { id: number; asset_id: number; storage_key: string }, sha256: string): Promise<void> {
  await db.updateTable('asset_versions').set({ sha256 }).where('id', '=', version.id).execute();
  await db
    .updateTable('assets')
    .set({ sha256 })
    .where('id', '=', version.asset_id)
    .where('storage_key', '=', version.storage_key)
    .execute();
}

/** Listed, non-trashed assets of the workspace that `sight` sees whose current file has one of the hashes. */
export async function assetsWithHashes(db: DB, workspaceId: number, hashes: readonly string[], sight: AssetSight): Promise<{ id: number; sha256: string }[]> {
  if (hashes.length === 0) return [];
  const visible = visibleAssetsSql(sight);
  let q = db
    .selectFrom('assets')
    .select(['id', 'sha256'])
    .where('workspace_id', '=', workspaceId)
    .where('sha256', 'in', hashes)
    .where('status', '=', 'ready')
    .where('deleted_at', 'is', null);
  if (visible) q = q.where(visible);
  const rows = await q.orderBy('id').execute();
  return rows.filter((r): r is { id: number; sha256: string } => r.sha256 !== null);
}
