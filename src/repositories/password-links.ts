import type { DB } from '../db/database.js';
import type { PasswordLinkPurpose, PasswordLinkRow } from '../db/schema.js';

/** SQL of single-use password links (migration 0024, issue #27), keyed by the SHA-256 of their token. */

export async function insertPasswordLink(db: DB, l: { tokenHash: string; userId: number; purpose: PasswordLinkPurpose; now: number; expiresAt: number }): Promise<void> {
  await db
    .insertInto('password_links')
    .values({ token_hash: l.tokenHash, user_id: l.userId, purpose: l.purpose, created_at: l.now, expires_at: l.expiresAt, used_at: null })
    .execute();
}

/** The link if it is unused and unexpired at `now`. */
export function findUsablePasswordLink(db: DB, tokenHash: string, now: number): Promise<PasswordLinkRow | undefined> {
  return db
    .selectFrom('password_links')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/** Uses the link up; false when it was used (or expired) in the meantime. */
export async function usePasswordLink(db: DB, tokenHash: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('password_links')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** A new link retires the user's earlier unused ones of any purpose: only the newest works. */
export async function retirePasswordLinks(db: DB, userId: number, now: number): Promise<void> {
  await db.updateTable('password_links').set({ used_at: now }).where('user_id', '=', userId).where('used_at', 'is', null).execute();
}

/** Housekeeping: links that expired more than a day ago. */
export async function deleteExpiredPasswordLinks(db: DB, now: number): Promise<void> {
  await db.deleteFrom('password_links').where('expires_at', '<', now - 86_400).execute();
}
