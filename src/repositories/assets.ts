import { sql } from 'kysely';
import type { DB } from '../db/database.js';
import { prepared } from '../db/prepared.js';
import type { AssetRow, AssetsTable } from '../db/schema.js';
import { visibleAssetsSql, type AssetSight } from '../domain/asset-visibility.js';
import { fileTypeOf, orientationOf } from '../domain/file-types.js';
import { sortKey } from '../domain/sort-key.js';
import type { Sort } from '../domain/sort-orders.js';
import { withSubtree } from './folders.js';
import { listOrder } from './list-order.js';

/**
 * SQL for the assets table. The JSON text columns (tags, metadata) are parsed
 * and serialised here and nowhere else: callers see arrays and objects.
 * Every query that reads or writes by id also filters by workspace, except
 * `findAsset`, which the services use to learn an asset's workspace before
 * checking the caller's role in it. Listings only see 'ready' assets (an
 * asset is 'uploading' between start and completion of its upload) that are
 * not in the trash (`deleted_at`, see ./trash.ts).
 */
export interface AssetRecord extends Omit<AssetRow, 'tags' | 'metadata' | 'keywords' | 'metadata_edited' | 'embedded_metadata'> {
  tags: string[];
  metadata: Record<string, unknown>;
  /** The file's own keywords as last read (issue #12). */
  keywords: string[];
  /** The editable embedded fields a user edited (src/domain/embedded-metadata.ts), never overwritten by a re-read. */
  metadata_edited: string[];
}

/**
 * Every column but `embedded_metadata`, which holds up to 64 KiB per asset and is read for one asset at a time
 * (./embedded-metadata.ts): lists and bulk actions do not carry it.
 */
const RECORD_COLUMNS = [
  'id', 'workspace_id', 'folder_id', 'display_file_name', 'name_key', 'file_name', 'file_type', 'mime_type', 'file_size',
  'width', 'height', 'orientation', 'page_count', 'tags', 'visibility', 'metadata', 'storage_key', 'status', 'created_by',
  'created_at', 'modified_at', 'deleted_at', 'deleted_by', 'taken_at', 'camera_make', 'camera_model', 'lens', 'iso',
  'exposure', 'aperture', 'focal_length', 'gps_lat', 'gps_lon', 'duration', 'color_space', 'caption', 'creator',
  'copyright', 'usage_terms', 'keywords', 'metadata_edited', 'metadata_version_id', 'sha256', 'uploaded_by',
  'unreadable_reason',
] as const satisfies readonly (keyof AssetsTable)[];
type Unlisted = Exclude<keyof AssetsTable, (typeof RECORD_COLUMNS)[number] | 'embedded_metadata'>;
// A column added to the assets table must be listed in RECORD_COLUMNS: this line stops compiling otherwise.
const _everyColumnListed: [Unlisted] extends [never] ? true : Unlisted = true;

/** What the upload feature (and test factories) pass to create an asset. file_type and orientation are derived. */
export interface NewAssetValues {
  workspace_id: number;
  folder_id?: number | null;
  /** Defaults to file_name. */
  display_file_name?: string;
  file_name: string;
  mime_type: string;
  file_size: number;
  width?: number | null;
  height?: number | null;
  tags?: string[];
  visibility?: number;
  metadata?: Record<string, unknown>;
  storage_key?: string | null;
  /** Defaults to 'ready'. The upload feature creates 'uploading' assets, which the catalog does not show. */
  status?: 'uploading' | 'ready';
  created_by: string;
  /**
   * The user who brought the asset in (migration 0025): the uploader, or whoever asked for the conversion, generation
   * or import that made it; null only when there is no such user. A private asset is visible to them (domain/asset-visibility.ts).
   */
  uploaded_by: number | null;
  created_at: number;
  /** Defaults to created_at. */
  modified_at?: number;
}

export interface AssetPatch {
  display_file_name?: string;
  tags?: string[];
  visibility?: number;
  folder_id?: number | null;
  metadata?: Record<string, unknown>;
  caption?: string | null;
  creator?: string | null;
  copyright?: string | null;
  usage_terms?: string | null;
  /** The whole list of edited fields, as the service computed it. */
  metadata_edited?: string[];
}

export interface PageWindow {
  limit: number;
  offset: number;
  /** Omitted: by id ascending (./list-order.ts). */
  sort?: Sort;
}

export function parseTags(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((t): t is string => typeof t === 'string') : [];
  } catch {
    return [];
  }
}

