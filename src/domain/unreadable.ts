/**
 * Unreadable files (issue #27): what a user is told when the preview job finds that a file cannot be read. Fixed
 * words only: a tool's own message (sharp's, ffprobe's, pdftoppm's) may name the job's work directory, a server
 * path, and is logged instead (services/unreadable-files.ts). Pure rules, no I/O.
 */

export const UNREADABLE_WORDS = {
  imageTruncated: 'The image data ends early; the file looks truncated.',
  imageDamaged: 'The image data is damaged; the file cannot be shown.',
  video: 'This file is not a playable video.',
  audio: 'This file is not a playable audio file.',
  media: 'This file is not playable audio or video.',
  pdf: 'The PDF is damaged and cannot be opened.',
} as const;

/** What the preview note says when a file is fine but no preview can be made of it (not unreadable). */
export const NO_PREVIEW_WORDS = {
  imageFormat: 'No preview is made for this image format; the file itself is kept as it is.',
  imageTooLarge: 'The image has more pixels than this server makes previews of.',
  videoNoFrame: 'The video has no picture to use as a poster.',
  pdfEncrypted: 'The PDF is encrypted (password-protected): no preview can be made',
  office: 'LibreOffice could not open the document, so it has no preview; it may be damaged or in a format LibreOffice does not read.',
} as const;

/**
 * Image types the image library (sharp's libvips) decodes: a failure to decode one of these means the file is
 * damaged. Other image types (camera RAW, HEIC, PSD) simply get no preview and are not called unreadable.
 */
const DECODED_IMAGE_TYPES = new Set(['image/jpeg', 'image/pjpeg', 'image/png', 'image/apng', 'image/webp', 'image/gif', 'image/tiff', 'image/avif']);

/** libvips' and its loaders' words for data that stops early (JPEG, PNG, GIF, WebP, TIFF). */
const TRUNCATED = /premature end|truncated|unexpected end|end of (input|file|data|stream)|not enough data|out of data/i;

/** What a failed decode of an image means for the user, from its (sniffed) type and the library's message. */
export function imageFailure(mimeType: string, toolMessage: string): { reason: string; damaged: boolean } {
  if (/pixel limit/i.test(toolMessage)) return { reason: NO_PREVIEW_WORDS.imageTooLarge, damaged: false };
  const essence = mimeType.split(';')[0]!.trim().toLowerCase();
  if (!DECODED_IMAGE_TYPES.has(essence)) return { reason: NO_PREVIEW_WORDS.imageFormat, damaged: false };
  return { reason: TRUNCATED.test(toolMessage) ? UNREADABLE_WORDS.imageTruncated : UNREADABLE_WORDS.imageDamaged, damaged: true };
}

/** The words for a file ffprobe cannot read, by what the file was taken for. */
export function unplayable(fileType: string): string {
  if (fileType === 'video') return UNREADABLE_WORDS.video;
  if (fileType === 'audio') return UNREADABLE_WORDS.audio;
  return UNREADABLE_WORDS.media;
}
