import { COMPRESSED_ARCHIVES, DOCUMENT_PREFIXES, mimeParts } from '../domain/file-types.js';

/**
 * Which entries of our archives are stored and which deflated (issue #14). Deflating bytes that
 * are already compressed costs a core for a gain of a percent or two (often a loss), and would
 * cap a download at deflate's speed; so these are stored:
 * - raster images with their own compression (JPEG, PNG, GIF, WebP, HEIC/HEIF, AVIF, JPEG XL, JPEG 2000),
 * - video and audio, except uncompressed PCM (WAV, AIFF), which deflate shrinks well,
 * - archives and compressed streams (ZIP, 7z, RAR, gzip, bzip2, xz, zstd, ...) and ZIP-based
 *   formats (OOXML, OpenDocument, EPUB, JAR, APK, Apple iWork),
 * - PDF: its page streams are Flate-compressed already and its images JPEG, so deflating a PDF
 *   again gains a few percent at the full cost of deflate.
 * Everything else (text, JSON, SVG, TIFF, BMP, RAW camera files, WAV, unknown types) is deflated.
 */

const STORED_IMAGES = new Set(['jpeg', 'pjpeg', 'png', 'apng', 'gif', 'webp', 'heic', 'heif', 'heic-sequence', 'heif-sequence', 'avif', 'jxl', 'jp2', 'jpx']);
const UNCOMPRESSED_AUDIO = new Set(['wav', 'x-wav', 'wave', 'vnd.wave', 'aiff', 'x-aiff', 'l16', 'l24']);
const STORED_APPLICATIONS = new Set<string>([
  ...COMPRESSED_ARCHIVES,
  'vnd.android.package-archive',
  'epub+zip',
  'vnd.apple.pages',
  'vnd.apple.numbers',
  'vnd.apple.keynote',
  'pdf',
]);

/** True when an entry of this MIME type is stored (method 0) rather than deflated. */
export function isStoredType(mime: string | null | undefined): boolean {
  const parts = mimeParts(mime);
  if (!parts) return false;
  const { type, subtype } = parts;
  switch (type) {
    case 'image':
      return STORED_IMAGES.has(subtype);
    case 'video':
      return true;
    case 'audio':
      return !UNCOMPRESSED_AUDIO.has(subtype);
    case 'application':
      return STORED_APPLICATIONS.has(subtype) || DOCUMENT_PREFIXES.some((p) => subtype.startsWith(p)) || subtype.endsWith('+zip');
    default:
      return false;
  }
}
