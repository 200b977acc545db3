/**
 * The ZIP archives we send (issue #14): `GET /zip/download` and the shared links' "Download all".
 *
 * - Streamed as written (zip-writer.ts, compress-commons): nothing is built in memory or on disk
 *   first; entries are appended one at a time as the items arrive, an object is read from the store
 *   when its entry is reached, so one object stream is open at a time and memory stays flat
 *   whatever the archive's size.
 * - Linear in the entries, and never holding the event loop (issue #38): the writer's cost per entry
 *   is constant; between entries the loop waits while the reader is behind (backpressure) and gives
 *   the event loop a turn at least every YIELD_MS, so 100,000 empty folders stream while other
 *   requests are answered; the first entry goes out as soon as it is written.
 * - ZIP64 where needed, decided from the actual sizes and offsets: an entry whose size or local
 *   header offset reaches 0xffffffff gets the ZIP64 extra field in the central directory and a
 *   24-byte data descriptor; an archive of 65,535 entries or more, or whose central directory
 *   starts at or past 4 GiB, gets the ZIP64 end records. Streamed entries always carry a data
 *   descriptor (general purpose bit 3): the CRC-32 is only known after the bytes went out. Readers
 *   that use the central directory (Info-ZIP unzip, 7-Zip, libarchive, Windows Explorer, yauzl)
 *   read such archives of any size.
 * - An object whose stored size differs from the recorded one fails before its bytes; one that
 *   yields another count than recorded fails the archive after them.
 * - Entries of already compressed types are stored, the rest deflated (compression.ts); names are
 *   sanitised and de-duplicated (entry-names.ts).
 * - A failure after the first byte (an object missing or unreadable, a provider error mid-object)
 *   cannot change the status any more: the stream is destroyed with the error, which makes
 *   Fastify cut the connection, so the client sees a broken download (no final chunk) rather
 *   than a valid-looking archive with a file missing. It is logged with the entry's name.
 */
