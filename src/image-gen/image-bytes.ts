import { fileTypeFromBuffer } from 'file-type';
import { FetchFailed, FetchForbidden, FetchTooLarge, type SafeFetcher } from '../fetcher/index.js';
import { probeImage } from '../media/probe.js';
import { ImageGenUnavailable, type GeneratedImage } from './types.js';

/** Raster formats image providers answer; anything else (SVG, HTML, an error page) is not stored. */
const IMAGE_TYPES: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp', 'image/gif': 'gif' };

export interface DecodedImage {
  bytes: Buffer;
  /** From the bytes' signature, never from a Content-Type header. */
  mimeType: string;
  extension: string;
  width: number;
  height: number;
}

/** The provider's image is not one we store: not a raster image by its first bytes, too large, or at a URL we may not fetch. Final. */
export class NotAnImage extends Error {
  override readonly name = 'NotAnImage';
}

/**
 * The bytes of one generated image: decoded from base64, or fetched from the URL the provider
 * answered through the SSRF-safe fetcher (a provider, or whoever answers in its name, must not make
 * this server read its own network). Either way the bytes must be a PNG, JPEG, WebP or GIF by their
 * signature, and sharp must read their dimensions.
 */
export async function decodeImage(image: GeneratedImage, fetcher: SafeFetcher, maxBytes: number): Promise<DecodedImage> {
  let bytes: Buffer;
  if (image.b64 !== undefined) {
    if (Math.floor((image.b64.length * 3) / 4) > maxBytes + 3) throw new NotAnImage(`The generated image is larger than ${maxBytes} bytes`);
    bytes = Buffer.from(image.b64, 'base64');
  } else if (image.url !== undefined) {
    bytes = await fetchImage(image.url, fetcher, maxBytes);
  } else {
    throw new NotAnImage('The image provider answered an image without data');
  }
  const type = await fileTypeFromBuffer(bytes);
  const extension = type ? IMAGE_TYPES[type.mime] : undefined;
  if (!type || !extension) throw new NotAnImage(`The generated image is not a PNG, JPEG, WebP or GIF (${type?.mime ?? 'unknown bytes'})`);
  const size = await probeImage(bytes);
  if (!size) throw new NotAnImage('The generated image cannot be read');
  return { bytes, mimeType: type.mime, extension, ...size };
}

/** Fetch errors by kind, without the URL (a provider's URL may carry a signature in its query). */
async function fetchImage(url: string, fetcher: SafeFetcher, maxBytes: number): Promise<Buffer> {
  try {
    return (await fetcher.fetch(url, { accept: 'image/png, image/jpeg, image/webp, image/gif', maxBytes })).body;
  } catch (err) {
    if (err instanceof FetchForbidden) throw new NotAnImage(`The image URL the provider answered may not be fetched: ${err.message}`);
    if (err instanceof FetchTooLarge) throw new NotAnImage(`The generated image is larger than ${maxBytes} bytes`);
    if (err instanceof FetchFailed) {
      throw new ImageGenUnavailable(`The generated image could not be fetched${err.status ? ` (HTTP ${err.status})` : ''}`);
    }
    throw err;
  }
}
