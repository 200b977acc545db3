import type { DB } from '../db/database.js';

/**
 * What the database says the object store holds (issue #37, `npm run admin -- verify`): every row with a storage
 * key, read in pages, and the rows naming given keys. Read-only.
 */

/** An object a row references: the store must hold it with `size` bytes (and, when known, this SHA-256). */
export interface ObjectReference {
  key: string;
  size: number;
  sha256: string | null;
  /** The row, for the operator: "version 12 (asset 5)", "thumbnail of version 12", "asset 5". */
  what: string;
}

/** One page of ready versions after `afterId` (id order) with their renditions; empty when done. */
export async function versionReferences(db: DB, afterId: number, limit: number): Promise<{ lastId: number; refs: ObjectReference[] } | undefined> {
  const versions = await db
    .selectFrom('asset_versions')
    .select(['id', 'asset_id', 'storage_key', 'file_size', 'sha256'])
    .where('status', '=', 'ready')
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
  if (versions.length === 0) return undefined;
  const renditions = await db
    .selectFrom('version_renditions')
    .select(['version_id', 'kind', 'storage_key', 'file_size'])
    .where(
      'version_id',
      'in',
      versions.map((v) => v.id),
    )
    .execute();
  const refs: ObjectReference[] = versions.map((v) => ({ key: v.storage_key, size: v.file_size, sha256: v.sha256, what: `version ${v.id} (asset ${v.asset_id})` }));
  for (const r of renditions) refs.push({ key: r.storage_key, size: r.file_size, sha256: null, what: `${r.kind} of version ${r.version_id}` });
  return { lastId: versions[versions.length - 1]!.id, refs };
}

/**
 * One page of ready assets whose key is no ready version's of theirs (none should be: an asset's key is its current
 * version's); empty when done. Such an asset's file is checked on its own.
 */
export async function assetOnlyReferences(db: DB, afterId: number, limit: number): Promise<{ lastId: number; refs: ObjectReference[] } | undefined> {
  const rows = await db
    .selectFrom('assets as a')
    .select(['a.id', 'a.storage_key', 'a.file_size', 'a.sha256'])
    .select((eb) =>
      eb.exists(
        eb
          .selectFrom('asset_versions as v')
          .select('v.id')
          .whereRef('v.asset_id', '=', 'a.id')
          .whereRef('v.storage_key', '=', 'a.storage_key')
          .where('v.status', '=', 'ready'),
      ).as('has_version'),
    )
    .where('a.status', '=', 'ready')
    .where('a.storage_key', 'is not', null)
    .where('a.id', '>', afterId)
    .orderBy('a.id')
    .limit(limit)
    .execute();
  if (rows.length === 0) return undefined;
  const refs = rows
    .filter((a) => !a.has_version)
    .map((a) => ({ key: a.storage_key!, size: a.file_size, sha256: a.sha256, what: `asset ${a.id}` }));
  return { lastId: rows[rows.length - 1]!.id, refs };
}

/** What a row of today says about `key`: the reference as the page readers give it, undefined when none is ready. */
export async function currentReference(db: DB, key: string): Promise<ObjectReference | undefined> {
  const version = await db
    .selectFrom('asset_versions')
    .select(['id', 'asset_id', 'storage_key', 'file_size', 'sha256'])
    .where('storage_key', '=', key)
    .where('status', '=', 'ready')
    .executeTakeFirst();
  if (version) return { key, size: version.file_size, sha256: version.sha256, what: `version ${version.id} (asset ${version.asset_id})` };
  const rendition = await db.selectFrom('version_renditions').select(['version_id', 'kind', 'file_size']).where('storage_key', '=', key).executeTakeFirst();
  if (rendition) return { key, size: rendition.file_size, sha256: null, what: `${rendition.kind} of version ${rendition.version_id}` };
  const asset = await db
    .selectFrom('assets')
    .select(['id', 'file_size', 'sha256'])
    .where('storage_key', '=', key)
    .where('status', '=', 'ready')
    .executeTakeFirst();
  return asset ? { key, size: asset.file_size, sha256: asset.sha256, what: `asset ${asset.id}` } : undefined;
}

/**
 * Of the listed `keys` (all of the assets `assetIds`, which their keys name), those some row accounts for: a version in
 * any state (an upload being stored), a rendition, an asset, an upload session, or a deletion queued for it.
 */
export async function accountedKeys(db: DB, assetIds: readonly number[], keys: readonly string[]): Promise<Set<string>> {
  const known = new Set<string>();
  if (keys.length === 0) return known;
  const add = (rows: { storage_key: string | null }[]) => rows.forEach((r) => r.storage_key !== null && known.add(r.storage_key));
  if (assetIds.length > 0) {
    add(await db.selectFrom('asset_versions').select('storage_key').where('asset_id', 'in', assetIds).execute());
    add(
      await db
        .selectFrom('version_renditions as r')
        .innerJoin('asset_versions as v', 'v.id', 'r.version_id')
        .select('r.storage_key')
        .where('v.asset_id', 'in', assetIds)
        .execute(),
    );
    add(await db.selectFrom('assets').select('storage_key').where('id', 'in', assetIds).execute());
    add(await db.selectFrom('upload_sessions').select('storage_key').where('asset_id', 'in', assetIds).execute());
  }
  add(await db.selectFrom('object_deletions').select('storage_key').where('storage_key', 'in', keys).execute());
  return known;
}

/** Workspace ids after `afterId`, in order, a page at a time (the orphan sweep walks the store workspace by workspace). */
export async function workspaceIdsAfter(db: DB, afterId: number, limit: number): Promise<number[]> {
  const rows = await db.selectFrom('workspaces').select('id').where('id', '>', afterId).orderBy('id').limit(limit).execute();
  return rows.map((r) => r.id);
}

/** Objects the workspace's rows say the store holds now: its ready versions' files and their renditions. */
export async function countStoredObjects(db: DB, workspaceId: number): Promise<number> {
  const [versions, renditions] = await Promise.all([
    db
      .selectFrom('asset_versions')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('workspace_id', '=', workspaceId)
      .where('status', '=', 'ready')
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('version_renditions as r')
      .innerJoin('asset_versions as v', 'v.id', 'r.version_id')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('v.workspace_id', '=', workspaceId)
      .executeTakeFirstOrThrow(),
  ]);
  return Number(versions.n) + Number(renditions.n);
}
