import type { Readable } from 'node:stream';
import type { DriveUploadSource, ExportFormat } from './types.js';

/** Byte handling every provider folder shares: reading an upload source into memory, a download's length and name. */

export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Bytes `start` to `end` (inclusive) of the source: one chunk in memory, so a failed request can be sent again. */
export async function readRange(source: DriveUploadSource, start: number, end: number): Promise<Buffer> {
  return readAll(await source.open({ start, end }));
}

/** The file's length from a download answer's Content-Length; null when absent, malformed, or of a compressed body. */
export function contentLength(headers: Headers): number | null {
  const length = headers.get('content-encoding') ? null : headers.get('content-length');
  return length !== null && /^\d{1,16}$/.test(length) ? Number(length) : null;
}

/** A provider document's name as its export: its own extension (if any) replaced by the format's. */
export function exportFileName(name: string, format: ExportFormat): string {
  return `${name.replace(/\.[A-Za-z0-9]{1,8}$/, '')}.${format.extension}`;
}
