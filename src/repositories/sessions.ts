import type { DB } from '../db/database.js';
import type { UserRow } from '../db/schema.js';

export async function insertSession(db: DB, s: { id: string; userId: number; now: number; expiresAt: number }): Promise<void> {
  await db
    .insertInto('sessions')
    .values({ id: s.id, user_id: s.userId, created_at: s.now, expires_at: s.expiresAt, revoked_at: null })
    .execute();
}

/** The user of a session that exists, belongs to that user, is not revoked and not expired (one query per request). */
export function findActiveSessionUser(db: DB, id: string, userId: number, now: number): Promise<UserRow | undefined> {
  return db
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .selectAll('u')
    .where('s.id', '=', id)
    .where('s.user_id', '=', userId)
    .where('s.revoked_at', 'is', null)
    .where('s.expires_at', '>', now)
    .executeTakeFirst();
}

export async function revokeSession(db: DB, id: string, now: number): Promise<void> {
  await db.updateTable('sessions').set({ revoked_at: now }).where('id', '=', id).where('revoked_at', 'is', null).execute();
}

/** Drops sessions that expired more than a day ago; called from the housekeeping timer. */
export async function deleteExpiredSessions(db: DB, now: number): Promise<void> {
  await db.deleteFrom('sessions').where('expires_at', '<', now - 86_400).execute();
}
