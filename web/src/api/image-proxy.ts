import { requestData } from './http';
import type { BodyOf, DataOf } from './schema';

/**
 * External images (e.g. a cloud drive's thumbnails) are never loaded from their own server by the
 * browser: they go through the server's image proxy, which fetches them safely, checks that they
 * are raster images and can resize them. An <img> cannot send the bearer token, so the client asks
 * for a signed proxy URL (POST /api/image-proxy/sign) and uses that as the src.
 */

type SignBody = BodyOf<'/api/image-proxy/sign', 'post'>;
/** Largest width / height in pixels (w, h); the image is fit inside, never enlarged. */
export type ProxyOptions = Omit<SignBody, 'url'>;
export type ProxyFormat = NonNullable<ProxyOptions['format']>;
/** expires_at: Unix seconds. */
export type SignedProxyUrl = DataOf<'/api/image-proxy/sign', 'post'>;

export const imageProxyApi = {
  sign: (url: string, options: ProxyOptions = {}) =>
    requestData<SignedProxyUrl>('POST', '/api/image-proxy/sign', { body: { url, ...options } satisfies SignBody }),
};

/** A signed URL is signed again when less than this is left of it (seconds). */
const RENEW_MARGIN = 120;

const signed = new Map<string, SignedProxyUrl>();
const pending = new Map<string, Promise<SignedProxyUrl>>();

/** Whether `url` is an http(s) image on another origin than the client's, so it must be proxied. */
export function isExternalImage(url: string, origin: string = window.location.origin): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url, origin);
  } catch {
    return false;
  }
  return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.origin !== origin;
}

/**
 * The src to show `url` with: the client's own URLs (signed media URLs), data: and blob: URLs as
 * they are; an external image through a signed proxy URL, kept and reused until shortly before it
 * expires (so a grid of the same images signs each once, and the browser's cache keeps working).
 */
export async function proxiedImageSrc(url: string, options: ProxyOptions = {}, now: () => number = () => Date.now() / 1000): Promise<string> {
  if (!isExternalImage(url)) return url;
  const key = JSON.stringify([url, options.w ?? null, options.h ?? null, options.format ?? null]);
  const known = signed.get(key);
  if (known && known.expires_at - RENEW_MARGIN > now()) return known.url;
  let request = pending.get(key);
  if (!request) {
    request = imageProxyApi.sign(url, options);
    pending.set(key, request);
  }
  try {
    const fresh = await request;
    signed.set(key, fresh);
    return fresh.url;
  } finally {
    pending.delete(key);
  }
}

/** Forgets every signed URL (at sign-out: they were signed for the user who leaves). */
export function forgetProxiedImages(): void {
  signed.clear();
  pending.clear();
}
