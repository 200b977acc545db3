import type { ExpressionBuilder } from 'kysely';
import type { DB } from '../db/database.js';
import { PUBLIC_ASSETS, visibleAssetsSql } from '../domain/asset-visibility.js';
import type { AssetsTable, AssetVersionRow, AssetVersionsTable, Database } from '../db/schema.js';
import { withSubtree } from './folders.js';
import type { ShareRecord } from './shares.js';

/**
 * SQL for what a shared link shows (issue #14). An item is a ready asset of the link's workspace that
 * is not in the trash, with the file facts of the version the link shows: the current version, or
 * the pinned one of a version link. What an item belongs to:
 * - a list of assets: the listed assets, in the order given;
 * - a folder: the assets of the folder and of every folder below it that is not in the trash;
 * - a collection: its member assets, in collection order;
 * - a version: its asset, once.
 * So an asset deleted or trashed after the link was made is simply no longer an item. A link is a public
 * surface: only public assets are items (visibility 0, domain/asset-visibility.ts), so an asset that turns
 * private after the link was made is no longer one either (nor is a version link's target live then).
 */

export interface ShareItemRow {
  id: number;
  display_file_name: string;
  folder_id: number | null;
  version_id: number;
  /** The version's label number (vN); set on every ready version. */
  number: number | null;
  file_name: string;
  mime_type: string;
  file_size: number;
  width: number | null;
  height: number | null;
  storage_key: string;
  /** When the shown version was uploaded (Unix seconds): the file's time in an archive. */
  version_created_at: number;
  /** The shown version's SHA-256 once hashed (its download's ETag, issue #38). */
  version_sha256: string | null;
  thumbnail_key: string | null;
  preview_key: string | null;
  /** The shown version's web-playable video preview (issue #15): ready (a transcode), original (the file plays as it is), else none yet. */
  video_preview_status: AssetVersionRow['video_preview_status'];
}

/** The link's folder, collection or version while it exists and is not in the trash; its name (null for a list of assets). */
export async function liveTarget(db: DB, link: ShareRecord): Promise<{ name: string | null } | undefined> {
  const ws = link.workspace_id;
  switch (link.target_kind) {
    case 'assets':
      return { name: null };
    case 'folder': {
      if (link.folder_id === null) return undefined;
      const row = await db
        .selectFrom('folders')
        .select('name')
        .where('id', '=', link.folder_id)
        .where('workspace_id', '=', ws)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return row && { name: row.name };
    }
    case 'collection': {
      if (link.collection_id === null) return undefined;
      const row = await db
        .selectFrom('collections')
        .select('name')
        .where('id', '=', link.collection_id)
        .where('workspace_id', '=', ws)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return row && { name: row.name };
    }
    case 'version': {
      if (link.version_id === null) return undefined;
      const row = await db
        .selectFrom('asset_versions as v')
        .innerJoin('assets as a', 'a.id', 'v.asset_id')
        .select('a.display_file_name')
        .where('v.id', '=', link.version_id)
        .where('v.status', '=', 'ready')
        .where('a.workspace_id', '=', ws)
        .where('a.status', '=', 'ready')
        .where('a.deleted_at', 'is', null)
        .where(visibleAssetsSql(PUBLIC_ASSETS, 'a')!)
        .executeTakeFirst();
      return row && { name: row.display_file_name };
    }
  }
}

type Scope = ExpressionBuilder<Database & { a: AssetsTable; v: AssetVersionsTable }, 'a' | 'v'>;

/** The assets of the link and the version each one shows, as one condition on `a` and `v`. */
function belongsToLink(db: DB, link: ShareRecord) {
  return (eb: Scope) => {
    const ws = link.workspace_id;
    const common = [
      eb('a.workspace_id', '=', ws),
      eb('a.status', '=', 'ready'),
      eb('a.deleted_at', 'is', null),
      eb('v.status', '=', 'ready'),
      visibleAssetsSql(PUBLIC_ASSETS, 'a')!,
    ];
    const current = eb('v.is_current', '=', 1);
    switch (link.target_kind) {
      case 'assets':
        return eb.and([
          ...common,
          current,
          eb('a.id', 'in', eb.selectFrom('shared_link_assets as s').select('s.asset_id').where('s.link_id', '=', link.id)),
        ]);
      case 'folder':
        return eb.and([
          ...common,
          current,
          eb('a.folder_id', 'in', withSubtree(db, ws, link.folder_id ?? 0).selectFrom('subtree').select('subtree.id')),
        ]);
      case 'collection':
        return eb.and([
          ...common,
          current,
          eb(
            'a.id',
            'in',
            eb.selectFrom('collection_assets as ca').select('ca.asset_id').where('ca.collection_id', '=', link.collection_id ?? 0),
          ),
        ]);
      case 'version':
        return eb.and([...common, eb('v.id', '=', link.version_id ?? 0)]);
    }
  };
}

