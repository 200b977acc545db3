import { ExifDateTime } from 'exiftool-vendored';
import { cleanText, MAX_KEYWORDS, TAG_CHARS, TEXT_LIMITS, uniqueFolded } from '../domain/embedded-metadata.js';
import type { RawTags } from './exiftool.js';

/**
 * What an asset keeps of the tags ExifTool read from its file (issue #12): a column per fact a DAM filters
 * and shows, and the whole (bounded) tag set. Pure: raw tags in, values out, whatever their types, so that
 * a hostile or broken file can only ever yield nulls.
 */
export interface EmbeddedFields {
  /** Unix seconds. */
  taken_at: number | null;
  camera_make: string | null;
  camera_model: string | null;
  lens: string | null;
  iso: number | null;
  exposure: string | null;
  aperture: number | null;
  focal_length: number | null;
  gps_lat: number | null;
  gps_lon: number | null;
  duration: number | null;
  color_space: string | null;
  caption: string | null;
  creator: string | null;
  copyright: string | null;
  usage_terms: string | null;
  keywords: string[];
  /** PDFs only. */
  page_count: number | null;
  /** Pixels as shown: EXIF Orientation 5-8 and a video's 90°/270° rotation swap them. */
  width: number | null;
  height: number | null;
  /** The tag set kept as `embedded_metadata` (see embeddedTagSet). */
  embedded: Record<string, unknown>;
  /** ExifTool's own errors and warnings about the file, and what was left out: for the log. */
  problems: string[];
}

/** Bounds of the kept tag set: 64 KiB as JSON, 1,000 tags, and per value 2,000 characters and 100 list items. */
export const EMBEDDED_LIMITS = { maxBytes: 64 * 1024, maxTags: 1000, valueChars: 2000, listItems: 100, depth: 3 } as const;
/** Short facts (camera, lens, colour space, exposure) are cut here. */
const SHORT = 200;
/** Dates outside 1800-2200 are a camera's clock that was never set, or garbage. */
const DATE_RANGE = { min: Date.UTC(1800, 0, 1) / 1000, max: Date.UTC(2200, 0, 1) / 1000 };

type Value = unknown;

const pick = (raw: RawTags, keys: readonly string[]): Value[] => keys.map((k) => raw[k]).filter((v) => v !== undefined && v !== null && v !== '');

/** A number, from a JSON number or a string that is one (the first of "100 100"); finite only. */
function toNumber(v: Value): number | null {
  if (Array.isArray(v)) return v.length > 0 ? toNumber(v[0]) : null;
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v !== 'string') return null;
  const match = /^\s*([+-]?\d+(?:\.\d+)?(?:e[+-]?\d+)?)/i.exec(v);
  const n = match ? Number(match[1]) : NaN;
  return Number.isFinite(n) ? n : null;
}

/** The first value of `keys` that is a number in (min, max], or in [min, max] with `closed`. */
function numberOf(raw: RawTags, keys: readonly string[], min: number, max: number, closed = false): number | null {
  for (const v of pick(raw, keys)) {
    const n = toNumber(v);
    if (n !== null && (closed ? n >= min : n > min) && n <= max) return n;
  }
  return null;
}

/** A value as text: strings and numbers as they are, lists joined with "; " (several creators). */
function toText(v: Value): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (Array.isArray(v)) {
    const parts = v.map(toText).filter((p): p is string => p !== null && p.trim() !== '');
    return parts.length > 0 ? parts.join('; ') : null;
  }
  return null;
}

/** The first of `keys` that cleans to non-empty text. */
function textOf(raw: RawTags, keys: readonly string[], max: number, multiline = false): string | null {
  for (const v of pick(raw, keys)) {
    const text = toText(v);
    const clean = text === null ? null : cleanText(text, max, multiline);
    if (clean !== null) return clean;
  }
  return null;
}

/** Every string of `keys` (a list-type tag with one item arrives as a plain string). */
function stringsOf(raw: RawTags, keys: readonly string[]): string[] {
  return pick(raw, keys)
    .flatMap((v): unknown[] => (Array.isArray(v) ? (v as unknown[]) : [v]))
    .map(toText)
    .filter((s): s is string => s !== null);
}

const OFFSET = /^[+-]\d{2}:\d{2}$/;

