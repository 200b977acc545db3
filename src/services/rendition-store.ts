import type { RenditionRow } from '../db/schema.js';
import type { DB } from '../db/database.js';
import * as versions from '../repositories/versions.js';
import { renditionKey } from '../storage/keys.js';
import type { ObjectStore } from '../storage/object-store.js';

/**
 * Stores one rendition file of a version (poster, thumbnail, video preview) under its key and records it; false
 * when the version went meanwhile (its object is removed again). `name` is the file name within the version's
 * renditions (`thumbnail.webp`, `video.mp4`).
 */
export async function keepRendition(
  db: DB,
  store: ObjectStore,
  version: versions.VersionRecord,
  rendition: Omit<RenditionRow, 'version_id' | 'storage_key'> & { name: string; file: string },
): Promise<boolean> {
  const { name, file, ...row } = rendition;
  const key = renditionKey(version.workspace_id, version.asset_id, version.id, name);
  await store.putFile(key, file, row.mime_type);
  try {
    await versions.upsertRendition(db, { ...row, version_id: version.id, storage_key: key });
    return true;
  } catch (err) {
    // Without a row, no trigger would ever queue this object for deletion.
    if (await versions.findVersion(db, version.id)) throw err;
    await store.delete(key);
    return false;
  }
}
