import type { FileType } from '../domain/file-types.js';
import type { SecretInput } from '../storage/signing-secrets.js';
import { UrlSigner, cacheableExpiry, secondsLeft } from '../storage/signed-url.js';

/** `video`: the web-playable MP4 preview of a video version (issue #15). */
export type MediaKind = 'file' | 'thumbnail' | 'preview' | 'video';

/**
 * What a media URL was handed out under (issues #27 and #28), checked again each time it is used
 * (services/media-grants.ts): a member (`userId`: the URL serves while that user still sees the asset, as a
 * member of its workspace whose role shows it) or a shared link (`shareId`: the URL serves while that link is
 * active and still shows this version of a public asset). So a URL made for a manager never outlives the
 * manager's grant, and one handed to a shared link's visitor stops serving once the link is revoked or expires,
 * the asset leaves the link or turns private.
 */
export type MediaGrant = { readonly userId: number } | { readonly shareId: number };

/**
 * The `grant` query parameter of a media URL: `u` and the user id, or `s` and the shared link's id. (`public`,
 * the unbound grant of shared links before issue #28, is no longer one: such URLs answer 400 and expire anyway.)
 */
export const GRANT_PATTERN = '^[us][1-9][0-9]{0,15}$';

export function grantText(grant: MediaGrant): string {
  return 'userId' in grant ? `u${grant.userId}` : `s${grant.shareId}`;
}

/** The grant a `grant` parameter names, or undefined when it names none. */
export function parseGrant(text: unknown): MediaGrant | undefined {
  if (typeof text !== 'string' || !new RegExp(GRANT_PATTERN).test(text)) return undefined;
  const id = Number(text.slice(1));
  if (!Number.isSafeInteger(id)) return undefined;
  return text.startsWith('u') ? { userId: id } : { shareId: id };
}

/**
 * URLs of a version's file and renditions that work in an <img> or <video> tag without a
 * bearer token (issue #5): HMAC-signed over GET + path + grant + expiry with a key of their own
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

  /** Valid for at least the TTL; the same URL for a while (cacheableExpiry). The grant is signed with the path. */
  signed(versionId: number, kind: MediaKind, grant: MediaGrant): string {
    const path = MediaLinks.path(versionId, kind);
    const text = grantText(grant);
    const expires = cacheableExpiry(this.now(), this.ttlSeconds);
    return `${this.baseUrl}${path}?${this.signer.sign('GET', `${path}?grant=${text}`, expires)}&grant=${text}`;
  }

  /** The signature over the path, the grant (`grant` as the URL gave it) and the expiry. */
  verify(versionId: number, kind: MediaKind, grant: unknown, expires: unknown, signature: unknown): 'ok' | 'expired' | 'invalid' {
    const parsed = parseGrant(grant);
    if (!parsed) return 'invalid';
    return this.signer.verify('GET', `${MediaLinks.path(versionId, kind)}?grant=${grantText(parsed)}`, expires, signature, this.now());
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