/**
 * Date taken: EXIF DateTimeOriginal, XMP DateTimeOriginal, EXIF CreateDate, XMP CreateDate, then QuickTime's
 * CreationDate (Apple, with its offset) and CreateDate. An EXIF date takes its own offset tag
 * (OffsetTimeOriginal, OffsetTimeDigitized), else another of the three; a date that has no offset
 * anywhere is read as UTC (QuickTime's CreateDate is UTC by its specification; for the others it is a choice:
 * a camera's local time is unknown without an offset).
 */
function takenAt(raw: RawTags): number | null {
  const offsets = ['EXIF:OffsetTimeOriginal', 'EXIF:OffsetTimeDigitized', 'EXIF:OffsetTime'];
  const candidates: Array<[string, string[]]> = [
    ['EXIF:DateTimeOriginal', offsets],
    ['XMP:DateTimeOriginal', []],
    ['EXIF:CreateDate', ['EXIF:OffsetTimeDigitized', 'EXIF:OffsetTimeOriginal', 'EXIF:OffsetTime']],
    ['XMP:CreateDate', []],
    ['QuickTime:CreationDate', []],
    ['QuickTime:CreateDate', []],
  ];
  for (const [key, offsetKeys] of candidates) {
    const value = raw[key];
    if (typeof value !== 'string') continue;
    let text = value.trim().slice(0, 64);
    const hasZone = /(?:Z|[+-]\d{2}:?\d{2})$/i.test(text);
    const offset = hasZone ? undefined : pick(raw, offsetKeys).find((o): o is string => typeof o === 'string' && OFFSET.test(o.trim()));
    if (offset) text += offset.trim();
    let parsed: ExifDateTime | undefined;
    try {
      parsed = ExifDateTime.from(text, 'UTC');
    } catch {
      parsed = undefined;
    }
    const millis = parsed?.toMillis();
    if (millis === undefined || !Number.isFinite(millis)) continue;
    const seconds = Math.floor(millis / 1000);
    if (seconds >= DATE_RANGE.min && seconds < DATE_RANGE.max) return seconds;
  }
  return null;
}

/** Signed decimal degrees: the composite (signed by ExifTool), XMP (signed), or EXIF with its reference. */
function coordinate(raw: RawTags, axis: 'Latitude' | 'Longitude'): number | null {
  const limit = axis === 'Latitude' ? 90 : 180;
  const signed = numberOf(raw, [`Composite:GPS${axis}`, `XMP:GPS${axis}`], -limit, limit, true);
  if (signed !== null) return signed;
  const plain = numberOf(raw, [`EXIF:GPS${axis}`], 0, limit, true);
  if (plain === null) return null;
  const ref = toText(raw[`EXIF:GPS${axis}Ref`])?.trim().toUpperCase() ?? '';
  return ref.startsWith('S') || ref.startsWith('W') ? -plain : plain;
}

function colorSpace(raw: RawTags): string | null {
  const exif = textOf(raw, ['EXIF:ColorSpace'], SHORT);
  if (exif && !/^uncalibrated$/i.test(exif)) return exif;
  return textOf(raw, ['ICC_Profile:ProfileDescription', 'ICC_Profile:ColorSpaceData', 'XMP:ColorMode'], SHORT) ?? exif;
}

/** Groups whose ImageWidth is not the picture's own size (thumbnails, maker notes, descriptions of it). */
const NOT_THE_PICTURE = new Set(['EXIF', 'XMP', 'MakerNotes', 'IPTC', 'Composite', 'ICC_Profile', 'Photoshop', 'APP14', 'FlashPix']);

