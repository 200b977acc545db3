import type { DB } from '../db/database.js';
import type { IdempotencyKeyRow } from '../db/schema.js';
import type { StoredAnswer } from '../domain/idempotency.js';

/** SQL of Idempotency-Key (migration 0006): claims, answers, expiry. */

export interface NewClaim {
  userId: number;
  key: string;
  fingerprint: string;
  claimId: string;
  now: number;
}

export type { StoredAnswer };

/** Claims the key; false when a row for (user, key) exists (the check and the insert are one statement). */
export async function claimKey(db: DB, claim: NewClaim): Promise<boolean> {
  const result = await db
    .insertInto('idempotency_keys')
    .values({
      user_id: claim.userId,
      idempotency_key: claim.key,
      fingerprint: claim.fingerprint,
      claim_id: claim.claimId,
      created_at: claim.now,
      status_code: null,
      content_type: null,
      response_body: null,
    })
    .onConflict((oc) => oc.columns(['user_id', 'idempotency_key']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

export function findKey(db: DB, userId: number, key: string): Promise<IdempotencyKeyRow | undefined> {
  return db.selectFrom('idempotency_keys').selectAll().where('user_id', '=', userId).where('idempotency_key', '=', key).executeTakeFirst();
}

/**
 * Deletes the (user, key) row if it is stale: answered or not, created at or before `expiredAt`;
 * still unanswered, created at or before `abandonedAt` (its process died).
 */
export async function deleteStaleKey(db: DB, userId: number, key: string, expiredAt: number, abandonedAt: number): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('user_id', '=', userId)
    .where('idempotency_key', '=', key)
    .where((eb) => eb.or([eb('created_at', '<=', expiredAt), eb.and([eb('status_code', 'is', null), eb('created_at', '<=', abandonedAt)])]))
    .execute();
}

/** Records the first answer; only the claim that holds the key may. */
export async function recordAnswer(db: DB, userId: number, key: string, claimId: string, answer: StoredAnswer): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ status_code: answer.statusCode, content_type: answer.contentType, response_body: answer.body })
    .where('user_id', '=', userId)
    .where('idempotency_key', '=', key)
    .where('claim_id', '=', claimId)
    .execute();
}

/** Gives the key up (a 5xx): only the claim that holds it may. */
export async function releaseKey(db: DB, userId: number, key: string, claimId: string): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('user_id', '=', userId)
    .where('idempotency_key', '=', key)
    .where('claim_id', '=', claimId)
    .execute();
}

/** Housekeeping: rows created at or before `expiredAt`. */
export async function deleteExpiredKeys(db: DB, expiredAt: number): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('created_at', '<=', expiredAt).execute();
}
