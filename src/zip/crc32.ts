/**
 * compress-commons (zip-writer.ts) computes each entry's CRC-32 through crc32-stream with the crc-32
 * package, a table-driven JavaScript CRC that runs at about 680 MB/s on the reference machine:
 * slower than reading from disk, so it would cap every download (npm run bench:zip). Node's
 * zlib.crc32 (zlib's native, SIMD-assisted CRC, Node >= 20.15) computes the same function at
 * several GB/s. crc32-stream calls `crc32.buf(chunk, previous)` through the module object it
 * imported, so pointing that one function at zlib.crc32 speeds the writer up without forking it.
 * Same inputs, same results (checked by test/zip-archive.test.ts against crc-32's own bstr()):
 * crc-32 answers a signed 32-bit value and so does the replacement. The seed may be a number or, on
 * the first chunk, crc32-stream's 4-byte zero buffer (which crc-32 reads as 0); any other call shape
 * (and an empty chunk, for which zlib.crc32 answers 0 rather than the running value) keeps the original.
 */
import { createRequire } from 'node:module';
import zlib from 'node:zlib';

type Buf = (data: Buffer | Uint8Array, seed?: number | Buffer) => number;

type Crc32Module = { buf: Buf; __native?: boolean };

// Resolved from where compress-commons and crc32-stream import it, so these are the very module
// objects they use (one when npm deduplicates, as it does today).
const fromWriter = createRequire(createRequire(import.meta.url).resolve('compress-commons'));
const fromStream = createRequire(fromWriter.resolve('crc32-stream'));
const modules = [...new Set([fromWriter('crc-32') as Crc32Module, fromStream('crc-32') as Crc32Module])];
const nativeCrc32 = (zlib as { crc32?: (data: Buffer, value?: number) => number }).crc32;

const zeroSeed = (seed: unknown): boolean => seed === undefined || (Buffer.isBuffer(seed) && seed.length === 4 && seed.readUInt32BE(0) === 0);

for (const crc32 of modules) {
  if (!nativeCrc32 || crc32.__native) continue;
  const original = crc32.buf;
  crc32.buf = (data, seed) =>
    Buffer.isBuffer(data) && data.length > 0 && (typeof seed === 'number' || zeroSeed(seed))
      ? nativeCrc32(data, typeof seed === 'number' ? seed >>> 0 : 0) | 0
      : original(data, seed);
  crc32.__native = true;
}

/** True when the ZIP writer's CRC-32 runs on zlib's native implementation. */
export const nativeCrc = modules.every((m) => m.__native === true);
