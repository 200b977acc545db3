import type { Readable } from 'node:stream';
import contentDisposition from 'content-disposition';
import parseRange from 'range-parser';
import { appError } from '../errors.js';
import { StoreError, type ObjectStore } from '../storage/object-store.js';

export interface DownloadResult {
  status: 200 | 206;
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

/**
 * The plain `filename` parameter in US-ASCII only (RFC 6266 appendix D): accents dropped, anything else '?'.
 * content-disposition's own fallback keeps ISO-8859-1 bytes, and then omits filename* for names such as
 * "Größe.jpg", so clients reading UTF-8 would get a mangled name.
 */
function asciiFallback(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]/g, '?');
}

/** `attachment` with the name (RFC 6266): `filename` in ASCII, and `filename*` (RFC 5987, UTF-8) when the name is not ASCII. */
export function contentDispositionAttachment(fileName: string): string {
  return contentDisposition(fileName, { type: 'attachment', fallback: asciiFallback(fileName) });
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

/**
 * Streams an object as a download: Content-Type, Content-Length,
 * Content-Disposition attachment (RFC 6266, with filename* for UTF-8 names),
 * nosniff, and a single byte range answered with 206 (RFC 9110).
 */
export async function streamDownload(
  store: ObjectStore,
  key: string,
  opts: { fileName: string; mimeType: string; rangeHeader: string | undefined },
): Promise<DownloadResult> {
  // A provider failure is S3_ERROR (502), as for the read below, not an unexpected 500.
  const info = await store.head(key).catch((err: unknown) => {
    throw err instanceof StoreError ? appError('S3_ERROR', err.message) : err;
  });
  if (!info) throw appError('NOT_FOUND', 'The file of this asset is missing from storage');
  const headers = downloadHeaders(opts.fileName, opts.mimeType);
  let range: { start: number; end: number } | undefined;
  if (opts.rangeHeader) {
    const parsed = parseRange(info.size, opts.rangeHeader, { combine: true });
    if (parsed === -1) {
      throw appError('RANGE_NOT_SATISFIABLE', `Range ${opts.rangeHeader} is outside the file's ${info.size} bytes`, {
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
    if (err instanceof StoreError && err.providerCode === 'NoSuchKey') throw appError('NOT_FOUND', 'The file of this asset is missing from storage');
    throw appError('S3_ERROR', (err as Error).message);
  }
  if (range) {
    headers['content-range'] = `bytes ${range.start}-${range.end}/${info.size}`;
    headers['content-length'] = String(range.end - range.start + 1);
    return { status: 206, headers, stream: body.stream };
  }
  headers['content-length'] = String(info.size);
  return { status: 200, headers, stream: body.stream };
}
