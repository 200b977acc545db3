import { Readable } from 'node:stream';
import { storeFailure } from '../faults/classify.js';
import parseRange from 'range-parser';
import { contentDispositionAttachment } from '../domain/content-disposition.js';
import { httpDate, notModified, rangeApplies, type DownloadConditions, type DownloadValidator } from '../domain/conditional-download.js';
import { appError } from '../errors.js';
import type { ObjectStore } from '../storage/object-store.js';

export type { DownloadConditions, DownloadValidator } from '../domain/conditional-download.js';
export { downloadConditions, renditionValidator, versionValidator } from '../domain/conditional-download.js';

export interface DownloadResult {
  /** 304: the client's copy is current (If-None-Match, If-Modified-Since); the stream is empty. */
  status: 200 | 206 | 304;
  headers: Record<string, string>;
  stream: Readable;
}

const EXTENSIONS: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'video/mp4': 'mp4',
  'application/pdf': 'pdf',
};

/** The name offered to the browser; a name without extension gets one from the MIME type when known. */
export function fileNameFor(name: string, mimeType: string): string {
  if (/\.[A-Za-z0-9]{1,8}$/.test(name)) return name;
  const ext = EXTENSIONS[mimeType];
  return ext ? `${name}.${ext}` : name;
}

/** The headers of every download: its type, attachment with its name, nosniff, never cached; byte ranges accepted. */
export function downloadHeaders(fileName: string, mimeType: string): Record<string, string> {
  return {
    'content-type': mimeType || 'application/octet-stream',
    'content-disposition': contentDispositionAttachment(fileName),
    'x-content-type-options': 'nosniff',
    'accept-ranges': 'bytes',
    'cache-control': 'private, no-store',
  };
}

/** ETag and Last-Modified of a validator, for 200, 206 and 304 alike. */
function validatorHeaders(validator: DownloadValidator | undefined): Record<string, string> {
  if (!validator) return {};
  const headers: Record<string, string> = { etag: validator.etag };
  if (validator.lastModified !== undefined) headers['last-modified'] = httpDate(validator.lastModified);
  return headers;
}

/**
 * Streams an object as a download: Content-Type, Content-Length,
 * Content-Disposition attachment (RFC 6266, with filename* for UTF-8 names),
 * nosniff, and a single byte range answered with 206 (RFC 9110).
 * With a validator (the bytes' identity, ../domain/conditional-download.ts): ETag and Last-Modified, 304 to a
 * matching If-None-Match (or If-Modified-Since where dates are strong), and a Range under an If-Range that names
 * other bytes (another version) answered whole with 200, so a resumed download is never spliced from two versions.
 */
export async function streamDownload(
  store: ObjectStore,
  key: string,
  opts: { fileName: string; mimeType: string; conditions: DownloadConditions; validator?: DownloadValidator },
): Promise<DownloadResult> {
  // A provider failure is S3_ERROR (502) or STORAGE_UNAVAILABLE (503), as for the read below, not an unexpected 500.
  const info = await store.head(key).catch((err: unknown) => {
    throw storeFailure(err);
  });
  if (!info) throw appError('NOT_FOUND', 'The file of this asset is missing from storage');
  const { conditions, validator } = opts;
  const headers = { ...downloadHeaders(opts.fileName, opts.mimeType), ...validatorHeaders(validator) };
  if (notModified(conditions, validator)) return { status: 304, headers, stream: Readable.from([]) };
  let range: { start: number; end: number } | undefined;
  if (conditions.range && rangeApplies(conditions.ifRange, validator)) {
    const parsed = parseRange(info.size, conditions.range, { combine: true });
    if (parsed === -1) {
      throw appError('RANGE_NOT_SATISFIABLE', `Range ${conditions.range} is outside the file's ${info.size} bytes`, {
        size: info.size,
      });
    }
    // A malformed header (-2) or several ranges: answer the whole file, as RFC 9110 allows.
    if (Array.isArray(parsed) && parsed.length === 1 && parsed[0]) range = { start: parsed[0].start, end: parsed[0].end };
  }
  let body;
  try {
    body = await store.read(key, range);
  } catch (err) {
    throw storeFailure(err);
  }
  if (range) {
    headers['content-range'] = `bytes ${range.start}-${range.end}/${info.size}`;
    headers['content-length'] = String(range.end - range.start + 1);
    return { status: 206, headers, stream: body.stream };
  }
  headers['content-length'] = String(info.size);
  return { status: 200, headers, stream: body.stream };
}
