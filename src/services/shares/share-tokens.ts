import { createHash } from 'node:crypto';
import { PurposeTokens } from '../purpose-tokens.js';
import type { SecretInput } from '../../storage/signing-secrets.js';

const AUDIENCE = 'dam-share-access';

/**
 * Share-access tokens (issue #14): what POST /shared/public/:key/unlock answers for the right
 * password, sent back as `X-Share-Token` or `?st=`. An HS256 JWT under a key of its own, derived from
 * the instance secret for this purpose only (as the signed URLs do), so a share token is never a
 * session token or the reverse. It names the link and carries a fingerprint of the link's password
 * hash: changing or removing the password ends every token issued before.
 */
export class ShareTokenSigner {
  private readonly tokens: PurposeTokens;

  constructor(secret: SecretInput) {
    this.tokens = new PurposeTokens(secret, 'share-access', AUDIENCE);
  }

  /** Changes whenever the password does (a new hash has a new salt). */
  static fingerprint(passwordHash: string): string {
    return createHash('sha256').update(passwordHash).digest('base64url').slice(0, 22);
  }

  /** Kept short (about 200 characters at most): it travels in a header or a query parameter. */
  sign(linkId: number, passwordHash: string, expiresAt: number): Promise<string> {
    return this.tokens.sign(String(linkId), { pwd: ShareTokenSigner.fingerprint(passwordHash) }, expiresAt);
  }

  /** Whether `token` is an unexpired token of this link issued under its current password (`now` in Unix seconds). */
  async verify(token: string, linkId: number, passwordHash: string, now: number): Promise<boolean> {
    const payload = await this.tokens.verify(token, now);
    return payload !== null && payload.sub === String(linkId) && payload.pwd === ShareTokenSigner.fingerprint(passwordHash);
  }
}
