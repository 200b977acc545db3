import { createHmac, timingSafeEqual } from 'node:crypto';
import { secretsOf, type SecretInput } from './signing-secrets.js';

/**
 * HMAC-signed, expiring URLs for resources this server serves without a bearer
 * token (local part uploads, thumbnails), in the spirit of S3 query
 * authentication: the signature covers method, path and expiry, so a URL
 * cannot be reused for another part, another upload or another verb.
 */
export class UrlSigner {
  /** The signing key first, then the keys of DAM_JWT_SECRET_PREVIOUS (verify only, during a rotation). */
  private readonly keys: Buffer[];

  constructor(secret: SecretInput, purpose: string) {
    // A key of its own, derived from the instance secret, per purpose.
    this.keys = secretsOf(secret).all.map((s) => createHmac('sha256', s).update(`dam-url-signer:${purpose}`).digest());
  }

  private mac(key: Buffer, method: string, path: string, expires: number): string {
    return createHmac('sha256', key).update(`${method}\n${path}\n${expires}`).digest('base64url');
  }

  /** Query string `expires=<unix>&signature=<mac>` for `method path`. */
  sign(method: string, path: string, expires: number): string {
    return `expires=${expires}&signature=${this.mac(this.keys[0]!, method, path, expires)}`;
  }

  verify(method: string, path: string, expires: unknown, signature: unknown, now: number): 'ok' | 'expired' | 'invalid' {
    if (typeof signature !== 'string' || typeof expires !== 'string' || !/^\d{1,12}$/.test(expires)) return 'invalid';
    const given = Buffer.from(signature);
    const valid = this.keys.some((key) => {
      const expected = Buffer.from(this.mac(key, method, path, Number(expires)));
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
    if (!valid) return 'invalid';
    return Number(expires) < now ? 'expired' : 'ok';
  }
}

/** Expiries of media and proxy URLs are rounded up to this step, so a URL stays the same for a while and browsers can cache it. */
const STEP_SECONDS = 600;

/** An expiry at least `ttlSeconds` from `now`, the same for up to STEP_SECONDS. */
export function cacheableExpiry(now: number, ttlSeconds: number): number {
  return Math.ceil((now + ttlSeconds) / STEP_SECONDS) * STEP_SECONDS;
}

/** Seconds until a verified URL's `expires` (for Cache-Control). */
export function secondsLeft(expires: string, now: number): number {
  return Math.max(0, Number(expires) - now);
}
