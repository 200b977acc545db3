import { UNSAFE_MULTILINE, UNSAFE_TEXT } from './unsafe-text.js';

/**
 * Rules of embedded metadata (issue #12) that need no I/O: which fields users may edit, how long a text
 * value may be, how a value read from a file is cleaned, and how a file's keywords become tags.
 */

/** The descriptive fields a manager may edit (PATCH /dam/assets/:id); an edited field is never overwritten by a re-read. */
export const EDITABLE_METADATA_FIELDS = ['caption', 'creator', 'copyright', 'usage_terms'] as const;
export type EditableMetadataField = (typeof EDITABLE_METADATA_FIELDS)[number];

/** Longest text kept in a column, edited or read: captions and usage terms are paragraphs, the rest a line. */
export const TEXT_LIMITS = { caption: 10_000, usage_terms: 10_000, line: 2_000 } as const;
/** Which of the editable fields hold several lines (tab and line breaks allowed). */
export const MULTILINE_FIELDS: ReadonlySet<EditableMetadataField> = new Set(['caption', 'usage_terms']);

/** Tags of an asset: at most this many, of at most TAG_CHARS characters (src/http/schemas.ts `Tags`). */
export const MAX_TAGS = 100;
export const TAG_CHARS = 100;
/** Keywords kept from one file; longer ones are text filed in the wrong place and are left out. */
export const MAX_KEYWORDS = 500;

const UNSAFE_LINE = new RegExp(UNSAFE_TEXT.source, 'g');
const UNSAFE_LINES = new RegExp(UNSAFE_MULTILINE.source, 'g');

/**
 * A text value read from a file, fit to store and show: control and bidirectional-override characters
 * removed (a single-line value's tabs and line breaks become spaces first), trimmed, at most `max`
 * characters (never ending in half a surrogate pair). Empty becomes null.
 */
export function cleanText(value: string, max: number, multiline = false): string | null {
  let text = multiline ? value.replace(/\r\n?/g, '\n').replace(UNSAFE_LINES, '') : value.replace(/[\t\r\n]+/g, ' ').replace(UNSAFE_LINE, '');
  text = text.trim();
  if (text.length > max) {
    text = text.slice(0, max);
    if (/[\ud800-\udbff]$/.test(text)) text = text.slice(0, -1);
    text = text.trimEnd();
  }
  return text === '' ? null : text;
}

/** The longest text an editable field keeps. */
export const textLimitOf = (field: EditableMetadataField): number => (MULTILINE_FIELDS.has(field) ? TEXT_LIMITS[field as 'caption' | 'usage_terms'] : TEXT_LIMITS.line);

/** Case-insensitive identity of a keyword or tag. */
const fold = (s: string) => s.toLocaleLowerCase('und');

/** The list without repeats, compared case-insensitively; the first spelling stays. */
export function uniqueFolded(values: readonly string[]): string[] {
  const seen = new Set<string>();
  return values.filter((v) => {
    const key = fold(v);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * The tags after a file's keywords were read again: the keywords that are new since the previous read
 * (`previous`, the file's keywords as last read) are appended unless a tag of the same name (any case)
 * exists, as long as fewer than MAX_TAGS tags are held. A keyword read before is never added again, so a
 * tag the user removed stays removed while the file keeps the keyword.
 */
export function mergeKeywordsIntoTags(tags: readonly string[], previous: readonly string[], keywords: readonly string[]): string[] {
  const known = new Set(previous.map(fold));
  const held = new Set(tags.map(fold));
  const merged = [...tags];
  for (const keyword of keywords) {
    if (merged.length >= MAX_TAGS) break;
    const key = fold(keyword);
    if (known.has(key) || held.has(key) || keyword.length > TAG_CHARS) continue;
    held.add(key);
    merged.push(keyword);
  }
  return merged;
}
