import { webcrypto } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';

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

  constructor(secret: string) {
    const bytes = new TextEncoder().encode(secret);
    this.key = webcrypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
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
    try {
      const { payload } = await jwtVerify(token, await this.key, { issuer: ISSUER, algorithms: ['HS256'] });
      const userId = Number(payload.sub);
      if (!Number.isInteger(userId) || typeof payload.sid !== 'string') return null;
      return { userId, sessionId: payload.sid };
    } catch {
      return null;
    }
  }
}
