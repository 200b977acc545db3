/**
 * The ZIP archives we send (issue #14): `GET /zip/download` and the shared links' "Download all".
 *
 * - Streamed as written (yazl): nothing is built in memory or on disk first; objects are read
 *   from the store one at a time, when yazl reaches their entry, so one object stream is open
 *   at a time and memory stays flat whatever the archive's size.
 * - ZIP64 where needed, decided by yazl from the actual sizes and offsets: an entry over
 *   0xfffffffe bytes, or whose local header starts past that offset, gets the ZIP64 extra field
 *   in the central directory and a 24-byte data descriptor; an archive of 65,535 entries or more,
 *   or whose central directory starts past 4 GiB, gets the ZIP64 end records. Streamed entries
 *   always carry a data descriptor (general purpose bit 3): the CRC-32 is only known after the
 *   bytes went out. Readers that use the central directory (Info-ZIP unzip, 7-Zip, libarchive,
 *   Windows Explorer, yauzl) read such archives of any size.
 * - Each entry's size is announced to yazl (`size`), which checks the bytes that actually came;
 *   an object whose stored size differs from the recorded one fails the archive.
 * - Entries of already compressed types are stored, the rest deflated (compression.ts); names are
 *   sanitised and de-duplicated (entry-names.ts).
 * - A failure after the first byte (an object missing or unreadable, a provider error mid-object)
 *   cannot change the status any more: the stream is destroyed with the error, which makes
 *   Fastify cut the connection, so the client sees a broken download (no final chunk) rather
 *   than a valid-looking archive with a file missing. It is logged with the entry's name.
 */
import './crc32.js';
import { PassThrough, type Readable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import yazl from 'yazl';
import type { ObjectStore } from '../storage/object-store.js';
import { isStoredType } from './compression.js';
import { ArchivePaths } from './entry-names.js';

export { contentDispositionAttachment } from '../services/downloads.js';

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
  const zip = new yazl.ZipFile();
  // yazl's own output buffers 16 KiB; a larger buffer after it lets the next megabytes be read
  // from the store while the last ones are still being sent (bench:zip, cold cache).
  const output = new PassThrough({ highWaterMark: OUTPUT_BUFFER });
  const zipOutput = zip.outputStream as Readable;
  zipOutput.pipe(output);
  const paths = new ArchivePaths();
  /** The object being copied into the archive, destroyed when the archive fails or the client leaves. */
  let current: Readable | undefined;
  let finished = false;
  let stopped = false;
  let entries = 0;

  const fail = (err: Error): void => {
    if (stopped) return;
    stopped = true;
    log.error({ err, entry: err instanceof ArchiveEntryError ? err.entry : undefined, entries }, 'ZIP archive failed; the download is aborted');
    current?.destroy();
    zipOutput.unpipe(output);
    zipOutput.destroy();
    output.destroy(err);
  };
  zip.on('error', (err: Error) => fail(err));
  output.once('end', () => {
    finished = true;
  });
  output.once('close', () => {
    if (finished || stopped) return;
    // The reader went away (client disconnected): stop reading objects.
    stopped = true;
    current?.destroy();
    zipOutput.unpipe(output);
    zipOutput.destroy();
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

  const addDirectories = (mtime: Date): void => {
    for (const dir of paths.takeNewDirectories()) {
      zip.addEmptyDirectory(dir, { mtime, mode: DIRECTORY_MODE });
      entries++;
    }
  };

  const add = (item: ArchiveItem): void => {
    const mtime = dateOf(item.modifiedAt);
    if (item.kind === 'directory') {
      paths.dir(item.path);
      addDirectories(mtime);
      return;
    }
    const name = paths.file(item.path);
    addDirectories(mtime);
    entries++;
    const options = { mtime, mode: FILE_MODE, compress: !isStoredType(item.mimeType), size: item.size };
    zip.addReadStreamLazy(name, options, (cb) => {
      // After a failure or a disconnect yazl is abandoned mid-archive: never hand it another stream.
      if (stopped) return;
      open(item, name).then(
        (stream) => {
          if (stopped) {
            stream.destroy();
            return;
          }
          current = stream;
          stream.once('error', (err: Error) => fail(new ArchiveEntryError(`Reading the object of "${name}" failed: ${err.message}`, name, { cause: err })));
          cb(null, stream);
        },
        (err: Error) => fail(err),
      );
    });
  };

  void (async () => {
    try {
      for await (const item of items) {
        if (stopped) return;
        add(item);
      }
      if (!stopped) zip.end();
    } catch (err) {
      fail(err instanceof Error ? err : new Error(String(err)));
    }
  })();

  return output;
}
