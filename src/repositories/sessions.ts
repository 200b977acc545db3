import type { DB } from '../db/database.js';
import type { UserRow } from '../db/schema.js';
import { prepared } from '../db/prepared.js';

/** Where a session was started from (issue #27): shown in the user's list of sessions. */
export interface SessionOrigin {
  ip?: string | null;
  userAgent?: string | null;
}

export async function insertSession(db: DB, s: { id: string; userId: number; now: number; expiresAt: number } & SessionOrigin): Promise<void> {
  await db
    .insertInto('sessions')
    .values({
      id: s.id,
      user_id: s.userId,
      created_at: s.now,
      expires_at: s.expiresAt,
      revoked_at: null,
      ip: s.ip ?? null,
      user_agent: s.userAgent ?? null,
      last_used_at: s.now,
    })
    .execute();
}

/** A user row with the expiry and last use of the session it was read through. */
export type SessionUserRow = UserRow & { session_expires_at: number; session_last_used_at: number | null };

const activeSessionUser = prepared((db: DB, id: string, userId: number, now: number) =>
  db
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .selectAll('u')
    .select(['s.expires_at as session_expires_at', 's.last_used_at as session_last_used_at'])
    .where('s.id', '=', id)
    .where('s.user_id', '=', userId)
    .where('s.revoked_at', 'is', null)
    .where('s.expires_at', '>', now)
    // A disabled account's sessions are revoked when it is disabled (issue #27); this holds whatever the order.
    .where('u.disabled_at', 'is', null),
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

/** The user's sessions that are neither revoked nor expired, newest first (issue #27). */
export function listActiveSessions(db: DB, userId: number, now: number) {
  return db
    .selectFrom('sessions')
    .select(['id', 'created_at', 'expires_at', 'last_used_at', 'ip', 'user_agent'])
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(1000)
    .execute();
}

/** Revokes one of the user's sessions; false when the user has no such active session. */
export async function revokeSessionOf(db: DB, userId: number, id: string, now: number): Promise<boolean> {
  const result = await db.updateTable('sessions').set({ revoked_at: now }).where('id', '=', id).where('user_id', '=', userId).where('revoked_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Revokes every session of the user but `exceptId`; answers how many were active. */
export async function revokeSessionsOf(db: DB, userId: number, now: number, exceptId?: string): Promise<number> {
  let q = db.updateTable('sessions').set({ revoked_at: now }).where('user_id', '=', userId).where('revoked_at', 'is', null).where('expires_at', '>', now);
  if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
  const result = await q.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** The session's last use (written at most once a minute per session by the auth service). */
export async function touchSession(db: DB, id: string, now: number): Promise<void> {
  await db.updateTable('sessions').set({ last_used_at: now }).where('id', '=', id).execute();
}

/** Drops sessions that expired more than a day ago; called from the housekeeping timer. */
export async function deleteExpiredSessions(db: DB, now: number): Promise<void> {
  await db.deleteFrom('sessions').where('expires_at', '<', now - 86_400).execute();
}