export function parseObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function toRecord(row: Omit<AssetRow, 'embedded_metadata'> & { embedded_metadata?: string }): AssetRecord {
  // Assigned over the row rather than copied with a rest spread: lists map every row, and the copy of 40-odd
  // properties was a visible part of their cost (issue #18). The row is the driver's, used by nobody else.
  const record = row as unknown as AssetRecord & { embedded_metadata?: string };
  delete record.embedded_metadata;
  record.tags = parseTags(row.tags);
  record.metadata = parseObject(row.metadata);
  record.keywords = parseTags(row.keywords);
  record.metadata_edited = parseTags(row.metadata_edited);
  return record;
}

export async function insertAsset(db: DB, values: NewAssetValues): Promise<AssetRecord> {
  const width = values.width ?? null;
  const height = values.height ?? null;
  const displayName = values.display_file_name ?? values.file_name;
  const row = await db
    .insertInto('assets')
    .values({
      workspace_id: values.workspace_id,
      folder_id: values.folder_id ?? null,
      display_file_name: displayName,
      name_key: sortKey(displayName),
      file_name: values.file_name,
      file_type: fileTypeOf(values.mime_type),
      mime_type: values.mime_type,
      file_size: values.file_size,
      width,
      height,
      orientation: orientationOf(width, height),
      tags: JSON.stringify(values.tags ?? []),
      visibility: values.visibility ?? 0,
      metadata: JSON.stringify(values.metadata ?? {}),
      storage_key: values.storage_key ?? null,
      status: values.status ?? 'ready',
      created_by: values.created_by,
      uploaded_by: values.uploaded_by,
      created_at: values.created_at,
      modified_at: values.modified_at ?? values.created_at,
    })
    .returning(RECORD_COLUMNS)
    .executeTakeFirstOrThrow();
  return toRecord(row);
}

/** Ready and not in the trash: what the catalog shows; anything else answers 404 as if missing. */
export function inCatalog(asset: AssetRecord): boolean {
  return asset.status === 'ready' && asset.deleted_at === null;
}

export async function findAsset(db: DB, id: number): Promise<AssetRecord | undefined> {
  const row = await db.selectFrom('assets').select(RECORD_COLUMNS).where('id', '=', id).executeTakeFirst();
  return row && toRecord(row);
}

/** Every asset, those in no folder, those directly in one folder, those in a folder or any folder below it. */
type FolderShape = 'any' | 'root' | 'one' | 'tree';
/** Whether a statement keeps to what a viewer sees (domain/asset-visibility.ts): a shape of its own, the user a parameter. */
type SightShape = AssetSight['kind'];

/**
 * The page and count statements of each list shape (folder filter × order × sight), built and compiled once
 * (db/prepared.ts): Kysely building the same 43-column select on every GET /dam/assets was a tenth of its CPU
 * (issue #18).
 */
const listPages = new Map<string, ReturnType<typeof listPage>>();
const listCounts = new Map<string, ReturnType<typeof listCount>>();

function listPage(folder: FolderShape, sort: Sort | undefined, sight: SightShape) {
  return prepared((db: DB, workspaceId: number, folderId: number, userId: number, limit: number, offset: number) => {
    let page = listed(db, workspaceId, folder, folderId, sight, userId).select(RECORD_COLUMNS);
    for (const { by, direction } of listOrder(sort)) page = page.orderBy(by, direction);
    return page.limit(limit).offset(offset);
  });
}

function listCount(folder: FolderShape, sight: SightShape) {
  return prepared((db: DB, workspaceId: number, folderId: number, userId: number) =>
    listed(db, workspaceId, folder, folderId, sight, userId).select((eb) => eb.fn.countAll<number | string>().as('n')),
  );
}

/** What a listing shows: ready, not in the trash (served by assets_listed_idx, migration 0023), in the folder, visible. */
function listed(db: DB, workspaceId: number, folder: FolderShape, folderId: number, sight: SightShape, userId: number) {
  // 'ready' as a literal: the prepared statements bind their arguments only, and it matches the index's predicate.
  let q = db.selectFrom('assets').where('workspace_id', '=', workspaceId).where('status', '=', sql.lit('ready')).where('deleted_at', 'is', null);
  if (folder === 'root') q = q.where('folder_id', 'is', null);
  else if (folder === 'one') q = q.where('folder_id', '=', folderId);
  // The subtree as a subquery (WITH RECURSIVE inside IN (...), the same SQL on both dialects): folders are per workspace.
  else if (folder === 'tree') q = q.where('folder_id', 'in', withSubtree(db, workspaceId, folderId).selectFrom('subtree').select('subtree.id'));
  const visible = visibleAssetsSql(sight === 'public-and-own' ? { kind: sight, userId } : { kind: sight });
  return visible ? q.where(visible) : q;
}

