import type { DB } from '../db/database.js';
import type { AssetVersionRow, RenditionRow } from '../db/schema.js';
import { fileTypeOf, orientationOf } from '../domain/file-types.js';
import { parseObject } from './assets.js';

/**
 * SQL for asset versions (seed 2.5) and their renditions. A version is 'uploading' from the
 * moment its key is handed out until its file is whole; then it gets its label and becomes
 * current (`promote*` below, always inside a transaction holding the asset's row lock).
 */
export interface VersionRecord extends Omit<AssetVersionRow, 'metadata'> {
  metadata: Record<string, unknown>;
}

/** A listed version with the key of its thumbnail, when one was made. */
export interface ListedVersion extends VersionRecord {
  thumbnail_key: string | null;
}

function toRecord<T extends AssetVersionRow>(row: T): Omit<T, 'metadata'> & { metadata: Record<string, unknown> } {
  return { ...row, metadata: parseObject(row.metadata) };
}

export interface NewVersionValues {
  asset_id: number;
  workspace_id: number;
  file_name: string;
  display_file_name: string;
  mime_type: string;
  file_size?: number;
  width?: number | null;
  height?: number | null;
  metadata?: Record<string, unknown>;
  /** Placeholder until the id is known, for keys derived from it (see setVersionKey). */
  storage_key: string;
  created_by: string;
  created_at: number;
}

