import type { DB } from '../db/database.js';

/** The queue of storage keys whose rows were deleted (filled by triggers, see DialectSupport). */

export function nextObjectDeletions(db: DB, limit: number): Promise<{ id: number; storage_key: string }[]> {
  return db.selectFrom('object_deletions').select(['id', 'storage_key']).orderBy('attempts').orderBy('id').limit(limit).execute();
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
