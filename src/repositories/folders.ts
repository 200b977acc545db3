import type { DB } from '../db/database.js';
import type { FolderRow } from '../db/schema.js';
import { visibleAssetsSql, type AssetSight } from '../domain/asset-visibility.js';
import { sortKey } from '../domain/sort-key.js';
import { parseTags, type PageWindow } from './assets.js';
import { listOrder } from './list-order.js';

/**
 * SQL for the folders table. tags is JSON text, parsed here. Trees are walked with WITH RECURSIVE (both dialects).
 * Lookups and listings skip folders in the trash (`deleted_at`, see ./trash.ts).
 */
export interface FolderRecord extends Omit<FolderRow, 'tags'> {
  tags: string[];
}

export interface NewFolderValues {
  workspace_id: number;
  parent_id: number | null;
  name: string;
  visibility: number;
  tags: string[];
  now: number;
}

export interface FolderPatch {
  name?: string;
  parent_id?: number | null;
  visibility?: number;
  tags?: string[];
}

function toRecord(row: FolderRow): FolderRecord {
  return { ...row, tags: parseTags(row.tags) };
}

export async function insertFolder(db: DB, v: NewFolderValues): Promise<FolderRecord> {
  const row = await db
    .insertInto('folders')
    .values({
      workspace_id: v.workspace_id,
      parent_id: v.parent_id,
      name: v.name,
      name_key: sortKey(v.name),
      visibility: v.visibility,
      tags: JSON.stringify(v.tags),
      created_at: v.now,
      modified_at: v.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toRecord(row);
}

export async function findFolder(db: DB, id: number): Promise<FolderRecord | undefined> {
  const row = await db.selectFrom('folders').selectAll().where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
  return row && toRecord(row);
}

/** A folder of the workspace that is not in the trash (nothing may be put into a trashed folder). */
export async function folderExistsInWorkspace(db: DB, workspaceId: number, id: number): Promise<boolean> {
  const row = await db
    .selectFrom('folders')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return row !== undefined;
}

/** A live folder of the workspace under `parentId` (null: the top level) with exactly this name, the oldest first. */
export async function findChildFolder(db: DB, workspaceId: number, parentId: number | null, name: string): Promise<number | undefined> {
  let query = db.selectFrom('folders').select('id').where('workspace_id', '=', workspaceId).where('name', '=', name).where('deleted_at', 'is', null);
  query = parentId === null ? query.where('parent_id', 'is', null) : query.where('parent_id', '=', parentId);
  const row = await query.orderBy('id').limit(1).executeTakeFirst();
  return row?.id;
}

/**
 * The live folders directly under `parentId` (null: the top level), by id: one query for all of them,
 * where findChildFolder() scans the parent's children once per name (the index has no name), which
 * made an import of 65,000 sibling folders quadratic (issue #38).
 */
export function childFolderNames(db: DB, workspaceId: number, parentId: number | null): Promise<{ id: number; name: string }[]> {
  let query = db.selectFrom('folders').select(['id', 'name']).where('workspace_id', '=', workspaceId).where('deleted_at', 'is', null);
  query = parentId === null ? query.where('parent_id', 'is', null) : query.where('parent_id', '=', parentId);
  return query.orderBy('id').execute();
}

/** parentId: undefined = every folder of the workspace, null = top-level folders, n = children of folder n. */
export async function listFolders(
  db: DB,
  workspaceId: number,
  parentId: number | null | undefined,
  window: PageWindow,
): Promise<{ items: FolderRecord[]; total: number }> {
  let base = db.selectFrom('folders').where('workspace_id', '=', workspaceId).where('deleted_at', 'is', null);
  if (parentId === null) base = base.where('parent_id', 'is', null);
  else if (parentId !== undefined) base = base.where('parent_id', '=', parentId);
  let page = base.selectAll();
  for (const { by, direction } of listOrder(window.sort)) page = page.orderBy(by, direction);
  const [rows, count] = await Promise.all([
    page.limit(window.limit).offset(window.offset).execute(),
    base.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items: rows.map(toRecord), total: Number(count.n) };
}

export async function updateFolder(db: DB, workspaceId: number, id: number, patch: FolderPatch, now: number): Promise<void> {
  const { tags, ...plain } = patch;
  await db
    .updateTable('folders')
    .set({
      ...plain,
      ...(tags !== undefined && { tags: JSON.stringify(tags) }),
      ...(plain.name !== undefined && { name_key: sortKey(plain.name) }),
      modified_at: now,
    })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .execute();
}

/** The folder and all its ancestors, walking parent_id upwards inside the workspace. */
export async function ancestorIds(db: DB, workspaceId: number, folderId: number): Promise<number[]> {
  const rows = await db
    .withRecursive('chain(id, parent_id)', (qb) =>
      qb
        .selectFrom('folders')
        .select(['id', 'parent_id'])
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', folderId)
        // UNION (not UNION ALL) so that a corrupt cycle ends the walk instead of looping.
        .union((qb2) =>
          qb2
            .selectFrom('folders as f')
            .innerJoin('chain as c', 'c.parent_id', 'f.id')
            .select(['f.id', 'f.parent_id'])
            .where('f.workspace_id', '=', workspaceId),
        ),
    )
    .selectFrom('chain')
    .select('id')
    .execute();
  return rows.map((r) => r.id);
}

/** Direct contents of a folder that are not in the trash: subfolders and assets. */
export async function countContents(db: DB, workspaceId: number, id: number): Promise<{ folders: number; assets: number }> {
  const [folders, assets] = await Promise.all([
    db
      .selectFrom('folders')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('workspace_id', '=', workspaceId)
      .where('parent_id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('assets')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('workspace_id', '=', workspaceId)
      .where('folder_id', '=', id)
      // An asset still uploading is not shown, so it does not make the folder non-empty (the FK moves it to no folder).
      .where('status', '=', 'ready')
      .where('deleted_at', 'is', null)
      .executeTakeFirstOrThrow(),
  ]);
  return { folders: Number(folders.n), assets: Number(assets.n) };
}

/**
 * Of each folder of `ids` (a page of a list), the assets directly in it that `sight` sees (ready, not in the trash)
 * and its direct live subfolders: one grouped query each. Folders with neither are absent from the maps.
 */
export async function contentCounts(
  db: DB,
  workspaceId: number,
  ids: readonly number[],
  sight: AssetSight,
): Promise<{ assets: Map<number, number>; folders: Map<number, number> }> {
  if (ids.length === 0) return { assets: new Map(), folders: new Map() };
  let assetQuery = db
    .selectFrom('assets')
    .select((eb) => ['folder_id', eb.fn.countAll<number | string>().as('n')])
    .where('workspace_id', '=', workspaceId)
    .where('folder_id', 'in', ids)
    .where('status', '=', 'ready')
    .where('deleted_at', 'is', null);
  const visible = visibleAssetsSql(sight);
  if (visible) assetQuery = assetQuery.where(visible);
  const [assetRows, folderRows] = await Promise.all([
    assetQuery.groupBy('folder_id').execute(),
    db
      .selectFrom('folders')
      .select((eb) => ['parent_id', eb.fn.countAll<number | string>().as('n')])
      .where('workspace_id', '=', workspaceId)
      .where('parent_id', 'in', ids)
      .where('deleted_at', 'is', null)
      .groupBy('parent_id')
      .execute(),
  ]);
  return {
    assets: new Map(assetRows.map((r) => [r.folder_id!, Number(r.n)])),
    folders: new Map(folderRows.map((r) => [r.parent_id!, Number(r.n)])),
  };
}

/**
 * `WITH RECURSIVE subtree(id)`: the folder and every folder below it, inside the workspace. Folders in the
 * trash are not walked into (`live`), or only those trashed together with the folder (`batch`: the folder's
 * deleted_at).
 */
export function withSubtree(db: DB, workspaceId: number, id: number, walk: 'live' | { batch: number } = 'live') {
  return db.withRecursive('subtree(id)', (qb) =>
    qb
      .selectFrom('folders')
      .select('id')
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .union((qb2) => {
        // `subtree` first, by CROSS JOIN (SQLite keeps that order), so each step finds the children through
        // (workspace_id, parent_id); left to itself SQLite scanned all of the workspace's folders once per
        // folder of the subtree, quadratic: 10,000 sub-folders took 17 s, a 65,600-folder ZIP download
        // many minutes before its first byte (issue #38).
        const below = qb2
          .selectFrom('subtree as s')
          .crossJoin('folders as f')
          .select('f.id')
          .whereRef('f.parent_id', '=', 's.id')
          .where('f.workspace_id', '=', workspaceId);
        return walk === 'live' ? below.where('f.deleted_at', 'is', null) : below.where('f.deleted_at', '=', walk.batch);
      }),
  );
}

/**
 * Deletes the folder, every folder below it and every asset in any of them, at once (no trash). What
 * was already in the trash stays there: a trashed subfolder moves to the top level first (the parent_id
 * cascade would take it along), a trashed asset loses its folder (ON DELETE SET NULL); a restore then
 * puts them at the top level. Returns how many of each went.
 */
export async function deleteFolderTree(db: DB, workspaceId: number, id: number): Promise<{ folders: number; assets: number }> {
  // Counted first: SQLite does not count the subfolders that the parent_id cascade removed before the DELETE reached them.
  const tree = await withSubtree(db, workspaceId, id)
    .selectFrom('subtree')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  await withSubtree(db, workspaceId, id)
    .updateTable('folders')
    .set({ parent_id: null })
    .where('workspace_id', '=', workspaceId)
    .where('deleted_at', 'is not', null)
    .where('parent_id', 'in', (eb) => eb.selectFrom('subtree').select('subtree.id'))
    .execute();
  const assets = await withSubtree(db, workspaceId, id)
    .deleteFrom('assets')
    .where('workspace_id', '=', workspaceId)
    .where('deleted_at', 'is', null)
    .where('folder_id', 'in', (eb) => eb.selectFrom('subtree').select('subtree.id'))
    .executeTakeFirst();
  await withSubtree(db, workspaceId, id)
    .deleteFrom('folders')
    .where('workspace_id', '=', workspaceId)
    .where('id', 'in', (eb) => eb.selectFrom('subtree').select('subtree.id'))
    .execute();
  return { folders: Number(tree.n), assets: Number(assets.numDeletedRows) };
}
