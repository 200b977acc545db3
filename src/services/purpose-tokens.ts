import { createHmac } from 'node:crypto';
import { SignJWT, jwtVerify, type JWTPayload } from 'jose';
import { secretsOf, type SecretInput } from '../storage/signing-secrets.js';

/**
 * Short HS256 JWTs for one purpose (share-access tokens, download grants): a key of their own derived from the
 * instance secret (`dam-token:<purpose>`), so a token of one purpose is never one of another or a session token,
 * and an audience of their own. Signed with the current key; verified with it and with DAM_JWT_SECRET_PREVIOUS's.
 */
export class PurposeTokens {
  /** The current key, then those of DAM_JWT_SECRET_PREVIOUS (verify only). */
  private readonly keys: Uint8Array[];

  constructor(
    secret: SecretInput,
    purpose: string,
    private readonly audience: string,
  ) {
    this.keys = secretsOf(secret).all.map((s) => createHmac('sha256', s).update(`dam-token:${purpose}`).digest());
  }

  sign(subject: string, claims: Record<string, string>, expiresAt: number): Promise<string> {
    return new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setSubject(subject).setAudience(this.audience).setExpirationTime(expiresAt).sign(this.keys[0]!);
  }

  /** The payload of an unexpired token of this purpose (`now` in Unix seconds), or null. */
  async verify(token: string, now: number): Promise<JWTPayload | null> {
    for (const key of this.keys) {
      try {
        return (await jwtVerify(token, key, { audience: this.audience, algorithms: ['HS256'], currentDate: new Date(now * 1000) })).payload;
      } catch {
        // Another key (DAM_JWT_SECRET_PREVIOUS) may have signed it.
      }
    }
    return null;
  }
}