function itemsQuery(db: DB, link: ShareRecord) {
  return db
    .selectFrom('assets as a')
    .innerJoin('asset_versions as v', 'v.asset_id', 'a.id')
    .where(belongsToLink(db, link));
}

function selectItems(db: DB, link: ShareRecord) {
  return itemsQuery(db, link)
    .leftJoin('version_renditions as t', (join) => join.onRef('t.version_id', '=', 'v.id').on('t.kind', '=', 'thumbnail'))
    .leftJoin('version_renditions as p', (join) => join.onRef('p.version_id', '=', 'v.id').on('p.kind', '=', 'preview'))
    .select([
      'a.id',
      'a.display_file_name',
      'a.folder_id',
      'v.id as version_id',
      'v.number',
      'v.file_name',
      'v.mime_type',
      'v.file_size',
      'v.width',
      'v.height',
      'v.storage_key',
      'v.created_at as version_created_at',
      'v.sha256 as version_sha256',
      't.storage_key as thumbnail_key',
      'p.storage_key as preview_key',
      'v.video_preview_status',
    ]);
}

/** One page of the link's items in the link's order, and how many there are in all. */
export async function listShareItems(db: DB, link: ShareRecord, window: { limit: number; offset: number }): Promise<{ items: ShareItemRow[]; total: number }> {
  const page = selectItems(db, link)
    .$call((qb) => {
      switch (link.target_kind) {
        case 'assets':
          return qb.orderBy((eb) =>
            eb.selectFrom('shared_link_assets as s').select('s.position').where('s.link_id', '=', link.id).whereRef('s.asset_id', '=', 'a.id'),
          );
        case 'collection':
          return qb.orderBy((eb) =>
            eb
              .selectFrom('collection_assets as ca')
              .select('ca.position')
              .where('ca.collection_id', '=', link.collection_id ?? 0)
              .whereRef('ca.asset_id', '=', 'a.id'),
          );
        case 'folder':
          // The shared folder's own files first, then each sub-folder's together (by folder id), by name inside.
          return qb
            .orderBy((eb) => eb.case().when('a.folder_id', '=', link.folder_id ?? 0).then(0).else(1).end())
            .orderBy('a.folder_id')
            .orderBy('a.name_key');
        case 'version':
          return qb;
      }
    })
    .orderBy('a.id')
    .limit(window.limit)
    .offset(window.offset)
    .execute();
  const [items, total] = await Promise.all([page, countShareItems(db, link)]);
  return { items, total };
}

export async function countShareItems(db: DB, link: ShareRecord): Promise<number> {
  const row = await itemsQuery(db, link)
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The link's items after asset id `afterId`, by id: pages that neither skip nor repeat items while the link changes. */
export function shareItemsAfter(db: DB, link: ShareRecord, afterId: number, limit: number): Promise<ShareItemRow[]> {
  return selectItems(db, link).where('a.id', '>', afterId).orderBy('a.id').limit(limit).execute();
}

/** One item of the link, or undefined when the asset is not (or no longer) one of its items. */
export function findShareItem(db: DB, link: ShareRecord, assetId: number): Promise<ShareItemRow | undefined> {
  return selectItems(db, link).where('a.id', '=', assetId).executeTakeFirst();
}

/** Whether `versionId` is the version the link shows of one of its items (the grant of its media URLs, issue #28). */
export async function showsVersion(db: DB, link: ShareRecord, versionId: number): Promise<boolean> {
  const row = await itemsQuery(db, link).select('v.id').where('v.id', '=', versionId).executeTakeFirst();
  return row !== undefined;
}

/** The folders of a folder link's tree (not in the trash) with their parents, to name each item's folder path. */
export async function sharedFolderTree(db: DB, workspaceId: number, rootId: number): Promise<{ id: number; parent_id: number | null; name: string }[]> {
  return withSubtree(db, workspaceId, rootId)
    .selectFrom('folders as f')
    .innerJoin('subtree as s', 's.id', 'f.id')
    .select(['f.id', 'f.parent_id', 'f.name'])
    .execute();
}
