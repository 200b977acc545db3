import { createHash, createHmac } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import { secretsOf, type SecretInput } from './signing-secrets.js';

const AUDIENCE = 'dam-share-access';

/**
 * Share-access tokens (issue #14): what POST /shared/public/:key/unlock answers for the right
 * password, sent back as `X-Share-Token` or `?st=`. An HS256 JWT under a key of its own, derived from
 * the instance secret for this purpose only (as the signed URLs do), so a share token is never a
 * session token or the reverse. It names the link and carries a fingerprint of the link's password
 * hash: changing or removing the password ends every token issued before.
 */
export class ShareTokenSigner {
  private readonly key: Uint8Array;
  /** The current key, then those of DAM_JWT_SECRET_PREVIOUS (verify only). */
  private readonly keys: Uint8Array[];

  constructor(secret: SecretInput) {
    this.keys = secretsOf(secret).all.map((s) => createHmac('sha256', s).update('dam-token:share-access').digest());
    this.key = this.keys[0]!;
  }

  /** Changes whenever the password does (a new hash has a new salt). */
  static fingerprint(passwordHash: string): string {
    return createHash('sha256').update(passwordHash).digest('base64url').slice(0, 22);
  }

  sign(linkId: number, passwordHash: string, expiresAt: number): Promise<string> {
    return new SignJWT({ pwd: ShareTokenSigner.fingerprint(passwordHash) })
      // Kept short (about 200 characters at most): it travels in a header or a query parameter.
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(String(linkId))
      .setAudience(AUDIENCE)
      .setExpirationTime(expiresAt)
      .sign(this.key);
  }

  /** Whether `token` is an unexpired token of this link issued under its current password (`now` in Unix seconds). */
  async verify(token: string, linkId: number, passwordHash: string, now: number): Promise<boolean> {
    for (const key of this.keys) {
      if (await this.verifyWith(key, token, linkId, passwordHash, now)) return true;
    }
    return false;
  }

  private async verifyWith(key: Uint8Array, token: string, linkId: number, passwordHash: string, now: number): Promise<boolean> {
    try {
      const { payload } = await jwtVerify(token, key, {
        audience: AUDIENCE,
        algorithms: ['HS256'],
        currentDate: new Date(now * 1000),
      });
      return payload.sub === String(linkId) && payload.pwd === ShareTokenSigner.fingerprint(passwordHash);
    } catch {
      return false;
    }
  }
}
