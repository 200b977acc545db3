/*
 * The signing secrets' shape, shared by every signer (signed-url.ts, tokens, media and ZIP links, drive token cipher).
 * Resolving them at start (the database's or DAM_JWT_SECRET) is services/signing-secrets.ts.
 */

/**
 * The instance's signing secrets, resolved once at start (after migrations, before any service is
 * built): `current` signs and verifies; each of `previous` (DAM_JWT_SECRET_PREVIOUS) only verifies,
 * for the grace period of a rotation.
 */
export interface SigningSecrets {
  readonly current: string;
  readonly previous: readonly string[];
}

/** A plain secret (signs and verifies) or the instance's secrets with those of a rotation's grace period. */
export type SecretInput = string | SigningSecrets;

/** The secret to sign with and every secret to verify with, current first. */
export function secretsOf(input: SecretInput): { current: string; all: string[] } {
  if (typeof input === 'string') return { current: input, all: [input] };
  return { current: input.current, all: [input.current, ...input.previous] };
}
