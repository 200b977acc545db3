import { randomBytes } from 'node:crypto';
import type { AppContext } from '../context.js';
import { appError } from '../errors.js';
import type { Claim, Outcome } from '../domain/idempotency.js';
import * as keys from '../repositories/idempotency.js';
import { retryAfterFault } from '../faults/retry-later.js';

/** How long a key answers its first answer again (Stripe's 24 hours). */
export const IDEMPOTENCY_TTL = 24 * 3600;
/**
 * An unanswered claim older than this is taken to be from a process that died mid-request:
 * the key may be claimed again rather than answer 409 for a day. Far above any request's
 * duration (files are spooled before the claim; the longest step left is streaming one to the store).
 */
export const ABANDONED_CLAIM_AFTER = 3600;
export { IN_USE_RETRY_AFTER, type Claim, type Outcome } from '../domain/idempotency.js';

/**
 * Idempotency-Key (issue #10, after Stripe and the IETF draft "The Idempotency-Key HTTP Header
 * Field"): per user, one key stands for one request. The first request claims the key and its
 * answer is kept 24 hours; the same request again gets that answer, a different one a 422.
 */
export class IdempotencyService {
  constructor(private readonly ctx: AppContext) {}

  async begin(userId: number, key: string, fingerprint: string): Promise<Outcome> {
    const now = this.ctx.now();
    await keys.deleteStaleKey(this.ctx.db, userId, key, now - IDEMPOTENCY_TTL, now - ABANDONED_CLAIM_AFTER);
    // A row seen as taken may be released (a 5xx) before it is read: then claim again.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const claim = { userId, key, claimId: randomBytes(12).toString('hex') };
      if (await keys.claimKey(this.ctx.db, { ...claim, fingerprint, now })) return { kind: 'claimed', claim };
      const row = await keys.findKey(this.ctx.db, userId, key);
      if (!row) continue;
      if (row.fingerprint !== fingerprint) {
        throw appError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used for a different request (another operation, path or body)');
      }
      if (row.status_code === null || row.response_body === null) return { kind: 'in-use' };
      return { kind: 'replay', answer: { statusCode: row.status_code, contentType: row.content_type, body: row.response_body } };
    }
    return { kind: 'in-use' };
  }

  /**
   * Keeps the first answer for replays. The request has acted: when the database is unavailable just then (issue #37)
   * the answer is recorded once it is back (meanwhile the key answers 409 IDEMPOTENCY_KEY_IN_USE), so a retry
   * replays it rather than acting twice when the claim would count as abandoned.
   */
  finish(claim: Claim, answer: keys.StoredAnswer): Promise<void> {
    return this.durably('recording an Idempotency-Key answer', () => keys.recordAnswer(this.ctx.db, claim.userId, claim.key, claim.claimId, answer));
  }

  /**
   * Frees the key so that the client may retry (the request failed on our side); when the failure was the database
   * going away, once it is back, rather than holding the key for an hour (ABANDONED_CLAIM_AFTER).
   */
  release(claim: Claim): Promise<void> {
    return this.durably('freeing an Idempotency-Key', () => keys.releaseKey(this.ctx.db, claim.userId, claim.key, claim.claimId));
  }

  private async durably(what: string, write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (err) {
      if (!retryAfterFault(err, what, write, this.ctx.faults.log)) throw err;
    }
  }

  /** Housekeeping: keys past their 24 hours. */
  deleteExpired(): Promise<void> {
    return keys.deleteExpiredKeys(this.ctx.db, this.ctx.now() - IDEMPOTENCY_TTL);
  }
}
