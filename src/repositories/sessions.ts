import type { DB } from '../db/database.js';

export async function insertSession(db: DB, s: { id: string; userId: number; now: number; expiresAt: number }): Promise<void> {
  await db
    .insertInto('sessions')
    .values({ id: s.id, user_id: s.userId, created_at: s.now, expires_at: s.expiresAt, revoked_at: null })
    .execute();
}

/** True when the session exists, belongs to the user, is not revoked and not expired. */
export async function isSessionActive(db: DB, id: string, userId: number, now: number): Promise<boolean> {
  const row = await db
    .selectFrom('sessions')
    .select('id')
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row !== undefined;
}

export async function revokeSession(db: DB, id: string, now: number): Promise<void> {
  await db.updateTable('sessions').set({ revoked_at: now }).where('id', '=', id).where('revoked_at', 'is', null).execute();
}

/** Drops sessions that expired more than a day ago; called from the housekeeping timer. */
export async function deleteExpiredSessions(db: DB, now: number): Promise<void> {
  await db.deleteFrom('sessions').where('expires_at', '<', now - 86_400).execute();
}