/** The picture's size as shown: the file format's own width and height, turned by Orientation 5-8 or a 90°/270° rotation. */
function dimensions(raw: RawTags): { width: number | null; height: number | null } {
  const groups = Object.keys(raw)
    .filter((k) => k.endsWith(':ImageWidth'))
    .map((k) => k.slice(0, -':ImageWidth'.length))
    .filter((g) => !NOT_THE_PICTURE.has(g))
    .sort((a, b) => Number(b === 'File') - Number(a === 'File'));
  const pairs = [...groups.map((g) => [`${g}:ImageWidth`, `${g}:ImageHeight`]), ['EXIF:ExifImageWidth', 'EXIF:ExifImageHeight']];
  for (const [w, h] of pairs) {
    const width = numberOf(raw, [w!], 0, 1_000_000);
    const height = numberOf(raw, [h!], 0, 1_000_000);
    if (width === null || height === null || !Number.isInteger(width) || !Number.isInteger(height)) continue;
    const orientation = numberOf(raw, ['EXIF:Orientation', 'XMP:Orientation'], 0, 8);
    const rotation = numberOf(raw, ['Composite:Rotation', 'QuickTime:Rotation'], 0, 360, true);
    const turned = (orientation !== null && orientation >= 5) || rotation === 90 || rotation === 270;
    return turned ? { width: height, height: width } : { width, height };
  }
  return { width: null, height: null };
}

const DURATION_KEYS = ['QuickTime:Duration', 'Composite:Duration', 'Matroska:Duration', 'RIFF:Duration', 'MPEG:Duration', 'ASF:PlayDuration', 'Vorbis:Duration', 'FLAC:Duration'];

function duration(raw: RawTags): number | null {
  const named = numberOf(raw, DURATION_KEYS, 0, 1e9);
  if (named !== null) return named;
  const anyDuration = Object.keys(raw).filter((k) => k.endsWith(':Duration'));
  return numberOf(raw, anyDuration, 0, 1e9);
}

function keywords(raw: RawTags): string[] {
  const cleaned = stringsOf(raw, ['IPTC:Keywords', 'XMP:Subject'])
    .map((k) => cleanText(k, TAG_CHARS + 1))
    .filter((k): k is string => k !== null && k.length <= TAG_CHARS);
  return uniqueFolded(cleaned).slice(0, MAX_KEYWORDS);
}

const integerOrNull = (n: number | null) => (n === null ? null : Math.round(n));

/** The columns and the kept tag set of a file whose recorded type is `mimeType`. */
export function embeddedFieldsOf(raw: RawTags, mimeType: string): EmbeddedFields {
  const type = mimeType.split(';')[0]!.trim().toLowerCase();
  const timed = type.startsWith('video/') || type.startsWith('audio/');
  const lat = coordinate(raw, 'Latitude');
  const lon = coordinate(raw, 'Longitude');
  // (0, 0) is how much software writes "no position".
  const located = lat !== null && lon !== null && !(lat === 0 && lon === 0);
  const pages = type === 'application/pdf' ? integerOrNull(numberOf(raw, ['PDF:PageCount'], 0, 1_000_000)) : null;
  const { tags, omitted } = embeddedTagSet(raw);
  const problems = stringsOf(raw, ['ExifTool:Error', 'ExifTool:Warning']).map((p) => p.slice(0, 500));
  if (omitted > 0) problems.push(`${omitted} tags were left out of embedded_metadata to keep it within its limits`);
  return {
    taken_at: takenAt(raw),
    camera_make: textOf(raw, ['EXIF:Make', 'XMP:Make', 'QuickTime:Make'], SHORT),
    camera_model: textOf(raw, ['EXIF:Model', 'XMP:Model', 'QuickTime:Model'], SHORT),
    lens: textOf(raw, ['EXIF:LensModel', 'Composite:LensID', 'XMP:LensModel', 'XMP:Lens'], SHORT),
    iso: integerOrNull(numberOf(raw, ['EXIF:ISO', 'XMP:ISO', 'Composite:ISO', 'MakerNotes:ISO'], 0, 10_000_000)),
    exposure: textOf(raw, ['EXIF:ExposureTime', 'XMP:ExposureTime', 'Composite:ShutterSpeed'], 32),
    aperture: numberOf(raw, ['EXIF:FNumber', 'XMP:FNumber', 'Composite:Aperture', 'EXIF:ApertureValue'], 0, 1000),
    focal_length: numberOf(raw, ['EXIF:FocalLength', 'XMP:FocalLength'], 0, 100_000),
    gps_lat: located ? lat : null,
    gps_lon: located ? lon : null,
    duration: timed ? duration(raw) : null,
    color_space: colorSpace(raw),
    caption: textOf(raw, ['IPTC:Caption-Abstract', 'XMP:Description', 'EXIF:ImageDescription'], TEXT_LIMITS.caption, true),
    creator: textOf(raw, ['XMP:Creator', 'IPTC:By-line', 'EXIF:Artist'], TEXT_LIMITS.line),
    copyright: textOf(raw, ['XMP:Rights', 'IPTC:CopyrightNotice', 'EXIF:Copyright'], TEXT_LIMITS.line),
    usage_terms: textOf(raw, ['XMP:UsageTerms'], TEXT_LIMITS.usage_terms, true),
    keywords: keywords(raw),
    page_count: pages !== null && pages >= 1 ? pages : null,
    ...dimensions(raw),
    embedded: tags,
    problems,
  };
}

