import { sql } from 'kysely';
import type { DB } from '../db/database.js';
import { visibleAssetsSql, type AssetSight } from '../domain/asset-visibility.js';
import type { PageWindow } from './assets.js';
import { ancestorIds, withSubtree } from './folders.js';

/**
 * SQL of the trash (migration 0007): `deleted_at` (Unix seconds) and `deleted_by` (users.id) on
 * assets, folders and collections. Trashing and restoring are UPDATEs (the search triggers watch
 * deleted_at); only emptying and the purge DELETE, and the object-deletion triggers fire then.
 * A folder's subtree is trashed in one batch: every row gets the same deleted_at, which is how a
 * restore finds what went with the folder.
 */

export type TrashKind = 'asset' | 'folder' | 'collection';
type TrashTable = 'assets' | 'folders' | 'collections';

export const TRASH_TABLES: Readonly<Record<TrashKind, TrashTable>> = { asset: 'assets', folder: 'folders', collection: 'collections' };

export interface TrashMark {
  deleted_at: number;
  deleted_by: number;
}

export interface TrashRow {
  kind: TrashKind;
  id: number;
  name: string;
  /** Where it was: an asset's folder, a folder's parent; null for collections and the top level. */
  folder_id: number | null;
  deleted_at: number;
  deleted_by: number | null;
  deleted_by_name: string | null;
  deleted_by_email: string | null;
  file_type: string | null;
  mime_type: string | null;
  file_size: number | null;
}

/** Trashes ready assets of the workspace that are not trashed yet; returns the ids it trashed. */
export async function trashAssets(db: DB, workspaceId: number, ids: readonly number[], mark: TrashMark): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .updateTable('assets')
    .set(mark)
    .where('workspace_id', '=', workspaceId)
    .where('id', 'in', ids)
    .where('status', '=', 'ready')
    .where('deleted_at', 'is', null)
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

export async function trashCollection(db: DB, workspaceId: number, id: number, mark: TrashMark): Promise<void> {
  await db.updateTable('collections').set(mark).where('workspace_id', '=', workspaceId).where('id', '=', id).where('deleted_at', 'is', null).execute();
}

/**
 * Trashes the folder, its subfolders and the ready assets in any of them, as one batch. An upload
 * still in progress into the subtree lands at the top level instead (as when a folder is deleted).
 */
export async function trashFolderTree(db: DB, workspaceId: number, id: number, mark: TrashMark): Promise<{ folders: number; assets: number }> {
  await withSubtree(db, workspaceId, id)
    .updateTable('assets')
    .set({ folder_id: null })
    .where('workspace_id', '=', workspaceId)
    .where('status', '=', 'uploading')
    .where('folder_id', 'in', (eb) => eb.selectFrom('subtree').select('subtree.id'))
    .execute();
  const assets = await withSubtree(db, workspaceId, id)
    .updateTable('assets')
    .set(mark)
    .where('workspace_id', '=', workspaceId)
    .where('deleted_at', 'is', null)
    .where('folder_id', 'in', (eb) => eb.selectFrom('subtree').select('subtree.id'))
    .executeTakeFirst();
  // Last: the subtree walks live folders only.
  const folders = await withSubtree(db, workspaceId, id)
    .updateTable('folders')
    .set(mark)
    .where('workspace_id', '=', workspaceId)
    .where('id', 'in', (eb) => eb.selectFrom('subtree').select('subtree.id'))
    .executeTakeFirst();
  return { folders: Number(folders.numUpdatedRows), assets: Number(assets.numUpdatedRows) };
}

/**
 * The trash of a workspace, newest deletion first, with the name of whoever trashed each item; of the assets, those
 * `sight` sees (domain/asset-visibility.ts).
 */
