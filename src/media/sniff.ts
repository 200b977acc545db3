import { open } from 'node:fs/promises';
import { fileTypeFromBuffer } from 'file-type';
import { rendersInline } from '../domain/file-types.js';

/**
 * The type a stored file is recorded and served as, from its first bytes (issue #10): a client's
 * claim (start-upload's `fileType`, a multipart part's Content-Type) is only a hint. Every way a
 * file comes in (complete-upload, server upload, version upload) decides through this module.
 */

/** file-type's own sample size: enough for every signature it knows, ZIP-based office formats included. */
export const SNIFF_BYTES = 4100;

const UNKNOWN = 'application/octet-stream';

/**
 * Generic containers file-type names when their first bytes say no more (a ZIP, an OLE compound
 * file, an XML document). A claim of a format built on that container refines the sniffed type
 * rather than contradicting it: a DOCX is a ZIP, an SVG is XML, a .doc is a compound file.
 */
const REFINED_BY: Record<string, RegExp> = {
  'application/zip':
    /^application\/(.+\+zip|vnd\.openxmlformats-officedocument\..+|vnd\.oasis\.opendocument\..+|vnd\.ms-.+|java-archive|vnd\.android\.package-archive|vnd\.apple\.(pages|numbers|keynote)|x-zip-compressed)$/,
  'application/x-cfb': /^application\/(msword|vnd\.ms-.+|vnd\.visio|x-msi)$/,
  'application/xml': /^(text\/xml|[^/]+\/.+\+xml)$/,
};

/**
 * WHATWG MIME Sniffing 7.1: the leading tags by which a browser takes bytes of unknown type for
 * HTML, and SVG's root element. file-type leaves text formats alone; these matter only against a
 * claim that would be served inline (see `markupBehindMediaClaim`).
 */
const MARKUP = /^\ufeff?[\t\n\f\r ]*<(!doctype html|html|head|script|iframe|h1|div|font|table|a|style|title|b|body|br|p|!--|svg)[\t\n\f\r >]/i;

/**
 * Markup claimed as a raster image, audio or video would be the one case where a file's claim
 * decides that it is served inline: such bytes are recorded as the markup they are, so they are
 * always an attachment, whatever the claim (other claims of unrecognised bytes stand).
 */
function markupBehindMediaClaim(head: Uint8Array, claimed: string | undefined): string | undefined {
  if (!rendersInline(claimed)) return undefined;
  const match = MARKUP.exec(Buffer.from(head.subarray(0, 1445)).toString('utf8'));
  if (!match) return undefined;
  return match[1]!.toLowerCase() === 'svg' ? 'image/svg+xml' : 'text/html';
}

/**
 * The final type: the sniffed one where it is conclusive; when nothing was recognised (text,
 * most markup, unknown formats), the claim; no claim at all is application/octet-stream.
 */
export function decideType(sniffed: string | undefined, claimed: string | undefined): string {
  const claim = claimed?.trim() || UNKNOWN;
  if (!sniffed) return claim;
  const essence = claim.split(';')[0]!.trim().toLowerCase();
  return REFINED_BY[sniffed]?.test(essence) ? claim : sniffed;
}

/** The final type of a file whose first bytes (up to SNIFF_BYTES) are `head`. */
export async function sniffType(head: Uint8Array, claimed: string | undefined): Promise<string> {
  let sniffed: string | undefined;
  try {
    sniffed = (await fileTypeFromBuffer(head))?.mime;
  } catch {
    // A parser failure on hostile bytes is as inconclusive as no match.
    sniffed = undefined;
  }
  return decideType(sniffed ?? markupBehindMediaClaim(head, claimed), claimed);
}

/** The final type of a local file (a spooled multipart part), from its first SNIFF_BYTES bytes. */
export async function sniffFile(filePath: string, claimed: string | undefined): Promise<string> {
  const handle = await open(filePath, 'r');
  try {
    const head = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(head, 0, SNIFF_BYTES, 0);
    return await sniffType(head.subarray(0, bytesRead), claimed);
  } finally {
    await handle.close();
  }
}
