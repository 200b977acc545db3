/**
 * Facts derived from a file rather than stored as user input: the coarse
 * file_type of an asset (from its MIME type) and its orientation (from its
 * pixel dimensions). Pure functions, shared by the catalog, uploads and search.
 */
export const FILE_TYPES = ['image', 'video', 'audio', 'document', 'archive', 'other'] as const;
export type FileType = (typeof FILE_TYPES)[number];

export const ORIENTATIONS = ['landscape', 'portrait', 'square'] as const;
export type Orientation = (typeof ORIENTATIONS)[number];

/**
 * Exact application/* subtypes of compressed archives and compressed streams: archives here, and stored rather than
 * deflated in our ZIPs (src/zip/compression.ts).
 */
export const COMPRESSED_ARCHIVES = [
  'zip',
  'x-zip-compressed',
  'gzip',
  'x-gzip',
  'x-bzip',
  'x-bzip2',
  'x-xz',
  'zstd',
  'x-7z-compressed',
  'x-rar-compressed',
  'vnd.rar',
  'x-compress',
  'x-lzh-compressed',
  'java-archive',
] as const;

/** Exact application/* subtypes that are archives (compressed or bundled files): tar bundles without compressing. */
const ARCHIVES = new Set<string>([...COMPRESSED_ARCHIVES, 'x-tar']);

/** Exact application/* subtypes that are documents (office formats, PDF, structured text). */
const DOCUMENTS = new Set([
  'pdf',
  'rtf',
  'msword',
  'vnd.ms-excel',
  'vnd.ms-powerpoint',
  'vnd.apple.pages',
  'vnd.apple.numbers',
  'vnd.apple.keynote',
  'epub+zip',
  'json',
  'xml',
  'x-latex',
  'postscript',
]);

/** Prefixes of application/* subtypes that are documents (OOXML and OpenDocument families, both ZIP-based). */
export const DOCUMENT_PREFIXES = ['vnd.openxmlformats-officedocument.', 'vnd.oasis.opendocument.'] as const;

/** A MIME type without parameters (`; charset=...`), trimmed and lower-cased; '' for none. */
export function mimeEssence(mime: string | null | undefined): string {
  return (mime ?? '').split(';')[0]!.trim().toLowerCase();
}

/** The type and subtype of a MIME type's essence; null without a type before the slash. */
export function mimeParts(mime: string | null | undefined): { type: string; subtype: string } | null {
  const essence = mimeEssence(mime);
  const slash = essence.indexOf('/');
  if (slash <= 0) return null;
  return { type: essence.slice(0, slash), subtype: essence.slice(slash + 1) };
}

/**
 * MIME type -> file_type. Case and parameters (`; charset=...`) are ignored;
 * anything unrecognised or malformed is `other`.
 */
export function fileTypeOf(mime: string | null | undefined): FileType {
  const parts = mimeParts(mime);
  if (!parts || parts.subtype === '') return 'other';
  const { type, subtype } = parts;
  switch (type) {
    case 'image':
    case 'video':
    case 'audio':
      return type;
    case 'text':
      return 'document';
    case 'application':
      if (ARCHIVES.has(subtype)) return 'archive';
      if (DOCUMENTS.has(subtype) || DOCUMENT_PREFIXES.some((p) => subtype.startsWith(p))) return 'document';
      return 'other';
    default:
      return 'other';
  }
}

/** JavaScript MIME types (RFC 9239 and the legacy names browsers still execute). */
const SCRIPTS = /^(text|application)\/(x-)?(javascript(1\.[0-5])?|ecmascript|jscript|livescript)$/;

/**
 * Types a browser may execute or render as a document in our origin: HTML, XHTML, SVG, any XML
 * (XSLT can produce HTML) and JavaScript. Such files are only ever served as attachments.
 */
export function isActiveContent(mime: string | null | undefined): boolean {
  const essence = mimeEssence(mime);
  return essence === 'text/html' || essence === 'text/xml' || essence === 'application/xml' || essence.endsWith('+xml') || SCRIPTS.test(essence);
}

/**
 * Types served inline (shown in an <img>, <video>, <audio>): raster images, audio and video,
 * never active content whatever its top-level type (image/svg+xml).
 */
export function rendersInline(mime: string | null | undefined): boolean {
  const essence = mimeEssence(mime);
  return /^(image|audio|video)\/./.test(essence) && !isActiveContent(essence);
}

function isDimension(n: number | null | undefined): n is number {
  return typeof n === 'number' && Number.isFinite(n) && n > 0;
}

/** Width and height in pixels -> orientation; null when either is unknown or not positive. */
export function orientationOf(width: number | null | undefined, height: number | null | undefined): Orientation | null {
  if (!isDimension(width) || !isDimension(height)) return null;
  if (width > height) return 'landscape';
  if (width < height) return 'portrait';
  return 'square';
}
