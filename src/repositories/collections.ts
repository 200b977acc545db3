import { sql } from 'kysely';
import type { DB } from '../db/database.js';
import type { CollectionRow } from '../db/schema.js';
import { visibleAssetsSql, type AssetSight } from '../domain/asset-visibility.js';
import { sortKey } from '../domain/sort-key.js';
import { parseTags, type PageWindow } from './assets.js';
import { listOrder } from './list-order.js';

/**
 * SQL for collections and their ordered members (collection_assets).
 * Positions are dense: 0..n-1 in each collection, kept so by `renumber`.
 * Collections in the trash are not found or listed; members in the trash keep
 * their row and position (a restore brings them back in place) but are not
 * listed or counted. Members are listed and counted as a sight sees them
 * (domain/asset-visibility.ts): a viewer's counts leave out others' private assets.
 */
export interface CollectionRecord extends Omit<CollectionRow, 'tags'> {
  tags: string[];
  asset_count: number;
}

export interface NewCollectionValues {
  workspace_id: number;
  name: string;
  description: string;
  visibility: number;
  tags: string[];
  now: number;
}

export interface CollectionPatch {
  name?: string;
  description?: string;
  visibility?: number;
  tags?: string[];
}

function withCount(db: DB, sight: AssetSight) {
  const visible = visibleAssetsSql(sight, 'a');
  return db
    .selectFrom('collections as c')
    .selectAll('c')
    .select((eb) => {
      const members = eb
        .selectFrom('collection_assets as ca')
        .innerJoin('assets as a', 'a.id', 'ca.asset_id')
        .select((eb2) => eb2.fn.countAll<number | string>().as('n'))
        .whereRef('ca.collection_id', '=', 'c.id')
        .where('a.deleted_at', 'is', null);
      return (visible ? members.where(visible) : members).as('asset_count');
    })
    .where('c.deleted_at', 'is', null);
}

function toRecord(row: CollectionRow & { asset_count: number | string | null }): CollectionRecord {
  return { ...row, tags: parseTags(row.tags), asset_count: Number(row.asset_count ?? 0) };
}

export async function insertCollection(db: DB, v: NewCollectionValues): Promise<number> {
  const row = await db
    .insertInto('collections')
    .values({
      workspace_id: v.workspace_id,
      name: v.name,
      name_key: sortKey(v.name),
      description: v.description,
      visibility: v.visibility,
      tags: JSON.stringify(v.tags),
      created_at: v.now,
      modified_at: v.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The collection, its asset_count as `sight` sees its members. */
export async function findCollection(db: DB, id: number, sight: AssetSight): Promise<CollectionRecord | undefined> {
  const row = await withCount(db, sight).where('c.id', '=', id).executeTakeFirst();
  return row && toRecord(row);
}

export async function listCollections(
  db: DB,
  workspaceId: number,
  window: PageWindow,
  sight: AssetSight,
): Promise<{ items: CollectionRecord[]; total: number }> {
  let page = withCount(db, sight).where('c.workspace_id', '=', workspaceId);
  for (const { by, direction } of listOrder(window.sort, 'c')) page = page.orderBy(by, direction);
  const [rows, count] = await Promise.all([
    page.limit(window.limit).offset(window.offset).execute(),
    db
      .selectFrom('collections')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('workspace_id', '=', workspaceId)
      .where('deleted_at', 'is', null)
      .executeTakeFirstOrThrow(),
  ]);
  return { items: rows.map(toRecord), total: Number(count.n) };
}

export async function updateCollection(db: DB, workspaceId: number, id: number, patch: CollectionPatch, now: number): Promise<void> {
  const { tags, ...plain } = patch;
  await db
    .updateTable('collections')
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

export async function deleteCollection(db: DB, workspaceId: number, id: number): Promise<void> {
  await db.deleteFrom('collections').where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
}

/**
 * Asset ids of a collection in order, without those in the trash, of the assets `sight` sees. The join on collections
 * keeps the read inside the workspace.
 */
export async function collectionAssetIds(db: DB, workspaceId: number, id: number, sight: AssetSight): Promise<number[]> {
  const visible = visibleAssetsSql(sight, 'a');
  let q = db
    .selectFrom('collection_assets as ca')
    .innerJoin('collections as c', 'c.id', 'ca.collection_id')
    .innerJoin('assets as a', 'a.id', 'ca.asset_id')
    .select('ca.asset_id')
    .where('c.workspace_id', '=', workspaceId)
    .where('ca.collection_id', '=', id)
    .where('a.deleted_at', 'is', null);
  if (visible) q = q.where(visible);
  const rows = await q.orderBy('ca.position').execute();
  return rows.map((r) => r.asset_id);
}

/** The position after the last one (0 for an empty collection). */
export async function nextPosition(db: DB, id: number): Promise<number> {
  const row = await db
    .selectFrom('collection_assets')
    .select((eb) => eb.fn.max<number | string | null>('position').as('m'))
    .where('collection_id', '=', id)
    .executeTakeFirst();
  return row?.m === null || row?.m === undefined ? 0 : Number(row.m) + 1;
}

/** Appends assets after the current last position, in the given order. The caller filters out ids already present. */
export async function appendAssets(db: DB, id: number, assetIds: readonly number[], start: number, now: number): Promise<void> {
  if (assetIds.length === 0) return;
  await db
    .insertInto('collection_assets')
    .values(assetIds.map((assetId, i) => ({ collection_id: id, asset_id: assetId, position: start + i, added_at: now })))
    .execute();
}

export async function removeAssets(db: DB, id: number, assetIds: readonly number[]): Promise<number> {
  if (assetIds.length === 0) return 0;
  const res = await db.deleteFrom('collection_assets').where('collection_id', '=', id).where('asset_id', 'in', assetIds).executeTakeFirst();
  return Number(res.numDeletedRows);
}

/** Collections of the workspace that contain the asset. */
export async function collectionsContaining(db: DB, workspaceId: number, assetId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('collection_assets as ca')
    .innerJoin('collections as c', 'c.id', 'ca.collection_id')
    .select('ca.collection_id')
    .where('c.workspace_id', '=', workspaceId)
    .where('ca.asset_id', '=', assetId)
    .execute();
  return rows.map((r) => r.collection_id);
}

/**
 * Closes the gaps left by removals: positions become 0..n-1 in their current
 * order. Limited to the given collections, or to every collection of the
 * workspace when none are given. One UPDATE ... FROM (SQLite >= 3.33 and PostgreSQL).
 */
export async function renumber(db: DB, workspaceId: number, collectionIds?: readonly number[]): Promise<void> {
  if (collectionIds && collectionIds.length === 0) return;
  const only = collectionIds ? sql`and c.id in (${sql.join(collectionIds)})` : sql``;
  await sql`
    update collection_assets set position = r.rn
    from (
      select ca.collection_id, ca.asset_id,
             row_number() over (partition by ca.collection_id order by ca.position, ca.asset_id) - 1 as rn
      from collection_assets ca
      join collections c on c.id = ca.collection_id
      where c.workspace_id = ${workspaceId} ${only}
    ) as r
    where collection_assets.collection_id = r.collection_id
      and collection_assets.asset_id = r.asset_id
      and collection_assets.position <> r.rn`.execute(db);
}