export async function listTrash(db: DB, workspaceId: number, window: PageWindow, sight: AssetSight): Promise<{ items: TrashRow[]; total: number }> {
  const trashed = sql`workspace_id = ${workspaceId} AND deleted_at IS NOT NULL`;
  const visible = visibleAssetsSql(sight);
  const union = sql`
    SELECT 'asset' AS kind, id, display_file_name AS name, folder_id, deleted_at, deleted_by, file_type, mime_type, file_size
      FROM assets WHERE ${trashed} AND status = 'ready'${visible ? sql` AND ${visible}` : sql``}
    UNION ALL
    SELECT 'folder', id, name, parent_id, deleted_at, deleted_by, NULL, NULL, NULL FROM folders WHERE ${trashed}
    UNION ALL
    SELECT 'collection', id, name, NULL, deleted_at, deleted_by, NULL, NULL, NULL FROM collections WHERE ${trashed}`;
  const [page, count] = await Promise.all([
    sql<TrashRow>`
      SELECT t.kind, t.id, t.name, t.folder_id, t.deleted_at, t.deleted_by, u.name AS deleted_by_name, u.email AS deleted_by_email,
             t.file_type, t.mime_type, t.file_size
      FROM (${union}) t LEFT JOIN users u ON u.id = t.deleted_by
      ORDER BY t.deleted_at DESC, t.kind, t.id DESC
      LIMIT ${window.limit} OFFSET ${window.offset}`.execute(db),
    sql<{ n: number | string }>`SELECT count(*) AS n FROM (${union}) t`.execute(db),
  ]);
  const items = page.rows.map((r) => ({
    ...r,
    deleted_at: Number(r.deleted_at),
    file_size: r.file_size === null ? null : Number(r.file_size),
  }));
  return { items, total: Number(count.rows[0]?.n ?? 0) };
}

/** Of `ids`, the items of that kind in the workspace's trash, with their deleted_at and name. */
export async function trashedAmong(
  db: DB,
  workspaceId: number,
  kind: TrashKind,
  ids: readonly number[],
): Promise<Map<number, { deleted_at: number; name: string }>> {
  if (ids.length === 0) return new Map();
  let query = db
    .selectFrom(TRASH_TABLES[kind])
    .select(['id', 'deleted_at', sql<string>`${sql.ref(kind === 'asset' ? 'display_file_name' : 'name')}`.as('name')])
    .where('workspace_id', '=', workspaceId)
    .where('id', 'in', ids)
    .where('deleted_at', 'is not', null);
  // An asset still uploading when its folder was trashed is never in the trash (it moved to the top level).
  if (kind === 'asset') query = query.where(sql.ref('status'), '=', 'ready');
  const rows = await query.execute();
  return new Map(rows.map((r) => [r.id, { deleted_at: Number(r.deleted_at), name: r.name }]));
}

const RESTORED = { deleted_at: null, deleted_by: null } as const;

export async function restoreRows(db: DB, workspaceId: number, kind: TrashKind, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable(TRASH_TABLES[kind]).set(RESTORED).where('workspace_id', '=', workspaceId).where('id', 'in', ids).execute();
}

/** Restores the folder with what was trashed together with it: the subfolders and assets of the same batch. */
export async function restoreFolderBatch(db: DB, workspaceId: number, id: number, batch: number): Promise<void> {
  const walk = { batch };
  await withSubtree(db, workspaceId, id, walk)
    .updateTable('assets')
    .set(RESTORED)
    .where('workspace_id', '=', workspaceId)
    .where('deleted_at', '=', batch)
    .where('folder_id', 'in', (eb) => eb.selectFrom('subtree').select('subtree.id'))
    .execute();
  // Last: the walk follows folders still marked with the batch.
  await withSubtree(db, workspaceId, id, walk)
    .updateTable('folders')
    .set(RESTORED)
    .where('workspace_id', '=', workspaceId)
    .where('id', 'in', (eb) => eb.selectFrom('subtree').select('subtree.id'))
    .execute();
}

/** Restores the folder and every folder above it that is in the trash (the folder rows only, not their contents). */
export async function restoreFolderChain(db: DB, workspaceId: number, folderId: number): Promise<void> {
  const chain = await ancestorIds(db, workspaceId, folderId);
  if (chain.length === 0) return;
  await db
    .updateTable('folders')
    .set(RESTORED)
    .where('workspace_id', '=', workspaceId)
    .where('id', 'in', chain)
    .where('deleted_at', 'is not', null)
    .execute();
}

