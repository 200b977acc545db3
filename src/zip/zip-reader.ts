/**
 * Reading ZIP archives stored as assets (issue #14): GET /zip/list, GET /zip/extract and the import
 * job. yauzl reads the central directory only (lazyEntries), through ranged reads of the store
 * (store-reader.ts). Archives are untrusted:
 * - names are decoded by us (yauzl's own decoding refuses the whole archive at the first unsafe
 *   name), so a hostile entry is listed with its problem and skipped, never followed: `..`
 *   segments, absolute paths, drive letters, backslashes, control characters (`unsafe_name`);
 *   symbolic links and other special files by their Unix mode (`symlink`, `special_file`);
 *   encrypted entries (`encrypted`); methods other than stored and deflated (`unsupported_compression`);
 * - an entry's bytes are counted as they are inflated, not trusted from the declared sizes: past
 *   the byte limit, or past the compression-ratio cap (once over 1 MiB), the stream fails; yauzl
 *   fails it too when it yields more or fewer bytes than declared; its CRC-32 is checked at the end
 *   (yauzl does not check CRCs), so a corrupt or truncated entry never passes as whole;
 * - entries must not share bytes (LocalRecords): many central-directory records pointing at one
 *   local entry would each pass the per-entry checks and inflate the same data again and again, so
 *   such an archive is invalid as a whole; and an import inflates at most `maxInflated` bytes from
 *   one archive, its compression-ratio cap applied to the whole archive (issue #28).
 */
import { Transform, type Readable } from 'node:stream';
import zlib from 'node:zlib';
import { setImmediate as nextTurn } from 'node:timers/promises';
import yauzl from 'yauzl';
import { UNSAFE_TEXT } from '../domain/unsafe-text.js';
import type { EntryProblem } from '../domain/zip-entries.js';
import { StoreError, type ObjectStore } from '../storage/object-store.js';
import { StoreRangeReader } from './store-reader.js';

export interface ZipEntryInfo {
  /** Position in the central directory, from 0. */
  index: number;
  /** The name as the archive has it (UTF-8 or CP437 decoded, backslashes shown as `/`). */
  name: string;
  size: number;
  compressedSize: number;
  crc32: number;
  isDir: boolean;
  encrypted: boolean;
  compressionMethod: number;
  /** Unix seconds (the Info-ZIP or NTFS timestamp when present, else the DOS time read as UTC). */
  modifiedAt: number;
  /** Why the entry cannot be extracted; null when it can. */
  problem: EntryProblem | null;
}

/** Not a ZIP, or a corrupt or truncated one. */
export class ZipInvalidError extends Error {
  override name = 'ZipInvalidError';
}

/** An entry's bytes went past a limit while being inflated. */
export class ZipLimitError extends Error {
  override name = 'ZipLimitError';
  constructor(
    message: string,
    readonly limit: 'bytes' | 'ratio',
  ) {
    super(message);
  }
}

/**
 * Output counted before the ratio cap applies: a small, very compressible file is no bomb. The same
 * floor applies to the whole archive, so an archive of one entry the per-entry cap lets through is
 * never stopped by the whole-archive cap (the archive is at least as large as the entry's data).
 */
export const RATIO_FLOOR = 1024 * 1024;
/** The least a local record spans: its fixed 30-byte header (the name and extra field, of varying length, come on top). */
const LOCAL_HEADER_MIN = 30;
/** Names in an overlap message are cut to this many characters (a name may be 64 KiB long). */
const NAME_SHOWN = 100;
const UNSAFE = new RegExp(UNSAFE_TEXT.source);
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;
const MADE_BY_UNIX = 3;

function problemOf(entry: yauzl.Entry, name: string, rawHasBackslash: boolean, isDir: boolean): EntryProblem | null {
  if (rawHasBackslash || yauzl.validateFileName(name) !== null || UNSAFE.test(name) || name.replace(/\/$/, '') === '') return 'unsafe_name';
  const hostOs = entry.versionMadeBy >> 8;
  const fileType = (entry.externalFileAttributes >>> 16) & S_IFMT;
  if (hostOs === MADE_BY_UNIX && fileType !== 0) {
    if (fileType === S_IFLNK) return 'symlink';
    if (fileType !== S_IFREG && fileType !== S_IFDIR) return 'special_file';
  }
  if (isDir) return null;
  if (entry.isEncrypted()) return 'encrypted';
  if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) return 'unsupported_compression';
  return null;
}