/**
 * folderId: undefined = every asset of the workspace, null = assets outside any folder, n = assets directly in folder n,
 * or with `recursive` in folder n and every live folder below it. Only the assets `sight` sees, in the page and in the total.
 */
export async function listAssets(
  db: DB,
  workspaceId: number,
  folderId: number | null | undefined,
  window: PageWindow,
  sight: AssetSight,
  recursive = false,
): Promise<{ items: AssetRecord[]; total: number }> {
  const folder: FolderShape = folderId === undefined ? 'any' : folderId === null ? 'root' : recursive ? 'tree' : 'one';
  const userId = sight.kind === 'public-and-own' ? sight.userId : 0;
  const key = `${folder} ${sight.kind} ${window.sort?.field ?? ''} ${window.sort?.direction ?? ''}`;
  let page = listPages.get(key);
  if (!page) listPages.set(key, (page = listPage(folder, window.sort, sight.kind)));
  const rows = await page(db, workspaceId, folderId ?? 0, userId, window.limit, window.offset);
  // A page that is not full ends the list, so it tells the total without counting (most lists of a small
  // workspace are one such page), unless it is empty past the first page; otherwise count.
  if (rows.length < window.limit && (rows.length > 0 || window.offset === 0)) return { items: rows.map(toRecord), total: window.offset + rows.length };
  const countKey = `${folder} ${sight.kind}`;
  let count = listCounts.get(countKey);
  if (!count) listCounts.set(countKey, (count = listCount(folder, sight.kind)));
  const total = Number((await count(db, workspaceId, folderId ?? 0, userId))[0]!.n);
  return { items: rows.map(toRecord), total };
}

export async function updateAsset(db: DB, workspaceId: number, id: number, patch: AssetPatch, now: number): Promise<void> {
  const { tags, metadata, metadata_edited, ...plain } = patch;
  await db
    .updateTable('assets')
    .set({
      ...plain,
      ...(tags !== undefined && { tags: JSON.stringify(tags) }),
      ...(metadata !== undefined && { metadata: JSON.stringify(metadata) }),
      ...(metadata_edited !== undefined && { metadata_edited: JSON.stringify(metadata_edited) }),
      ...(plain.display_file_name !== undefined && { name_key: sortKey(plain.display_file_name) }),
      modified_at: now,
    })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .execute();
}

export async function deleteAsset(db: DB, workspaceId: number, id: number): Promise<void> {
  await db.deleteFrom('assets').where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
}

/** Of `ids`, those that are ready assets of the workspace, not in the trash. */
export async function assetIdsInWorkspace(db: DB, workspaceId: number, ids: readonly number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await shownIn(db, workspaceId, ids).select('id').execute();
  return new Set(rows.map((r) => r.id));
}

/**
 * Of `ids`, those of assets of the workspace that `sight` sees (whatever their state: trashed and uploading ones too,
 * as the records that name them, such as the activity log or an import, may). All of them for a sight of every asset.
 */
export async function visibleAmong(db: DB, workspaceId: number, sight: AssetSight, ids: readonly number[]): Promise<Set<number>> {
  const visible = visibleAssetsSql(sight);
  if (!visible || ids.length === 0) return new Set(ids);
  const rows = await db.selectFrom('assets').select('id').where('workspace_id', '=', workspaceId).where('id', 'in', [...new Set(ids)]).where(visible).execute();
  return new Set(rows.map((r) => r.id));
}

/** Of `ids`, the ready assets of the workspace that are not in the trash. */
export async function assetsInWorkspace(db: DB, workspaceId: number, ids: readonly number[]): Promise<AssetRecord[]> {
  if (ids.length === 0) return [];
  const rows = await shownIn(db, workspaceId, ids).select(RECORD_COLUMNS).execute();
  return rows.map(toRecord);
}

function shownIn(db: DB, workspaceId: number, ids: readonly number[]) {
  return db
    .selectFrom('assets')
    .where('workspace_id', '=', workspaceId)
    .where('status', '=', 'ready')
    .where('deleted_at', 'is', null)
    .where('id', 'in', ids);
}

/** The same change (folder, visibility) to several assets of the workspace at once. */
export async function updateAssets(
  db: DB,
  workspaceId: number,
  ids: readonly number[],
  patch: Pick<AssetPatch, 'folder_id' | 'visibility'>,
  now: number,
): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('assets')
    .set({ ...patch, modified_at: now })
    .where('workspace_id', '=', workspaceId)
    .where('id', 'in', ids)
    .execute();
}
