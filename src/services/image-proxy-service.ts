import { fileTypeFromBuffer } from 'file-type';
import sharp from 'sharp';
import type { AppContext } from '../context.js';
import { appError, AppError } from '../errors.js';
import { checkUrlText, FetchFailed, FetchForbidden, FetchTooLarge, type SafeFetcher } from '../fetcher/index.js';
import type { ProxyLinks, ProxyFormat, ProxyParams } from '../media/proxy-links.js';

/** Pixels of an image the proxy decodes to resize or convert (sharp's limitInputPixels): 50 megapixels. */
export const PROXY_MAX_PIXELS = 50_000_000;

/** Raster types browsers show, passed through as fetched when no resize or format is asked for. */
const WEB_TYPES = new Set(['image/jpeg', 'image/png', 'image/apng', 'image/gif', 'image/webp', 'image/avif', 'image/bmp', 'image/x-icon']);

/** Output format of a resize without `format`: the source's where it is one of ours, else PNG. */
const SAME_FORMAT: Record<string, ProxyFormat> = { 'image/jpeg': 'jpeg', 'image/png': 'png', 'image/webp': 'webp', 'image/avif': 'avif' };

const MIME: Record<ProxyFormat, string> = { jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', avif: 'image/avif' };

export interface ProxiedImage {
  contentType: string;
  body: Buffer;
  /** Seconds the answer may be cached. */
  maxAge: number;
}

/** Seconds a proxied image fetched with a bearer token may be cached by the browser. */
const BEARER_MAX_AGE = 3600;

/**
 * The image proxy (issue #13): fetches an outside image through the SSRF-safe fetcher
 * (src/fetcher/), accepts it only when both its Content-Type and its first bytes say raster
 * image (SVG is refused, never passed through nor rasterised: it is a document that may carry
 * script and references), and optionally resizes or converts it with sharp under a pixel limit.
 */
export class ImageProxyService {
  constructor(
    private readonly ctx: AppContext,
    private readonly fetcher: SafeFetcher,
    private readonly links: ProxyLinks,
  ) {}

  /**
   * A signed proxy URL for `params`, usable without a bearer token until `expiresAt`. A URL that
   * could never be fetched (not http(s), credentials) is refused now; its host is checked when used.
   */
  sign(params: ProxyParams): { url: string; expiresAt: number } {
    try {
      checkUrlText(params.url);
    } catch (err) {
      if (err instanceof FetchForbidden) throw appError('PROXY_TARGET_FORBIDDEN', err.message);
      throw err;
    }
    return this.links.sign(params);
  }

  /** The image of a bearer-token request. */
  async proxy(params: ProxyParams): Promise<ProxiedImage> {
    return { ...(await this.render(params)), maxAge: BEARER_MAX_AGE };
  }

  /** The image of a signed URL; a tampered URL is 403 INVALID_SIGNATURE, an expired one 403 URL_EXPIRED. */
  async proxySigned(params: ProxyParams, expires: string | undefined, signature: string | undefined): Promise<ProxiedImage> {
    const verdict = this.links.verify(params, expires, signature);
    if (verdict === 'invalid') throw appError('INVALID_SIGNATURE');
    if (verdict === 'expired') throw appError('URL_EXPIRED');
    return { ...(await this.render(params)), maxAge: this.links.remaining(expires!) };
  }

  private async render(params: ProxyParams): Promise<Omit<ProxiedImage, 'maxAge'>> {
    const fetched = await this.fetch(params.url);
    const type = await this.imageType(fetched.contentType, fetched.body);
    if (params.w === undefined && params.h === undefined && params.format === undefined && WEB_TYPES.has(type)) {
      return { contentType: type, body: fetched.body };
    }
    const format = params.format ?? SAME_FORMAT[type] ?? 'png';
    return { contentType: MIME[format], body: await transform(fetched.body, params, format) };
  }

  private async fetch(url: string) {
    try {
      return await this.fetcher.fetch(url, { accept: 'image/avif,image/webp,image/png,image/jpeg,image/*;q=0.8' });
    } catch (err) {
      if (err instanceof FetchForbidden) throw appError('PROXY_TARGET_FORBIDDEN', err.message);
      if (err instanceof FetchTooLarge) throw appError('PROXY_IMAGE_TOO_LARGE', `${err.message} (DAM_PROXY_MAX_BYTES ${this.ctx.config.proxy.maxBytes})`);
      if (err instanceof FetchFailed) throw appError('PROXY_FETCH_FAILED', `The image could not be fetched: ${err.message}`);
      throw err;
    }
  }

  /** The sniffed raster type, when the upstream Content-Type also says image (and neither says SVG). */
  private async imageType(contentType: string | null, body: Buffer): Promise<string> {
    const claimed = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
    if (!claimed.startsWith('image/') || claimed.includes('svg')) {
      throw appError('PROXY_NOT_AN_IMAGE', `The URL answered ${claimed ? `Content-Type ${claimed}` : 'no Content-Type'}, not a raster image`);
    }
    let sniffed: string | undefined;
    try {
      sniffed = (await fileTypeFromBuffer(body))?.mime;
    } catch {
      sniffed = undefined;
    }
    if (!sniffed?.startsWith('image/') || sniffed.includes('svg')) {
      throw appError('PROXY_NOT_AN_IMAGE', 'The answer claims to be an image, but its content is not a raster image');
    }
    return sniffed;
  }
}

/** Resized to fit inside w x h (never enlarged), EXIF orientation applied, metadata dropped. */
async function transform(input: Buffer, params: ProxyParams, format: ProxyFormat): Promise<Buffer> {
  try {
    let image = sharp(input, { limitInputPixels: PROXY_MAX_PIXELS, failOn: 'error' }).autoOrient();
    if (params.w !== undefined || params.h !== undefined) {
      image = image.resize({ width: params.w, height: params.h, fit: 'inside', withoutEnlargement: true });
    }
    return await image.toFormat(format, format === 'avif' ? { effort: 2 } : {}).toBuffer();
  } catch (err) {
    if (err instanceof AppError) throw err;
    const message = (err as Error).message;
    if (/pixel limit/i.test(message)) throw appError('PROXY_IMAGE_TOO_LARGE', `The image has more than ${PROXY_MAX_PIXELS} pixels`);
    throw appError('PROXY_NOT_AN_IMAGE', 'The image could not be decoded');
  }
}
