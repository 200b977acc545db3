import { pathCookie } from '../../domain/cookies.js';
import { PurposeTokens } from '../purpose-tokens.js';
import type { SecretInput } from '../../storage/signing-secrets.js';

const AUDIENCE = 'dam-share-download';

/** The cookie that carries a grant back from a browser (its download manager resumes with the URL's cookies). */
export const DOWNLOAD_GRANT_COOKIE = 'dam_dl';

/** What one grant is for: one file (the version shown) of one link. */
export interface GrantSubject {
  linkId: number;
  assetId: number;
  versionId: number;
}

/**
 * Download grants of shared links (issue #28): before them a download was counted only when it started at the
 * first byte, so `Range: bytes=1-` fetched a file of a max_downloads link again and again without counting.
 * Now every download is counted unless it carries the grant that an earlier counted download of the same file
 * answered (X-Download-Grant header, and a cookie scoped to the file's download path): that is the same visitor
 * resuming. A grant is an HS256 JWT under a key of its own derived from the instance secret, naming the link,
 * the asset and the version shown, so it neither opens another file nor a newer version, and it expires
 * (DOWNLOAD_GRANT_SECONDS). No table is needed: a grant is issued only after its download was counted.
 */
export class DownloadGrantSigner {
  private readonly tokens: PurposeTokens;

  constructor(secret: SecretInput) {
    this.tokens = new PurposeTokens(secret, 'share-download', AUDIENCE);
  }

  /** Short (about 170 characters): it travels in a header and a cookie. */
  sign(subject: GrantSubject, expiresAt: number): Promise<string> {
    return this.tokens.sign(String(subject.linkId), { f: `${subject.assetId}.${subject.versionId}` }, expiresAt);
  }

  /** Whether `token` is an unexpired grant for exactly this file of this link (`now` in Unix seconds). */
  async verify(token: string, subject: GrantSubject, now: number): Promise<boolean> {
    const payload = await this.tokens.verify(token, now);
    return payload !== null && payload.sub === String(subject.linkId) && payload.f === `${subject.assetId}.${subject.versionId}`;
  }
}

/** The Set-Cookie of a grant: only sent back to this file's download route (domain/cookies.ts). */
export function grantCookie(publicUrl: string, downloadPath: string, token: string, maxAge: number): string {
  return pathCookie(DOWNLOAD_GRANT_COOKIE, token, { publicUrl, path: downloadPath, maxAge });
}
