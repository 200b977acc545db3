import { PREVIEW_SIZE, UnreadableMedia } from './renditions.js';

/** Only the beginning of a text file is read: the preview shows its first lines. */
export const TEXT_PREVIEW_BYTES = 64 * 1024;

/** A portrait page, its longest edge the preview's size, so the thumbnail of a text file looks like a page too. */
const PAGE_HEIGHT = PREVIEW_SIZE;
const PAGE_WIDTH = (PREVIEW_SIZE * 3) / 4;
const MARGIN = 56;
const FONT_SIZE = 20;
const LINE_HEIGHT = 28;
/** DejaVu Sans Mono's advance is 0.602 em; other monospace fonts are close. */
const COLUMNS = Math.floor((PAGE_WIDTH - 2 * MARGIN) / (FONT_SIZE * 0.61));
const LINES = Math.floor((PAGE_HEIGHT - 2 * MARGIN) / LINE_HEIGHT);
const TAB = 4;

/**
 * The sample as text: UTF-16 when it starts with its byte-order mark, else UTF-8 with invalid
 * sequences replaced (U+FFFD); a character cut by the byte limit is dropped. NUL bytes outside
 * UTF-16 mean a binary file under a text type: no preview, rather than a page of boxes.
 */
function decode(sample: Buffer): string {
  const bom = sample.subarray(0, 2).toString('hex');
  if (bom === 'fffe' || bom === 'feff') return new TextDecoder(bom === 'fffe' ? 'utf-16le' : 'utf-16be').decode(sample, { stream: true });
  if (sample.includes(0)) throw new UnreadableMedia('The file does not look like text (it contains NUL bytes): no text preview');
  return new TextDecoder('utf-8').decode(sample, { stream: true });
}

/**
 * Characters XML does not allow (C0 controls but tab, U+FFFE/U+FFFF) and others that draw as
 * nothing useful (DEL, C1 controls) become U+FFFD, so the SVG stays well-formed whatever the file holds.
 */
// eslint-disable-next-line no-control-regex
const UNDRAWABLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\ufffe\uffff]/g;

/** One line as drawn: tabs expanded to stops of 4, undrawable characters replaced, cut at the page's width. */
function pageLine(raw: string): string {
  const cells: string[] = [];
  for (const ch of raw.replace(UNDRAWABLE, '\ufffd')) {
    if (ch === '\t') cells.push(...' '.repeat(TAB - (cells.length % TAB)));
    else cells.push(ch);
    if (cells.length > COLUMNS) return `${cells.slice(0, COLUMNS - 1).join('')}…`;
  }
  return cells.join('');
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Every character that could start markup is escaped: the file's text is only ever character data. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/**
 * The first lines of a text file drawn as a page (SVG, monospace, long lines cut), for sharp to
 * rasterise into the same WebP renditions as an image.
 */
export function textPreviewSvg(sample: Buffer): Buffer {
  const lines = decode(sample.subarray(0, TEXT_PREVIEW_BYTES)).split(/\r\n|\r|\n/, LINES).map(pageLine);
  const spans = lines
    .map((line, i) => (line.trim() ? `<tspan x="${MARGIN}" y="${MARGIN + FONT_SIZE + i * LINE_HEIGHT}">${escapeXml(line)}</tspan>` : ''))
    .join('');
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${PAGE_WIDTH}" height="${PAGE_HEIGHT}" viewBox="0 0 ${PAGE_WIDTH} ${PAGE_HEIGHT}">` +
      `<rect width="${PAGE_WIDTH}" height="${PAGE_HEIGHT}" fill="#ffffff"/>` +
      `<text font-family="DejaVu Sans Mono, Liberation Mono, monospace" font-size="${FONT_SIZE}" fill="#1f2328" xml:space="preserve">${spans}</text>` +
      '</svg>',
    'utf8',
  );
}
