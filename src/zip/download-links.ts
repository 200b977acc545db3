import type { SecretInput } from '../storage/signing-secrets.js';
import { UrlSigner } from '../storage/signed-url.js';

export const ZIP_DOWNLOAD_PATH = '/zip/download';

/** What a signed ZIP download URL stands for: one selection of one workspace, for one user. */
export interface ZipLinkParams {
  workspaceId: number;
  /** Comma list of asset ids, exactly as the URL carries it. */
  asset_ids?: string | undefined;
  folder_id?: number | undefined;
  collection_id?: number | undefined;
  /** The user the URL was issued to: the download runs with this user's access, checked again when it is used. */
  user_id: number;
}

/**
 * Signed GET /zip/download URLs (issue #14) for the browser to follow without a bearer token, so
 * that it streams the archive to disk instead of the page holding it in memory: HMAC over GET,
 * the path with workspaceId, the target (asset_ids, folder_id or collection_id, each present or
 * not, in a fixed order) and user_id, and the expiry, with a key of its own
 * (src/storage/signed-url.ts). Changing, adding or dropping any of them breaks the signature.
 * The expiry is exact (not rounded up as media URLs are): these URLs are followed at once.
 */
export class ZipLinks {
  private readonly signer: UrlSigner;

  constructor(
    secret: SecretInput,
    private readonly baseUrl: string,
    private readonly ttlSeconds: number,
    private readonly now: () => number,
  ) {
    this.signer = new UrlSigner(secret, 'zip-download');
  }

  /** The download path and query of `params`, without the signature (also what the signature covers). */
  static pathOf(params: ZipLinkParams): string {
    const query = new URLSearchParams({ workspaceId: String(params.workspaceId) });
    if (params.asset_ids !== undefined) query.set('asset_ids', params.asset_ids);
    if (params.folder_id !== undefined) query.set('folder_id', String(params.folder_id));
    if (params.collection_id !== undefined) query.set('collection_id', String(params.collection_id));
    query.set('user_id', String(params.user_id));
    return `${ZIP_DOWNLOAD_PATH}?${query.toString()}`;
  }

  /** An absolute URL on DAM_PUBLIC_URL, valid for the TTL from now. */
  sign(params: ZipLinkParams): { url: string; expiresAt: number } {
    const path = ZipLinks.pathOf(params);
    const expiresAt = this.now() + this.ttlSeconds;
    return { url: `${this.baseUrl}${path}&${this.signer.sign('GET', path, expiresAt)}`, expiresAt };
  }

  verify(params: ZipLinkParams, expires: unknown, signature: unknown): 'ok' | 'expired' | 'invalid' {
    return this.signer.verify('GET', ZipLinks.pathOf(params), expires, signature, this.now());
  }
}
