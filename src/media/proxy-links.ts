import type { SecretInput } from '../storage/signing-secrets.js';
import { UrlSigner, cacheableExpiry, secondsLeft } from '../storage/signed-url.js';

export const PROXY_FORMATS = ['jpeg', 'png', 'webp', 'avif'] as const;
export type ProxyFormat = (typeof PROXY_FORMATS)[number];

/** What one proxied image is: the source URL and the optional resize and format. */
export interface ProxyParams {
  url: string;
  w?: number | undefined;
  h?: number | undefined;
  format?: ProxyFormat | undefined;
}

export const PROXY_PATH = '/api/image-proxy';

/**
 * Signed image-proxy URLs (issue #13) for <img> tags, which cannot send a bearer token: HMAC over
 * GET, the proxy path with every parameter (url, w, h, format, each present or empty, in a fixed
 * order) and the expiry, with a key of its own (src/storage/signed-url.ts). Changing any
 * parameter, adding one or dropping one breaks the signature.
 */
export class ProxyLinks {
  private readonly signer: UrlSigner;

  constructor(
    secret: SecretInput,
    private readonly baseUrl: string,
    private readonly ttlSeconds: number,
    private readonly now: () => number,
  ) {
    this.signer = new UrlSigner(secret, 'image-proxy');
  }

  /** The proxy path and query of `params`, without the signature (also what the signature covers). */
  static pathOf(params: ProxyParams): string {
    const query = new URLSearchParams({ url: params.url });
    if (params.w !== undefined) query.set('w', String(params.w));
    if (params.h !== undefined) query.set('h', String(params.h));
    if (params.format !== undefined) query.set('format', params.format);
    return `${PROXY_PATH}?${query.toString()}`;
  }

  /** Valid for at least the TTL; the same URL for a while (cacheableExpiry). */
  sign(params: ProxyParams): { url: string; expiresAt: number } {
    const path = ProxyLinks.pathOf(params);
    const expiresAt = cacheableExpiry(this.now(), this.ttlSeconds);
    return { url: `${this.baseUrl}${path}&${this.signer.sign('GET', path, expiresAt)}`, expiresAt };
  }

  verify(params: ProxyParams, expires: unknown, signature: unknown): 'ok' | 'expired' | 'invalid' {
    return this.signer.verify('GET', ProxyLinks.pathOf(params), expires, signature, this.now());
  }

  /** Seconds until a verified URL expires (for Cache-Control). */
  remaining(expires: string): number {
    return secondsLeft(expires, this.now());
  }
}
