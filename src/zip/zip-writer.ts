/**
 * The ZIP writer behind archive-stream.ts: compress-commons (the writer of archiver and zip-stream),
 * with three corrections made here rather than in a fork.
 *
 * Why not yazl any more (issue #38): yazl finds the next entry to write by scanning its entry list
 * from the first one after every entry, so an archive of n entries costs n^2/2 steps of bookkeeping
 * (measured on the 2-core reference machine with yazl 3.3.1 alone, empty directories: 10,000 in
 * 0.55 s, 20,000 in 2.3 s, 40,000 in 9.0 s; a 65,600-folder download never sent its first byte).
 * compress-commons appends each entry's central record to a list and writes them once at the end:
 * linear (100,000 entries in about 1.5 s there).
 *
 * The corrections:
 * - names: its setName() strips any leading `word:` (`notes:v2.txt` becomes `v2.txt`), a Windows
 *   drive guard that is too broad; entry-names.ts has made our names safe already, so they are kept
 *   as given (with the UTF-8 flag when not ASCII).
 * - ZIP64 per entry: it switches to ZIP64 only past 0xffffffff, yet a size or local-header offset of
 *   exactly 0xffffffff is the format's "look in the ZIP64 field" marker; here from that value on.
 * - ZIP64 for the archive: likewise from 65,535 entries, or a central directory at or past 4 GiB
 *   (it waited for 65,536 and wrote the marker 0xffff as a plain count).
 * - Chunks: it writes every header field as its own write() (about 17 per record), so 100,000
 *   entries made 2.8 million chunks of a few bytes, and passing them on cost more than the ZIP
 *   itself (5 s of 7 there). Small writes are gathered here into chunks of up to 64 KiB.
 * - The central directory is written in slices with a turn of the event loop between them: at
 *   100,000 records it would otherwise hold the process for a second in one go.
 */
import { ZipArchiveEntry, ZipArchiveOutputStream } from 'compress-commons';

const MAX_U32 = 0xffffffff;
const MAX_U16 = 0xffff;
/** Writes smaller than this are gathered; larger ones (file data) pass through as they are. */
const SMALL = 4096;
/** Gathered bytes are passed on once they reach this. */
const BATCH = 64 * 1024;
/** The longest one slice of the central directory holds the event loop. */
const SLICE_MS = 5;
/** Records written between two looks at the clock. */
const SLICE_CHECK = 100;

export const STORED = 0;
export const DEFLATED = 8;

export class WriterEntry extends ZipArchiveEntry {
  override setName(name: string): void {
    if (Buffer.byteLength(name) !== name.length) this.getGeneralPurposeBit().useUTF8ForNames(true);
    this.name = name;
  }

  override isZip64(): boolean {
    return this.getSize() >= MAX_U32 || this.getCompressedSize() >= MAX_U32 || (this._offsets?.file ?? 0) >= MAX_U32;
  }
}

export class ZipWriter extends ZipArchiveOutputStream {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  override write(chunk: unknown, cb?: unknown): boolean {
    if (cb === undefined && Buffer.isBuffer(chunk) && chunk.length < SMALL) {
      // Counted now, as ArchiveOutputStream.write() would: the offsets of the headers depend on it.
      this.offset += chunk.length;
      this.pending.push(chunk);
      this.pendingBytes += chunk.length;
      return this.pendingBytes >= BATCH ? this.flush() : true;
    }
    this.flush();
    return super.write(chunk, cb as never);
  }

  /** Passes the gathered small writes on, as one chunk. */
  flush(): boolean {
    if (this.pendingBytes === 0) return true;
    const chunk = Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    // super.write() counts the bytes again.
    this.offset -= chunk.length;
    return super.write(chunk);
  }

  override end(...args: unknown[]): this {
    this.flush();
    return super.end(...(args as []));
  }

  /** compress-commons' _finish(), with the central directory written a slice per turn of the event loop. */
  override _finish(): void {
    this._archive.centralOffset = this.offset;
    let next = 0;
    const slice = (): void => {
      if (this.destroyed) return;
      const started = performance.now();
      while (next < this._entries.length) {
        const until = Math.min(next + SLICE_CHECK, this._entries.length);
        for (; next < until; next++) this._writeCentralFileHeader(this._entries[next]!);
        if (performance.now() - started >= SLICE_MS) break;
      }
      if (next < this._entries.length) {
        setImmediate(slice);
        return;
      }
      this._archive.centralLength = this.offset - this._archive.centralOffset;
      if (this.isZip64()) this._writeCentralDirectoryZip64();
      this._writeCentralDirectoryEnd();
      this._archive.processing = false;
      this._archive.finish = true;
      this._archive.finished = true;
      this.end();
    };
    slice();
  }

  override isZip64(): boolean {
    return super.isZip64() || this._entries.length >= MAX_U16 || this._archive.centralOffset >= MAX_U32 || this._archive.centralLength >= MAX_U32;
  }

  /** Appends one entry; resolves when its bytes (and data descriptor) are written. */
  append(entry: WriterEntry, source: Buffer | NodeJS.ReadableStream): Promise<void> {
    return new Promise((resolve, reject) => {
      this.entry(entry, source, (err) => (err ? reject(err) : resolve()));
    });
  }
}