export async function insertUploadingVersion(db: DB, v: NewVersionValues): Promise<VersionRecord> {
  const row = await db
    .insertInto('asset_versions')
    .values({
      asset_id: v.asset_id,
      workspace_id: v.workspace_id,
      number: null,
      status: 'uploading',
      file_name: v.file_name,
      display_file_name: v.display_file_name,
      mime_type: v.mime_type,
      file_size: v.file_size ?? 0,
      width: v.width ?? null,
      height: v.height ?? null,
      metadata: JSON.stringify(v.metadata ?? {}),
      storage_key: v.storage_key,
      created_by: v.created_by,
      created_at: v.created_at,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toRecord(row);
}

export async function setVersionKey(db: DB, id: number, key: string): Promise<void> {
  await db.updateTable('asset_versions').set({ storage_key: key }).where('id', '=', id).execute();
}

export async function findVersion(db: DB, id: number): Promise<VersionRecord | undefined> {
  const row = await db.selectFrom('asset_versions').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toRecord(row);
}

/** Ready versions of an asset, newest label first, with their thumbnail keys. */
export async function listVersions(db: DB, assetId: number): Promise<ListedVersion[]> {
  const rows = await db
    .selectFrom('asset_versions as v')
    .leftJoin('version_renditions as r', (join) => join.onRef('r.version_id', '=', 'v.id').on('r.kind', '=', 'thumbnail'))
    .selectAll('v')
    .select('r.storage_key as thumbnail_key')
    .where('v.asset_id', '=', assetId)
    .where('v.status', '=', 'ready')
    .orderBy('v.number', 'desc')
    .execute();
  return rows.map(toRecord);
}

export async function renditionKeysOf(db: DB, versionId: number): Promise<string[]> {
  const rows = await db.selectFrom('version_renditions').select('storage_key').where('version_id', '=', versionId).execute();
  return rows.map((r) => r.storage_key);
}

/** The highest label the asset has had. The current version always holds it (only history can be deleted). */
export async function lastVersionNumber(db: DB, assetId: number): Promise<number> {
  const row = await db
    .selectFrom('asset_versions')
    .select((eb) => eb.fn.max('number').as('n'))
    .where('asset_id', '=', assetId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The outgoing current version keeps the metadata it had while current (seed 9). */
export async function demoteCurrentVersion(db: DB, assetId: number, metadata: Record<string, unknown>): Promise<void> {
  await db
    .updateTable('asset_versions')
    .set({ is_current: 0, metadata: JSON.stringify(metadata) })
    .where('asset_id', '=', assetId)
    .where('is_current', '=', 1)
    .execute();
}

export async function markVersionCurrent(
  db: DB,
  id: number,
  values: {
    number: number;
    mime_type: string;
    file_size: number;
    width: number | null;
    height: number | null;
    page_count?: number | null;
    /** Known when the upload hashed the file as it arrived; otherwise the version.sha256 job sets it. */
    sha256?: string;
    metadata: Record<string, unknown>;
    restored_from_id: number | null;
    restored_from_number: number | null;
  },
): Promise<void> {
  await db
    .updateTable('asset_versions')
    .set({ ...values, metadata: JSON.stringify(values.metadata), status: 'ready', is_current: 1 })
    .where('id', '=', id)
    .execute();
}

/** The asset's file facts follow its current version (issue #5). */
export async function applyVersionToAsset(db: DB, assetId: number, v: VersionRecord, now: number): Promise<void> {
  await db
    .updateTable('assets')
    .set({
      file_name: v.file_name,
      mime_type: v.mime_type,
      file_type: fileTypeOf(v.mime_type),
      file_size: v.file_size,
      width: v.width,
      height: v.height,
      orientation: orientationOf(v.width, v.height),
      page_count: v.page_count,
      // Null for a new file until its version.sha256 job has read it (it then sets both), unless the upload hashed it.
      sha256: v.sha256,
      // Null for a new file until its preview job has checked it (migration 0026): a readable new version clears the flag.
      unreadable_reason: v.unreadable_reason,
      metadata: JSON.stringify(v.metadata),
      storage_key: v.storage_key,
      modified_at: now,
    })
    .where('id', '=', assetId)
    .execute();
}

/** Removes a version only while it is still 'uploading' (aborted or swept uploads). */
export async function deleteUploadingVersion(db: DB, id: number): Promise<void> {
  await db.deleteFrom('asset_versions').where('id', '=', id).where('status', '=', 'uploading').execute();
}

/** Removes a history version; the current one is never deleted (seed 3). Returns whether a row went. */
export async function deleteHistoryVersion(db: DB, id: number): Promise<boolean> {
  const result = await db.deleteFrom('asset_versions').where('id', '=', id).where('is_current', '=', 0).where('status', '=', 'ready').executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function setPreviewStatus(db: DB, id: number, status: AssetVersionRow['preview_status'], note: string | null): Promise<void> {
  await db.updateTable('asset_versions').set({ preview_status: status, preview_note: note }).where('id', '=', id).execute();
}

/** The state of a video version's web-playable preview (migration 0017); null: not a video. */
export async function setVideoPreviewStatus(db: DB, id: number, status: AssetVersionRow['video_preview_status'], note: string | null): Promise<void> {
  await db.updateTable('asset_versions').set({ video_preview_status: status, video_preview_note: note }).where('id', '=', id).execute();
}

/**
 * The version's page count, and its asset's while it is the current version. Call under the
 * asset's row lock, which promote() takes too: the version cannot stop being current meanwhile.
 */
export async function setPageCount(db: DB, id: number, pageCount: number | null): Promise<void> {
  await db.updateTable('asset_versions').set({ page_count: pageCount }).where('id', '=', id).execute();
  await db
    .updateTable('assets')
    .set({ page_count: pageCount })
    .where('id', '=', (eb) => eb.selectFrom('asset_versions').select('asset_id').where('id', '=', id).where('is_current', '=', 1))
    .execute();
}

/** Links an upload session to the version it fills. */
export async function setUploadVersion(db: DB, uploadId: string, versionId: number): Promise<void> {
  await db.updateTable('upload_sessions').set({ version_id: versionId }).where('id', '=', uploadId).execute();
}

export function findRendition(db: DB, versionId: number, kind: RenditionRow['kind']): Promise<RenditionRow | undefined> {
  return db.selectFrom('version_renditions').selectAll().where('version_id', '=', versionId).where('kind', '=', kind).executeTakeFirst();
}

/** An update, never a delete and insert: a delete would queue the (same) key for deletion. */
export async function upsertRendition(db: DB, r: RenditionRow): Promise<void> {
  const { version_id: _v, kind: _k, ...rest } = r;
  await db
    .insertInto('version_renditions')
    .values(r)
    .onConflict((oc) => oc.columns(['version_id', 'kind']).doUpdateSet(rest))
    .execute();
}

/** Current-version thumbnail keys of assets, for links in other resources (search documents). */
export async function currentVersionsOf(db: DB, assetIds: readonly number[]): Promise<ListedVersion[]> {
  if (assetIds.length === 0) return [];
  const rows = await db
    .selectFrom('asset_versions as v')
    .leftJoin('version_renditions as r', (join) => join.onRef('r.version_id', '=', 'v.id').on('r.kind', '=', 'thumbnail'))
    .selectAll('v')
    .select('r.storage_key as thumbnail_key')
    .where('v.asset_id', 'in', assetIds)
    .where('v.is_current', '=', 1)
    .execute();
  return rows.map(toRecord);
}