function describe(entry: yauzl.Entry, index: number): ZipEntryInfo {
  const raw = entry.fileNameRaw;
  const name = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, raw, entry.extraFields, false);
  const fileType = (entry.externalFileAttributes >>> 16) & S_IFMT;
  const isDir = name.endsWith('/') || ((entry.versionMadeBy >> 8) === MADE_BY_UNIX && fileType === S_IFDIR) || (entry.externalFileAttributes & 0x10) !== 0;
  return {
    index,
    name,
    size: entry.uncompressedSize,
    compressedSize: entry.compressedSize,
    crc32: entry.crc32,
    isDir,
    encrypted: entry.isEncrypted(),
    compressionMethod: entry.compressionMethod,
    modifiedAt: Math.floor(entry.getLastModDate({ timezone: 'UTC' }).getTime() / 1000),
    problem: problemOf(entry, name, raw.includes(0x5c), isDir),
  };
}

/** yauzl's complaints become ZipInvalidError; a failure of the store itself (StoreError) stays what it is. */
const invalid = (err: unknown): Error =>
  err instanceof ZipInvalidError || err instanceof StoreError ? err : new ZipInvalidError(err instanceof Error ? err.message : String(err));

/**
 * Where the entries' local records lie, gathered while the central directory is read, to refuse an
 * archive whose entries overlap before anything of it is written. Each entry spans at least its
 * local header offset + 30 + its compressed size; an entry starting inside another's span shares
 * bytes with it (a duplicate offset most plainly). Taking the least span never refuses a sound
 * archive: real records are longer (name, extra field, data descriptor), never shorter.
 */
export class LocalRecords {
  private readonly spans: { start: number; end: number; name: string }[] = [];

  add(info: ZipEntryInfo, entry: yauzl.Entry): void {
    const start = entry.relativeOffsetOfLocalHeader;
    this.spans.push({ start, end: start + LOCAL_HEADER_MIN + entry.compressedSize, name: info.name.slice(0, NAME_SHOWN) });
  }

  /** ZipInvalidError naming two entries whose local records overlap, if any two do. */
  assertDisjoint(): void {
    // In offset order, each span is compared with the one reaching farthest so far.
    let reach: (typeof this.spans)[number] | undefined;
    for (const span of [...this.spans].sort((a, b) => a.start - b.start)) {
      if (reach && span.start < reach.end) {
        throw new ZipInvalidError(
          `the entries "${reach.name}" and "${span.name}" overlap (their local records begin at bytes ${reach.start} and ${span.start}); ` +
            'an archive whose entries share bytes is refused',
        );
      }
      if (!reach || span.end > reach.end) reach = span;
    }
  }
}

/** The longest a loop over the entries runs before the event loop gets a turn. */
const YIELD_MS = 5;

/** One stored archive, opened on its central directory. Close it when done. */
export class ZipArchive {
  private iterator: AsyncIterableIterator<yauzl.Entry> | undefined;
  private readIndex = 0;

  private constructor(
    private readonly zip: yauzl.ZipFile,
    /** The archive's size in bytes. */
    readonly size: number,
  ) {}

  /** Opens the object as a ZIP; ZipInvalidError when it is none (no end of central directory record, malformed records). */
  static async open(store: ObjectStore, key: string, size: number): Promise<ZipArchive> {
    if (size < 22) throw new ZipInvalidError(`${size} bytes are too few for a ZIP archive (its end record alone is 22)`);
    try {
      const zip = await yauzl.fromRandomAccessReaderPromise(new StoreRangeReader(store, key, size), size, {
        lazyEntries: true,
        autoClose: false,
        decodeStrings: false,
        validateEntrySizes: true,
      });
      return new ZipArchive(zip, size);
    } catch (err) {
      throw invalid(err);
    }
  }

