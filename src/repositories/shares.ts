import type { Insertable, Selectable, Updateable } from 'kysely';
import type { DB } from '../db/database.js';
import type { SharedLinkAccessTable, SharedLinksTable } from '../db/schema.js';
import type { ShareStatus } from '../domain/shares.js';

/**
 * SQL for shared links (migration 0015): the links, the assets of a link to a list of assets, and
 * the access log. Reads by id do not filter by workspace: the services load a link first and then
 * check the caller's role in the link's workspace (a link of another workspace answers 404).
 */

export type ShareRecord = Selectable<SharedLinksTable>;
export type NewShare = Omit<Insertable<SharedLinksTable>, 'id' | 'download_count' | 'view_count'>;
export type SharePatch = Pick<
  Updateable<SharedLinksTable>,
  'expires_at' | 'password_hash' | 'allow_download' | 'max_downloads' | 'description' | 'updated_at'
>;
export type AccessRecord = Selectable<SharedLinkAccessTable>;
export type NewAccess = Omit<Insertable<SharedLinkAccessTable>, 'id'>;

export async function insertShare(db: DB, values: NewShare): Promise<ShareRecord> {
  return db.insertInto('shared_links').values(values).returningAll().executeTakeFirstOrThrow();
}

/** The assets of a link to a list of assets, in the order given. */
export async function insertShareAssets(db: DB, linkId: number, assetIds: readonly number[]): Promise<void> {
  if (assetIds.length === 0) return;
  await db
    .insertInto('shared_link_assets')
    .values(assetIds.map((asset_id, position) => ({ link_id: linkId, asset_id, position })))
    .execute();
}

/** The asset ids of each link (links to a list of assets), in link order; assets deleted for good are gone. */
export async function shareAssetIds(db: DB, linkIds: readonly number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>(linkIds.map((id) => [id, []]));
  if (linkIds.length === 0) return out;
  const rows = await db
    .selectFrom('shared_link_assets')
    .select(['link_id', 'asset_id'])
    .where('link_id', 'in', linkIds)
    .orderBy('link_id')
    .orderBy('position')
    .execute();
  for (const row of rows) out.get(row.link_id)?.push(row.asset_id);
  return out;
}

export function findShare(db: DB, id: number): Promise<ShareRecord | undefined> {
  return db.selectFrom('shared_links').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findShareByKey(db: DB, key: string): Promise<ShareRecord | undefined> {
  return db.selectFrom('shared_links').selectAll().where('key', '=', key).executeTakeFirst();
}

/** A workspace's links, newest first, optionally only those in one state at `now`. */
export async function listShares(
  db: DB,
  workspaceId: number,
  q: { status?: ShareStatus; now: number; limit: number; offset: number },
): Promise<{ items: ShareRecord[]; total: number }> {
  const base = db
    .selectFrom('shared_links')
    .where('workspace_id', '=', workspaceId)
    .$call((qb) => {
      if (q.status === 'revoked') return qb.where('revoked_at', 'is not', null);
      if (q.status === 'expired') return qb.where('revoked_at', 'is', null).where('expires_at', '<=', q.now);
      if (q.status === 'active') {
        return qb.where('revoked_at', 'is', null).where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', q.now)]));
      }
      return qb;
    });
  const [items, count] = await Promise.all([
    base.selectAll().orderBy('id', 'desc').limit(q.limit).offset(q.offset).execute(),
    base.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items, total: Number(count.n) };
}

export async function updateShare(db: DB, id: number, patch: SharePatch): Promise<void> {
  await db.updateTable('shared_links').set(patch).where('id', '=', id).execute();
}

/** Revokes a link that is not revoked yet; false when it already was. */
export async function revokeShare(db: DB, id: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('shared_links')
    .set({ revoked_at: now, updated_at: now })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Counts one download unless the limit is reached, in one conditional UPDATE: of two concurrent
 * downloads competing for the last slot exactly one matches the row (both databases re-check the
 * condition on the row they update). False: the limit was reached.
 */
export async function countDownload(db: DB, id: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('shared_links')
    .set((eb) => ({ download_count: eb('download_count', '+', 1), last_accessed_at: now }))
    .where('id', '=', id)
    .where((eb) => eb.or([eb('max_downloads', 'is', null), eb('download_count', '<', eb.ref('max_downloads'))]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function countView(db: DB, id: number, now: number): Promise<void> {
  await db
    .updateTable('shared_links')
    .set((eb) => ({ view_count: eb('view_count', '+', 1), last_accessed_at: now }))
    .where('id', '=', id)
    .execute();
}

export async function insertAccess(db: DB, entry: NewAccess): Promise<number> {
  const row = await db.insertInto('shared_link_access').values(entry).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/** Turns an unlock attempt recorded as failed (before its password was checked) into a success. */
export async function markUnlocked(db: DB, accessId: number): Promise<void> {
  await db.updateTable('shared_link_access').set({ action: 'unlock' }).where('id', '=', accessId).execute();
}

/** Failed unlock attempts on a link from one address since `since`: how many, and when the oldest was. */
/** The link's wrong passwords since `since`, newest first, at most `limit` of them (address and time). */
export async function unlockFailuresSince(db: DB, linkId: number, since: number, limit: number): Promise<{ address: string | null; created_at: number }[]> {
  const rows = await db
    .selectFrom('shared_link_access')
    .select(['address', 'created_at'])
    .where('link_id', '=', linkId)
    .where('created_at', '>', since)
    .where('action', '=', 'unlock-failed')
    .orderBy('created_at', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ address: r.address, created_at: Number(r.created_at) }));
}

/**
 * Deletes access-log entries older than `before` (Unix seconds), at most `limit` of them, oldest first; answers how
 * many went. Entries are appended in time order, so the oldest ids are the oldest entries: the batch is found from
 * the primary key's start and stops at the first entry that is young enough.
 */
export async function deleteAccessBefore(db: DB, before: number, limit: number): Promise<number> {
  const old = await db.selectFrom('shared_link_access').select('id').where('created_at', '<', before).orderBy('id').limit(limit).execute();
  if (old.length === 0) return 0;
  const result = await db.deleteFrom('shared_link_access').where('id', 'in', old.map((r) => r.id)).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** A link's access log, newest first. */
export async function listAccess(db: DB, linkId: number, window: { limit: number; offset: number }): Promise<{ items: AccessRecord[]; total: number }> {
  const base = db.selectFrom('shared_link_access').where('link_id', '=', linkId);
  const [items, count] = await Promise.all([
    base.selectAll().orderBy('id', 'desc').limit(window.limit).offset(window.offset).execute(),
    base.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items, total: Number(count.n) };
}
