import { SignJWT, jwtVerify } from 'jose';

export interface SessionClaims {
  userId: number;
  sessionId: string;
}

const ISSUER = 'dam-service';

/** Session JWTs (HS256). The `sid` claim ties the token to a row in `sessions` so logout revokes it. */
export class TokenSigner {
  private readonly key: Uint8Array;

  constructor(secret: string) {
    this.key = new TextEncoder().encode(secret);
  }

  sign(claims: SessionClaims, expiresAt: number): Promise<string> {
    return new SignJWT({ sid: claims.sessionId })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(String(claims.userId))
      .setIssuer(ISSUER)
      .setIssuedAt()
      .setExpirationTime(expiresAt)
      .sign(this.key);
  }

  /** Returns the claims of a valid, unexpired token, or null. */
  async verify(token: string): Promise<SessionClaims | null> {
    try {
      const { payload } = await jwtVerify(token, this.key, { issuer: ISSUER, algorithms: ['HS256'] });
      const userId = Number(payload.sub);
      if (!Number.isInteger(userId) || typeof payload.sid !== 'string') return null;
      return { userId, sessionId: payload.sid };
    } catch {
      return null;
    }
  }
}
