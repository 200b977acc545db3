import type { DB } from '../db/database.js';
import { orientationOf } from '../domain/file-types.js';
import { parseObject } from './assets.js';

/**
 * SQL of embedded metadata (issue #12): the columns an extraction writes on the asset, and the file facts it
 * completes on a version. Callers hold the asset's row lock (the lock VersionLifecycle.promote takes), so the
 * version they read from stays current, or not, meanwhile.
 */

/** What one extraction writes on the asset. Text fields a user edited are left out by the caller. */
export interface EmbeddedColumns {
  taken_at: number | null;
  camera_make: string | null;
  camera_model: string | null;
  lens: string | null;
  iso: number | null;
  exposure: string | null;
  aperture: number | null;
  focal_length: number | null;
  gps_lat: number | null;
  gps_lon: number | null;
  duration: number | null;
  color_space: string | null;
  caption?: string | null;
  creator?: string | null;
  copyright?: string | null;
  usage_terms?: string | null;
  keywords: string[];
  embedded_metadata: Record<string, unknown>;
  /** The asset's tags with the file's new keywords merged in; omitted when they did not change. */
  tags?: string[];
  metadata_version_id: number;
}

export async function saveEmbeddedColumns(db: DB, assetId: number, values: EmbeddedColumns): Promise<void> {
  const { keywords, embedded_metadata, tags, ...plain } = values;
  await db
    .updateTable('assets')
    .set({
      ...plain,
      keywords: JSON.stringify(keywords),
      embedded_metadata: JSON.stringify(embedded_metadata),
      ...(tags !== undefined && { tags: JSON.stringify(tags) }),
    })
    .where('id', '=', assetId)
    .execute();
}

/** The kept tag set of one asset ({} until read). */
export async function findEmbeddedMetadata(db: DB, assetId: number): Promise<Record<string, unknown>> {
  const row = await db.selectFrom('assets').select('embedded_metadata').where('id', '=', assetId).executeTakeFirst();
  return row ? parseObject(row.embedded_metadata) : {};
}

/**
 * Width and height read by ExifTool for a version whose upload could not measure them (videos, images sharp
 * cannot decode), on the version and, while it is the current one, on its asset with the orientation they give.
 */
export async function setVersionDimensions(db: DB, versionId: number, width: number, height: number): Promise<void> {
  await db.updateTable('asset_versions').set({ width, height }).where('id', '=', versionId).execute();
  await db
    .updateTable('assets')
    .set({ width, height, orientation: orientationOf(width, height) })
    .where('id', '=', (eb) => eb.selectFrom('asset_versions').select('asset_id').where('id', '=', versionId).where('is_current', '=', 1))
    .execute();
}
