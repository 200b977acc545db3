/**
 * yazl computes each entry's CRC-32 with buffer-crc32, a table-driven JavaScript CRC that runs at
 * about 450 MB/s on the reference machine: slower than reading from disk, so it would cap every
 * download (npm run bench:zip). Node's zlib.crc32 (zlib's native, SIMD-assisted CRC, Node >= 20.15)
 * computes the same function at several GB/s. yazl calls `crc32.unsigned(chunk, previous)` through
 * the module object it required, so pointing that one function at zlib.crc32 speeds yazl up without
 * forking it. Same inputs, same results (checked by test/zip-archive.test.ts against buffer-crc32);
 * any other call shape (and an empty
 * chunk, for which zlib.crc32 answers 0 rather than the running value) keeps the original.
 */
import { createRequire } from 'node:module';
import zlib from 'node:zlib';

type Unsigned = (data: Buffer | string, previous?: number | Buffer) => number;

const require = createRequire(import.meta.url);
const bufferCrc32 = require('buffer-crc32') as { unsigned: Unsigned; __native?: boolean };
const nativeCrc32 = (zlib as { crc32?: (data: Buffer, value?: number) => number }).crc32;

if (nativeCrc32 && !bufferCrc32.__native) {
  const original = bufferCrc32.unsigned;
  bufferCrc32.unsigned = (data, previous) =>
    Buffer.isBuffer(data) && data.length > 0 && (previous === undefined || typeof previous === 'number')
      ? nativeCrc32(data, previous ?? 0)
      : original(data, previous);
  bufferCrc32.__native = true;
}

/** True when yazl's CRC-32 runs on zlib's native implementation. */
export const nativeCrc = Boolean(bufferCrc32.__native);