/**
 * Keys that describe our temporary copy rather than the file (name, folder, size, dates, permissions), and the
 * reader's own bookkeeping. File:FileType and File:FileTypeExtension describe the file and stay.
 */
function isFileSystemTag(key: string): boolean {
  return key === 'SourceFile' || key === 'errors' || key === 'warnings' || key === 'ExifTool:ExifToolVersion' || key === 'File:Directory' ||
    (/^File:File/.test(key) && key !== 'File:FileType' && key !== 'File:FileTypeExtension');
}

/** ExifTool's placeholder for binary data (thumbnails, maker-note blocks, ICC data), or binary written out as base64. */
const BINARY = /^(?:\(Binary data \d+ bytes|base64:)/;

/** A tag value fit to keep: text cleaned and cut, lists and structures bounded; undefined to leave it out. */
function keptValue(v: Value, depth: number): Value {
  if (typeof v === 'string') return BINARY.test(v) ? undefined : (cleanText(v, EMBEDDED_LIMITS.valueChars, true) ?? undefined);
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'boolean') return v;
  if (depth >= EMBEDDED_LIMITS.depth || v === null || typeof v !== 'object') return undefined;
  if (Array.isArray(v)) {
    const items = v.slice(0, EMBEDDED_LIMITS.listItems).map((item) => keptValue(item, depth + 1)).filter((item) => item !== undefined);
    return items.length > 0 ? items : undefined;
  }
  const entries = Object.entries(v as Record<string, unknown>)
    .slice(0, EMBEDDED_LIMITS.listItems)
    .map(([k, item]) => [cleanText(k, SHORT), keptValue(item, depth + 1)] as const)
    .filter(([k, item]) => k !== null && item !== undefined);
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

/**
 * The tag set kept as `embedded_metadata`: every tag as ExifTool named it (`Group:Tag`), except file-system
 * tags and binary values; text without control characters, values cut to 2,000 characters, lists to 100 items.
 * Bounded to 1,000 tags (the first ones, in ExifTool's order) and 64 KiB as JSON: while the set is larger, the
 * largest value goes first, so many small facts survive one huge one. `omitted` counts what went.
 */
export function embeddedTagSet(raw: RawTags): { tags: Record<string, unknown>; omitted: number } {
  const kept: Array<{ key: string; value: Value; bytes: number }> = [];
  const keys = new Set<string>();
  let omitted = 0;
  for (const [rawKey, rawValue] of Object.entries(raw)) {
    if (isFileSystemTag(rawKey)) continue;
    const key = cleanText(rawKey, SHORT);
    const value = keptValue(rawValue, 0);
    if (key === null || value === undefined || keys.has(key)) continue;
    keys.add(key);
    if (kept.length >= EMBEDDED_LIMITS.maxTags) {
      omitted += 1;
      continue;
    }
    kept.push({ key, value, bytes: Buffer.byteLength(JSON.stringify(key)) + Buffer.byteLength(JSON.stringify(value)) + 2 });
  }
  let total = 2 + kept.reduce((sum, e) => sum + e.bytes, 0);
  if (total > EMBEDDED_LIMITS.maxBytes) {
    const dropped = new Set<string>();
    for (const entry of [...kept].sort((a, b) => b.bytes - a.bytes)) {
      if (total <= EMBEDDED_LIMITS.maxBytes) break;
      dropped.add(entry.key);
      total -= entry.bytes;
      omitted += 1;
    }
    return { tags: Object.fromEntries(kept.filter((e) => !dropped.has(e.key)).map((e) => [e.key, e.value])), omitted };
  }
  return { tags: Object.fromEntries(kept.map((e) => [e.key, e.value])), omitted };
}
