import { SignJWT, jwtVerify } from 'jose';
import { derivedKey } from './token-cipher.js';

const ISSUER = 'dam-service:drive-state';

export interface StateClaims {
  userId: number;
  provider: string;
  /** Names the server-side row (drive_oauth_states) that makes the state single-use. */
  nonce: string;
}

/**
 * The OAuth `state` of a drive connection: a JWT (HS256, jose) under a key derived for this purpose only,
 * so neither a session token nor anything else signed with the instance secret passes for one. It names the
 * user, the provider (as audience) and a nonce, and lives `ttl` seconds. The signature makes it tamper-proof;
 * single use and the browser binding come from the nonce's row (services/drives/drive-auth-service.ts).
 */
export class StateSigner {
  private readonly key: Uint8Array;

  constructor(secret: string) {
    this.key = new Uint8Array(derivedKey(secret, 'oauth-state'));
  }

  sign(claims: StateClaims, now: number, ttl: number): Promise<string> {
    return new SignJWT({ nonce: claims.nonce })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(ISSUER)
      .setAudience(claims.provider)
      .setSubject(String(claims.userId))
      .setIssuedAt(now)
      .setExpirationTime(now + ttl)
      .sign(this.key);
  }

  /** The claims of a state this instance signed for `provider` and that has not expired at `now`; otherwise null. */
  async verify(state: string, provider: string, now: number): Promise<StateClaims | null> {
    try {
      const { payload } = await jwtVerify(state, this.key, {
        issuer: ISSUER,
        audience: provider,
        algorithms: ['HS256'],
        currentDate: new Date(now * 1000),
        clockTolerance: 0,
      });
      const userId = Number(payload.sub);
      if (!Number.isSafeInteger(userId) || typeof payload.nonce !== 'string') return null;
      return { userId, provider, nonce: payload.nonce };
    } catch {
      return null;
    }
  }
}
