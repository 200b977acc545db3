import type { DB } from '../db/database.js';
import type { UserRow } from '../db/schema.js';
import { prepared } from '../db/prepared.js';

export async function insertSession(db: DB, s: { id: string; userId: number; now: number; expiresAt: number }): Promise<void> {
  await db
    .insertInto('sessions')
    .values({ id: s.id, user_id: s.userId, created_at: s.now, expires_at: s.expiresAt, revoked_at: null })
    .execute();
}

/** A user row with the expiry of the session it was read through. */
export type SessionUserRow = UserRow & { session_expires_at: number };

const activeSessionUser = prepared((db: DB, id: string, userId: number, now: number) =>
  db
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .selectAll('u')
    .select('s.expires_at as session_expires_at')
    .where('s.id', '=', id)
    .where('s.user_id', '=', userId)
    .where('s.revoked_at', 'is', null)
    .where('s.expires_at', '>', now),
);

/**
 * The user of a session that exists, belongs to that user, is not revoked and not expired (one query per
 * request, compiled once: src/db/prepared.ts). Asked on every request, never cached: a logout in any process
 * is seen by the next request to every process.
 */
export async function findActiveSessionUser(db: DB, id: string, userId: number, now: number): Promise<SessionUserRow | undefined> {
  return (await activeSessionUser(db, id, userId, now))[0];
}

export async function revokeSession(db: DB, id: string, now: number): Promise<void> {
  await db.updateTable('sessions').set({ revoked_at: now }).where('id', '=', id).where('revoked_at', 'is', null).execute();
}

/** Drops sessions that expired more than a day ago; called from the housekeeping timer. */
export async function deleteExpiredSessions(db: DB, now: number): Promise<void> {
  await db.deleteFrom('sessions').where('expires_at', '<', now - 86_400).execute();
}
