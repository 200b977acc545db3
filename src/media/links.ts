import type { FileType } from '../domain/file-types.js';
import type { SecretInput } from '../services/signing-secrets.js';
import { UrlSigner, cacheableExpiry, secondsLeft } from '../storage/signed-url.js';

/** `video`: the web-playable MP4 preview of a video version (issue #15). */
export type MediaKind = 'file' | 'thumbnail' | 'preview' | 'video';

/**
 * URLs of a version's file and renditions that work in an <img> or <video> tag without a
 * bearer token (issue #5): HMAC-signed over GET + path + expiry with a key of their own
 * (src/storage/signed-url.ts), served by the public /media routes. Icons need no signature.
 */
export class MediaLinks {
  private readonly signer: UrlSigner;

  constructor(
    secret: SecretInput,
    private readonly baseUrl: string,
    private readonly ttlSeconds: number,
    private readonly now: () => number,
  ) {
    this.signer = new UrlSigner(secret, 'media');
  }

  static path(versionId: number, kind: MediaKind): string {
    return `/media/versions/${versionId}/${kind}`;
  }

  /** Valid for at least the TTL; the same URL for a while (cacheableExpiry). */
  signed(versionId: number, kind: MediaKind): string {
    const path = MediaLinks.path(versionId, kind);
    const expires = cacheableExpiry(this.now(), this.ttlSeconds);
    return `${this.baseUrl}${path}?${this.signer.sign('GET', path, expires)}`;
  }

  verify(versionId: number, kind: MediaKind, expires: unknown, signature: unknown): 'ok' | 'expired' | 'invalid' {
    return this.signer.verify('GET', MediaLinks.path(versionId, kind), expires, signature, this.now());
  }

  /** Seconds until a verified URL expires (for Cache-Control). */
  remaining(expires: string): number {
    return secondsLeft(expires, this.now());
  }

  /** A generic icon per file type: the thumbnail of files without a preview (issue #5). */
  icon(fileType: FileType): string {
    return `${this.baseUrl}/media/icons/${fileType}.svg`;
  }
}
