import { PassThrough, type Readable } from 'node:stream';
import yauzl from 'yauzl';
import type { ObjectStore } from '../storage/object-store.js';

/** Small reads (central directory records, local headers) are served from blocks of this size. */
const BLOCK = 256 * 1024;

async function readAll(stream: Readable, into: Buffer, offset: number): Promise<number> {
  let at = offset;
  for await (const chunk of stream) {
    const buf = chunk as Buffer;
    const room = into.length - at;
    if (buf.length > room) {
      buf.copy(into, at, 0, room);
      at += room;
      stream.destroy();
      break;
    }
    buf.copy(into, at);
    at += buf.length;
  }
  return at - offset;
}

/**
 * yauzl's random-access reader over an object in our store, by ranged reads (`Range: bytes=` on S3),
 * so listing a 5 GiB ZIP reads its end records and central directory, never the whole object.
 * yauzl reads the central directory a record at a time (46 bytes, then the name): those small
 * reads are answered from a cached 256 KiB block, so one request covers thousands of records.
 * File data is streamed straight from the store.
 */
export class StoreRangeReader extends yauzl.RandomAccessReader {
  private block: { start: number; data: Buffer } | undefined;

  constructor(
    private readonly store: ObjectStore,
    private readonly key: string,
    private readonly size: number,
  ) {
    super();
  }

  override _readStreamForRange(start: number, end: number): Readable {
    let source: Readable | undefined;
    const out = new PassThrough({
      destroy(err, callback) {
        source?.destroy();
        callback(err);
      },
    });
    this.store.read(this.key, { start, end: end - 1 }).then(
      (body) => {
        if (out.destroyed) {
          body.stream.destroy();
          return;
        }
        source = body.stream;
        source.once('error', (err) => out.destroy(err));
        source.pipe(out);
      },
      (err: Error) => out.destroy(err),
    );
    return out;
  }

  override read(buffer: Buffer, offset: number, length: number, position: number, callback: (err: Error | null) => void): void {
    this.fill(buffer, offset, length, position).then(
      () => callback(null),
      (err: Error) => callback(err),
    );
  }

  private async fill(buffer: Buffer, offset: number, length: number, position: number): Promise<void> {
    if (length === 0) return;
    if (position < 0 || position + length > this.size) throw new Error(`Read of ${length} bytes at ${position} is outside the ${this.size}-byte archive`);
    const cached = this.block;
    if (cached && position >= cached.start && position + length <= cached.start + cached.data.length) {
      cached.data.copy(buffer, offset, position - cached.start, position - cached.start + length);
      return;
    }
    if (length > BLOCK) {
      const body = await this.store.read(this.key, { start: position, end: position + length - 1 });
      const got = await readAll(body.stream, buffer.subarray(0, offset + length), offset);
      if (got !== length) throw new Error(`Short read: ${got} of ${length} bytes at ${position}`);
      return;
    }
    const start = position;
    const end = Math.min(this.size, start + BLOCK);
    const data = Buffer.alloc(end - start);
    const body = await this.store.read(this.key, { start, end: end - 1 });
    const got = await readAll(body.stream, data, 0);
    if (got !== data.length) throw new Error(`Short read: ${got} of ${data.length} bytes at ${start}`);
    this.block = { start, data };
    data.copy(buffer, offset, 0, length);
  }
}