import './crc32.js';
import { PassThrough, type Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { ObjectStore } from '../storage/object-store.js';
import { isStoredType } from './compression.js';
import { ArchivePaths } from './entry-names.js';
import { DEFLATED, STORED, WriterEntry, ZipWriter } from './zip-writer.js';

export interface ArchiveItem {
  /** Path inside the archive, `/`-separated (`Holiday/Beach/photo.jpg`); sanitised and de-duplicated here. */
  path: string;
  /** The object holding the file's bytes (unused for directories). */
  objectKey: string;
  /** The object's size in bytes, as recorded; the archive fails if the object differs. */
  size: number;
  /** Decides stored or deflated. */
  mimeType: string;
  /** Unix seconds. */
  modifiedAt: number;
  /** `directory` adds an (empty) directory entry, e.g. for an empty folder; default `file`. */
  kind?: 'file' | 'directory';
}

/** Bytes buffered between the archive and its reader. */
const OUTPUT_BUFFER = 4 * 1024 * 1024;
/** zlib's default level, as yazl used: level 1 (compress-commons' default) makes text a third larger. */
const DEFLATE_LEVEL = 6;
/** The longest the entry loop runs before it lets the event loop answer other requests. */
const YIELD_MS = 5;
const EMPTY = Buffer.alloc(0);
const FILE_MODE = 0o100644;
const DIRECTORY_MODE = 0o40755;

/** Thrown into the stream when an entry cannot be written; `entry` is its path in the archive. */
export class ArchiveEntryError extends Error {
  constructor(
    message: string,
    readonly entry: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ArchiveEntryError';
  }
}

function dateOf(unixSeconds: number): Date {
  return Number.isFinite(unixSeconds) ? new Date(unixSeconds * 1000) : new Date();
}

/** Paths are sanitised and de-duplicated here; objects are read from `store` one at a time. */
export function archiveStream(store: ObjectStore, items: ArchiveItem[] | AsyncIterable<ArchiveItem>, log: FastifyBaseLogger): Readable {
  const zip = new ZipWriter({ zlib: { level: DEFLATE_LEVEL } });
  // The writer's own output buffers 16 KiB; a larger buffer after it lets the next megabytes be read
  // from the store while the last ones are still being sent (bench:zip, cold cache).
  const output = new PassThrough({ highWaterMark: OUTPUT_BUFFER });
  zip.pipe(output);
  const paths = new ArchivePaths();
  /** The object being copied into the archive, destroyed when the archive fails or the client leaves. */
  let current: Readable | undefined;
  let finished = false;
  let stopped = false;
  let entries = 0;
  /** Ends the loop's current wait when the archive stops early (failure or disconnect): the writer may never answer then. */
  let wake: (() => void) | undefined;
  /** Resolves with `p`, or as soon as the archive stops; one wait at a time (the loop is sequential). */
  const untilStopped = (p: Promise<void>): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      wake = resolve;
      p.then(resolve, reject);
    });

  const stop = (): void => {
    stopped = true;
    wake?.();
    current?.destroy();
    zip.unpipe(output);
    zip.destroy();
  };
  const fail = (err: Error): void => {
    if (stopped) return;
    log.error({ err, entry: err instanceof ArchiveEntryError ? err.entry : undefined, entries }, 'ZIP archive failed; the download is aborted');
    stop();
    output.destroy(err);
  };
  zip.on('error', (err: Error) => fail(err));
  output.once('end', () => {
    finished = true;
  });
  output.once('close', () => {
    if (finished || stopped) return;
    // The reader went away (client disconnected): stop reading objects.
    stop();
    log.info({ entries }, 'ZIP archive abandoned by its reader');
  });

  const open = async (item: ArchiveItem, name: string): Promise<Readable> => {
    let body;
    try {
      body = await store.read(item.objectKey);
    } catch (err) {
      throw new ArchiveEntryError(`Cannot read the object of "${name}": ${(err as Error).message}`, name, { cause: err });
    }
    if (body.size !== item.size) {
      body.stream.destroy();
      throw new ArchiveEntryError(`The object of "${name}" holds ${body.size} bytes, ${item.size} were recorded`, name);
    }
    return body.stream;
  };

  /** Waits for the entry to be written, or for the archive to stop. */
  const append = (entry: WriterEntry, source: Buffer | Readable): Promise<void> => untilStopped(zip.append(entry, source));

  const addDirectories = async (mtime: Date): Promise<void> => {
    for (const dir of paths.takeNewDirectories()) {
      if (stopped) return;
      const entry = new WriterEntry(`${dir}/`);
      entry.setTime(mtime);
      entry.setUnixMode(DIRECTORY_MODE);
      entry.setMethod(STORED);
      entries++;
      await append(entry, EMPTY);
    }
  };

  const add = async (item: ArchiveItem): Promise<void> => {
    const mtime = dateOf(item.modifiedAt);
    if (item.kind === 'directory') {
      paths.dir(item.path);
      await addDirectories(mtime);
      return;
    }
    const name = paths.file(item.path);
    await addDirectories(mtime);
    if (stopped) return;
    // Whatever is gathered goes out before waiting on the store (the first byte does not wait for a batch).
    zip.flush();
    const stream = await open(item, name);
    if (stopped) {
      stream.destroy();
      return;
    }
    current = stream;
    stream.once('error', (err: Error) => fail(new ArchiveEntryError(`Reading the object of "${name}" failed: ${err.message}`, name, { cause: err })));
    const entry = new WriterEntry(name);
    entry.setTime(mtime);
    entry.setUnixMode(FILE_MODE);
    entry.setMethod(isStoredType(item.mimeType) ? STORED : DEFLATED);
    entries++;
    await append(entry, stream);
    current = undefined;
    if (!stopped && entry.getSize() !== item.size) {
      throw new ArchiveEntryError(`The object of "${name}" yielded ${entry.getSize()} bytes, ${item.size} were recorded`, name);
    }
  };

  /** Resolves when the writer may take more (its reader caught up), or the archive stopped. */
  const caughtUp = (): Promise<void> => untilStopped(new Promise<void>((resolve) => zip.once('drain', () => resolve())));

  void (async () => {
    try {
      let turn = performance.now();
      for await (const item of items) {
        if (stopped) return;
        await add(item);
        if (stopped) return;
        if (zip.writableNeedDrain) {
          await caughtUp();
          turn = performance.now();
        } else if (performance.now() - turn >= YIELD_MS) {
          zip.flush();
          await nextTurn();
          turn = performance.now();
        }
      }
      if (!stopped) zip.finish();
    } catch (err) {
      fail(err instanceof Error ? err : new Error(String(err)));
    }
  })();

  return output;
}
