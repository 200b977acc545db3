import type { DB } from '../db/database.js';

/** The queue of storage keys whose rows were deleted (filled by triggers, see DialectSupport). */

/** The next keys to delete, least tried first; keys of `skipWorkspaces` (whose deletions are refused, issue #37) left out. */
export function nextObjectDeletions(db: DB, limit: number, skipWorkspaces: readonly number[] = []): Promise<{ id: number; storage_key: string }[]> {
  let q = db.selectFrom('object_deletions').select(['id', 'storage_key']);
  for (const ws of skipWorkspaces) q = q.where('storage_key', 'not like', `${ws}/%`);
  return q.orderBy('attempts').orderBy('id').limit(limit).execute();
}

/** Keys of the workspace waiting for deletion: how many, and the first few. */
export async function queuedOfWorkspace(db: DB, workspaceId: number, examples: number): Promise<{ count: number; first: string[] }> {
  const queued = db.selectFrom('object_deletions').where('storage_key', 'like', `${workspaceId}/%`);
  const [count, first] = await Promise.all([
    queued.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
    examples > 0 ? queued.select('storage_key').orderBy('id').limit(examples).execute() : Promise.resolve([]),
  ]);
  return { count: Number(count.n), first: first.map((r) => r.storage_key) };
}

/** The objects rows of the workspace still reference (versions and their renditions): what a drain is a share of. */
export async function countReferencedObjects(db: DB, workspaceId: number): Promise<number> {
  const [versions, renditions] = await Promise.all([
    db.selectFrom('asset_versions').select((eb) => eb.fn.countAll<number | string>().as('n')).where('workspace_id', '=', workspaceId).executeTakeFirstOrThrow(),
    db
      .selectFrom('version_renditions as r')
      .innerJoin('asset_versions as v', 'v.id', 'r.version_id')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('v.workspace_id', '=', workspaceId)
      .executeTakeFirstOrThrow(),
  ]);
  return Number(versions.n) + Number(renditions.n);
}

export async function forgetObjectDeletion(db: DB, id: number): Promise<void> {
  await db.deleteFrom('object_deletions').where('id', '=', id).execute();
}

export async function forgetObjectDeletionsOfKey(db: DB, key: string): Promise<void> {
  await db.deleteFrom('object_deletions').where('storage_key', '=', key).execute();
}

export async function countFailedObjectDeletion(db: DB, id: number): Promise<void> {
  await db
    .updateTable('object_deletions')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('id', '=', id)
    .execute();
}
