import { webcrypto } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import { secretsOf, type SecretInput } from '../storage/signing-secrets.js';

export interface SessionClaims {
  userId: number;
  sessionId: string;
}

const ISSUER = 'dam-service';

/** Session JWTs (HS256). The `sid` claim ties the token to a row in `sessions` so logout revokes it. */
export class TokenSigner {
  /**
   * Imported once: given raw bytes, jose imports a WebCrypto key on every
   * sign and verify, which was a tenth of a millisecond of every request.
   */
  private readonly key: Promise<webcrypto.CryptoKey>;
  /** Keys of DAM_JWT_SECRET_PREVIOUS: tokens signed before a rotation verify until they expire. */
  private readonly previousKeys: Promise<webcrypto.CryptoKey>[];

  constructor(secret: SecretInput) {
    const importKey = (s: string) =>
      webcrypto.subtle.importKey('raw', new TextEncoder().encode(s), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    const [current, ...previous] = secretsOf(secret).all;
    this.key = importKey(current!);
    this.previousKeys = previous.map(importKey);
  }

  async sign(claims: SessionClaims, expiresAt: number): Promise<string> {
    return new SignJWT({ sid: claims.sessionId })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(String(claims.userId))
      .setIssuer(ISSUER)
      .setIssuedAt()
      .setExpirationTime(expiresAt)
      .sign(await this.key);
  }

  /** Returns the claims of a valid, unexpired token, or null. */
  async verify(token: string): Promise<SessionClaims | null> {
    const claims = await this.verifyWith(token, this.key);
    if (claims || this.previousKeys.length === 0) return claims;
    for (const key of this.previousKeys) {
      const old = await this.verifyWith(token, key);
      if (old) return old;
    }
    return null;
  }

  private async verifyWith(token: string, key: Promise<webcrypto.CryptoKey>): Promise<SessionClaims | null> {
    try {
      const { payload } = await jwtVerify(token, await key, { issuer: ISSUER, algorithms: ['HS256'] });
      const userId = Number(payload.sub);
      if (!Number.isInteger(userId) || typeof payload.sid !== 'string') return null;
      return { userId, sessionId: payload.sid };
    } catch {
      return null;
    }
  }
}