  /**
   * The most bytes all entries together may inflate to: `maxRatio` times the archive's size, at
   * least RATIO_FLOOR. Per-entry caps alone let an archive of many small bombs (each under the
   * floor) inflate to far more than any of them.
   */
  maxInflated(maxRatio: number): number {
    return Math.max(RATIO_FLOOR, maxRatio * this.size);
  }

  /** Entries declared by the end of central directory record. */
  get entryCount(): number {
    return this.zip.entryCount;
  }

  /**
   * The entries in central-directory order, from the first; one iteration per archive. An entry's
   * `entry` is what `openEntry` takes. A malformed record ends the iteration with ZipInvalidError.
   */
  async *entries(): AsyncGenerator<{ info: ZipEntryInfo; entry: yauzl.Entry }> {
    if (this.iterator) throw new Error('The entries of an archive are read once');
    this.iterator = this.zip.eachEntry();
    let turn = performance.now();
    for (;;) {
      // yauzl parses a whole block of the central directory without waiting on anything, and so may
      // the caller between entries: every YIELD_MS the event loop answers other requests (issue #38:
      // a 65,601-entry archive held it for seconds at a time).
      if (performance.now() - turn >= YIELD_MS) {
        await nextTurn();
        turn = performance.now();
      }
      let next: IteratorResult<yauzl.Entry>;
      try {
        next = await this.iterator.next();
      } catch (err) {
        throw invalid(err);
      }
      if (next.done) return;
      yield { info: describe(next.value, this.readIndex), entry: next.value };
      this.readIndex += 1;
    }
  }

  /**
   * The entry's bytes, inflated, counted and checked: more than `maxBytes`, or more than `maxRatio`
   * times the compressed size once past 1 MiB, fails with ZipLimitError; a CRC-32 or size that
   * does not match fails with ZipInvalidError. Only for entries without a problem.
   */
  async openEntry(entry: yauzl.Entry, info: ZipEntryInfo, limits: { maxBytes: number; maxRatio: number }): Promise<Readable> {
    let raw: Readable;
    try {
      raw = await this.zip.openReadStreamPromise(entry);
    } catch (err) {
      throw invalid(err);
    }
    let bytes = 0;
    let crc = 0;
    // The last chunk is held back until the CRC-32 is checked: a corrupt entry never arrives whole,
    // even to a client that counts on Content-Length.
    let held: Buffer | undefined;
    const ratioCap = limits.maxRatio * Math.max(info.compressedSize, 1);
    const guard = new Transform({
      transform(chunk: Buffer, _enc, done) {
        bytes += chunk.length;
        if (bytes > limits.maxBytes) {
          return done(new ZipLimitError(`"${info.name}" inflates to more than the ${limits.maxBytes}-byte limit`, 'bytes'));
        }
        if (bytes > RATIO_FLOOR && bytes > ratioCap) {
          return done(
            new ZipLimitError(`"${info.name}" inflates to more than ${limits.maxRatio} times its ${info.compressedSize} compressed bytes`, 'ratio'),
          );
        }
        if (chunk.length > 0) crc = zlib.crc32(chunk, crc);
        const previous = held;
        held = chunk;
        done(null, previous);
      },
      flush(done) {
        if ((crc >>> 0) !== info.crc32) return done(new ZipInvalidError(`"${info.name}" is corrupt: its CRC-32 does not match`));
        done(null, held);
      },
    });
    // yauzl's own complaints on the way (more or fewer bytes than declared, inflate errors) become
    // ZipInvalidError; when the guard fails or its reader goes away, the entry's stream stops too.
    raw.once('error', (err) => guard.destroy(invalid(err)));
    guard.once('close', () => {
      if (raw.readableEnded) return;
      raw.unpipe(guard);
      raw.destroy();
    });
    return raw.pipe(guard);
  }

  close(): void {
    if (this.zip.isOpen) this.zip.close();
  }
}

/** Maps yauzl's errors raised while an entry streams (size mismatch, inflate failure) to ZipInvalidError; limit errors stay. */
export function entryStreamError(err: unknown): Error {
  return err instanceof ZipLimitError ? err : invalid(err);
}
