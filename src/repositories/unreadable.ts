import type { DB } from '../db/database.js';

/**
 * Unreadable files (migration 0026, issue #27): records why a version's file cannot be read and, while that version
 * is its asset's current one (the asset's storage_key is the version's: every version has a key of its own), on the
 * asset too. A version made current later copies its own reason (applyVersionToAsset), so a readable new version
 * clears the asset's flag and no lock is needed.
 */
export async function saveUnreadableReason(db: DB, version: { id: number; asset_id: number; storage_key: string }, reason: string): Promise<void> {
  await db.updateTable('asset_versions').set({ unreadable_reason: reason }).where('id', '=', version.id).execute();
  await db
    .updateTable('assets')
    .set({ unreadable_reason: reason })
    .where('id', '=', version.asset_id)
    .where('storage_key', '=', version.storage_key)
    .execute();
}
