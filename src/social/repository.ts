import type { DB } from '../db/database.js';

/** SQL of social login: identities at providers and spent provider tokens (migration 0005). */

export async function findIdentityUserId(db: DB, provider: string, subject: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('user_identities')
    .select('user_id')
    .where('provider', '=', provider)
    .where('subject', '=', subject)
    .executeTakeFirst();
  return row?.user_id;
}

export async function insertIdentity(
  db: DB,
  identity: { provider: string; subject: string; userId: number; email: string | null; now: number },
): Promise<void> {
  await db
    .insertInto('user_identities')
    .values({
      provider: identity.provider,
      subject: identity.subject,
      user_id: identity.userId,
      email: identity.email,
      created_at: identity.now,
      last_login_at: identity.now,
    })
    .execute();
}

export async function touchIdentity(db: DB, provider: string, subject: string, email: string | null, now: number): Promise<void> {
  await db
    .updateTable('user_identities')
    .set({ email, last_login_at: now })
    .where('provider', '=', provider)
    .where('subject', '=', subject)
    .execute();
}

export async function updateUserName(db: DB, userId: number, name: string, now: number): Promise<void> {
  await db.updateTable('users').set({ name, modified_at: now }).where('id', '=', userId).execute();
}

export async function isTokenUsed(db: DB, tokenHash: string): Promise<boolean> {
  const row = await db.selectFrom('social_used_tokens').select('token_hash').where('token_hash', '=', tokenHash).executeTakeFirst();
  return row !== undefined;
}

/** Records a token as spent; false when it already was (the insert and the check are one statement). */
export async function claimToken(db: DB, tokenHash: string, expiresAt: number): Promise<boolean> {
  const result = await db
    .insertInto('social_used_tokens')
    .values({ token_hash: tokenHash, expires_at: expiresAt })
    .onConflict((oc) => oc.column('token_hash').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

export async function deleteExpiredTokens(db: DB, now: number): Promise<void> {
  await db.deleteFrom('social_used_tokens').where('expires_at', '<', now).execute();
}