/** The folder (asset) or parent folder (folder) of trashed rows, to restore their chain. */
export async function parentsOf(db: DB, workspaceId: number, kind: 'asset' | 'folder', ids: readonly number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows =
    kind === 'asset'
      ? await db.selectFrom('assets').select('folder_id as parent').where('workspace_id', '=', workspaceId).where('id', 'in', ids).execute()
      : await db.selectFrom('folders').select('parent_id as parent').where('workspace_id', '=', workspaceId).where('id', 'in', ids).execute();
  return [...new Set(rows.map((r) => r.parent).filter((p): p is number => p !== null))];
}

/**
 * Deletes the workspace's trashed rows for real (all of them, or those trashed at or before `cutoff`);
 * the object-deletion triggers queue their files. A trashed folder's subfolders are trashed too, never
 * later than it (nothing can be put into a trashed folder), so the parent_id cascade takes nothing else.
 */
export async function deleteTrashed(db: DB, workspaceId: number, cutoff: number | null): Promise<{ assets: number; folders: number; collections: number }> {
  const expired = (table: TrashTable) => {
    const q = db.deleteFrom(table).where('workspace_id', '=', workspaceId).where('deleted_at', 'is not', null);
    return cutoff === null ? q : q.where('deleted_at', '<=', cutoff);
  };
  const assets = await expired('assets').executeTakeFirst();
  // Counted first: SQLite does not count the rows the parent_id cascade removed before the DELETE reached them.
  let counted = db
    .selectFrom('folders')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('deleted_at', 'is not', null);
  if (cutoff !== null) counted = counted.where('deleted_at', '<=', cutoff);
  const folders = await counted.executeTakeFirstOrThrow();
  await expired('folders').execute();
  const collections = await expired('collections').executeTakeFirst();
  return { assets: Number(assets.numDeletedRows), folders: Number(folders.n), collections: Number(collections.numDeletedRows) };
}

/** Assets trashed at or before `cutoff` in the workspace: how many, and the first `limit` (oldest deletion first) by id and name. */
export async function expiredTrashAssets(db: DB, workspaceId: number, cutoff: number, limit: number): Promise<{ count: number; first: { id: number; name: string }[] }> {
  const expired = db.selectFrom('assets').where('workspace_id', '=', workspaceId).where('deleted_at', 'is not', null).where('deleted_at', '<=', cutoff);
  const [count, first] = await Promise.all([
    expired.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
    limit > 0 ? expired.select(['id', 'display_file_name as name']).orderBy('deleted_at').orderBy('id').limit(limit).execute() : Promise.resolve([]),
  ]);
  return { count: Number(count.n), first };
}

/** The workspace's assets, trashed ones included (not uploads in progress): what a purge's share is of. */
export async function countWorkspaceAssets(db: DB, workspaceId: number): Promise<number> {
  const row = await db
    .selectFrom('assets')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('status', '=', 'ready')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * One bounded step of the purge (issue #37): up to `limit` assets trashed at or before `cutoff`, oldest deletion first;
 * once none is left, the expired folders and collections (rows without files; an asset's folder goes after it).
 */
export async function deleteExpiredTrashBatch(db: DB, workspaceId: number, cutoff: number, limit: number): Promise<{ assets: number; folders: number; collections: number }> {
  const { first } = await expiredTrashAssets(db, workspaceId, cutoff, limit);
  let assets = 0;
  if (first.length > 0) {
    const gone = await db.deleteFrom('assets').where('workspace_id', '=', workspaceId).where('id', 'in', first.map((a) => a.id)).executeTakeFirst();
    assets = Number(gone.numDeletedRows);
    if (first.length === limit) return { assets, folders: 0, collections: 0 };
  }
  const rest = await deleteTrashed(db, workspaceId, cutoff);
  return { ...rest, assets: assets + rest.assets };
}

/** Workspaces holding rows trashed at or before `cutoff`. */
export async function workspacesWithTrashBefore(db: DB, cutoff: number): Promise<number[]> {
  const one = (table: TrashTable) =>
    db.selectFrom(table).select('workspace_id').where('deleted_at', 'is not', null).where('deleted_at', '<=', cutoff);
  const rows = await one('assets').union(one('folders')).union(one('collections')).execute();
  return rows.map((r) => r.workspace_id);
}
