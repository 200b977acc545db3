import type { DB } from '../db/database.js';
import { fileTypeOf, orientationOf } from '../domain/file-types.js';

/** SQL for an asset's life during an upload: key assignment, becoming ready, removal of an unfinished one. */

export async function setStorageKey(db: DB, assetId: number, key: string): Promise<void> {
  await db.updateTable('assets').set({ storage_key: key }).where('id', '=', assetId).execute();
}

export async function markAssetReady(
  db: DB,
  assetId: number,
  file: { mime_type: string; file_size: number; width: number | null; height: number | null },
  now: number,
): Promise<void> {
  await db
    .updateTable('assets')
    .set({ ...file, file_type: fileTypeOf(file.mime_type), orientation: orientationOf(file.width, file.height), status: 'ready', modified_at: now })
    .where('id', '=', assetId)
    .execute();
}

/** Deletes the asset only while it is still 'uploading' (a sweep never removes a finished asset). */
export async function deleteUploadingAsset(db: DB, assetId: number): Promise<void> {
  await db.deleteFrom('assets').where('id', '=', assetId).where('status', '=', 'uploading').execute();
}
