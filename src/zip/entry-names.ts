/**
 * Names of the entries of the archives we write (issue #14). A name comes from folder, collection
 * and file names people typed or uploaded, so before it becomes a path that unzip programs create
 * on someone's disk it is cut into segments and each segment is made harmless: no `..` or `.`,
 * no absolute path, no drive letter, no backslash, no control or bidirectional characters, at
 * most 255 UTF-8 bytes (the usual file-system limit). Two entries that would land on the same
 * path (compared case-insensitively after NFC, as Windows and macOS do) get ` (2)`, ` (3)`, ...
 * before the extension. Pure: no I/O.
 */

import { UNSAFE_TEXT } from '../domain/unsafe-text.js';

const UNSAFE = new RegExp(UNSAFE_TEXT.source, 'g');
/** A segment's largest size in UTF-8 bytes (ext4, APFS and NTFS all allow 255). */
const MAX_SEGMENT_BYTES = 255;
/** What a segment that sanitises to nothing becomes. */
const EMPTY_SEGMENT = '_';

const utf8Length = (s: string): number => Buffer.byteLength(s, 'utf8');

/** Cuts `s` to at most `max` UTF-8 bytes without splitting a character. */
function cutToBytes(s: string, max: number): string {
  if (utf8Length(s) <= max) return s;
  let out = '';
  for (const ch of s) {
    if (utf8Length(out + ch) > max) break;
    out += ch;
  }
  return out;
}

/** Splits `name` into base and extension (`photo.jpg` -> `photo`, `.jpg`); a leading dot is no extension. */
function splitExtension(name: string): [string, string] {
  const dot = name.lastIndexOf('.');
  if (dot <= 0 || name.length - dot > 16) return [name, ''];
  return [name.slice(0, dot), name.slice(dot)];
}

/** Shortens a segment to the byte limit, keeping its extension. */
function fitSegment(segment: string, suffix = ''): string {
  const [base, ext] = splitExtension(segment);
  const room = MAX_SEGMENT_BYTES - utf8Length(ext) - utf8Length(suffix);
  return `${cutToBytes(base, Math.max(room, 1))}${suffix}${ext}`;
}

/**
 * One path segment, harmless: unsafe characters removed, backslashes (a separator on Windows)
 * and the colon of a drive prefix replaced, surrounding blanks trimmed, `.`/`..`/empty replaced.
 */
export function sanitizeSegment(raw: string): string {
  let s = raw.normalize('NFC').replace(UNSAFE, '').replace(/\\/g, '_').trim();
  if (/^[A-Za-z]:/.test(s)) s = `${s[0]}_${s.slice(2)}`;
  // Windows drops trailing dots and spaces, which would make "a." and "a" the same file.
  s = s.replace(/[. ]+$/, (m) => (m === s ? m : ''));
  if (s === '' || /^\.+$/.test(s)) return EMPTY_SEGMENT;
  return fitSegment(s);
}

/** A path as segments, each sanitised; `/` and `\` both separate, empty segments are dropped. */
export function sanitizePath(raw: string): string[] {
  const segments = raw
    .split(/[/\\]/)
    .filter((s) => s.trim() !== '')
    .map(sanitizeSegment);
  return segments.length > 0 ? segments : [EMPTY_SEGMENT];
}

/** The segment with ` (n)` before its extension (`photo.jpg` -> `photo (2).jpg`; directories have none). */
function numbered(segment: string, n: number, isDirectory: boolean): string {
  if (isDirectory) return `${cutToBytes(segment, MAX_SEGMENT_BYTES - utf8Length(` (${n})`))} (${n})`;
  return fitSegment(segment, ` (${n})`);
}

const keyOf = (path: string): string => path.toLowerCase();

/**
 * Gives every entry of one archive a unique, sanitised path. Directories are tracked by their
 * requested path, so all files of a renamed directory follow it (`Photos/a.jpg` and `Photos/b.jpg`
 * both go to `Photos (2)/` when a file called `Photos` came first).
 */
export class ArchivePaths {
  /** Paths in use, by their case-folded form. */
  private readonly taken = new Set<string>();
  /** Requested directory path (sanitised, joined) -> the path it was given. */
  private readonly directories = new Map<string, string>();
  /** Directories created since the last call to takeNewDirectories(), in order. */
  private fresh: string[] = [];

  private unique(parent: string, segment: string, isDirectory: boolean): string {
    const prefix = parent === '' ? '' : `${parent}/`;
    let candidate = `${prefix}${segment}`;
    for (let n = 2; this.taken.has(keyOf(candidate)); n++) candidate = `${prefix}${numbered(segment, n, isDirectory)}`;
    this.taken.add(keyOf(candidate));
    return candidate;
  }

  /** The path a directory (and its parents) were given, creating them on first sight. */
  private directory(segments: string[]): string {
    let requested = '';
    let given = '';
    for (const segment of segments) {
      requested = requested === '' ? segment : `${requested}/${segment}`;
      const known = this.directories.get(keyOf(requested));
      if (known !== undefined) {
        given = known;
        continue;
      }
      given = this.unique(given, segment, true);
      this.directories.set(keyOf(requested), given);
      this.fresh.push(given);
    }
    return given;
  }

  /** The unique path of a file entry (without a trailing slash). */
  file(rawPath: string): string {
    const segments = sanitizePath(rawPath);
    const parent = this.directory(segments.slice(0, -1));
    return this.unique(parent, segments[segments.length - 1]!, false);
  }

  /** The unique path of a directory entry (without a trailing slash); asking twice gives the same one. */
  dir(rawPath: string): string {
    return this.directory(sanitizePath(rawPath));
  }

  /** Directories created by the calls since the last time this was asked, parents first. */
  takeNewDirectories(): string[] {
    const out = this.fresh;
    this.fresh = [];
    return out;
  }
}
