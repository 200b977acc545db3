/** An answer kept for its Idempotency-Key (issue #10): what the same request gets again. */
export interface StoredAnswer {
  statusCode: number;
  contentType: string | null;
  body: string;
}

/** Seconds a client is told to wait (Retry-After) while the first request with its key runs. */
export const IN_USE_RETRY_AFTER = 1;

export interface Claim {
  userId: number;
  key: string;
  claimId: string;
}

export type Outcome = { kind: 'claimed'; claim: Claim } | { kind: 'replay'; answer: StoredAnswer } | { kind: 'in-use' };

/** What http/idempotency.ts needs of the idempotency service (services/idempotency-service.ts). */
export interface IdempotencyKeeper {
  begin(userId: number, key: string, fingerprint: string): Promise<Outcome>;
  finish(claim: Claim, answer: StoredAnswer): Promise<void>;
  release(claim: Claim): Promise<void>;
}
