import { execFile } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import yauzl from 'yauzl';
import type { ByteRange, ObjectBody, ObjectStore } from '../../src/storage/object-store.js';
import type { TestApp } from './app.js';
import { tempDir } from './databases.js';
import type { Account } from './factories.js';
import { multipart, type FilePart } from './versions.js';

export interface ReadEntry {
  name: string;
  isDirectory: boolean;
  compressionMethod: number;
  size: number;
  crc32: number;
  mode: number;
  mtime: Date;
  zip64: boolean;
  data: Buffer;
}

/** Reads a whole archive with yauzl (an independent reader): every entry, its bytes checked against its CRC and sizes. */
export async function readZip(buffer: Buffer, options: { data?: boolean } = {}): Promise<{ entries: ReadEntry[]; entryCount: number }> {
  const zip = await yauzl.fromBufferPromise(buffer, { lazyEntries: true, validateEntrySizes: true, strictFileNames: true });
  const entries: ReadEntry[] = [];
  for await (const entry of zip.eachEntry()) {
    const isDirectory = entry.fileName.endsWith('/');
    let data = Buffer.alloc(0);
    if (!isDirectory && options.data !== false) {
      const chunks: Buffer[] = [];
      for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
      data = Buffer.concat(chunks);
    }
    entries.push({
      name: entry.fileName,
      isDirectory,
      compressionMethod: entry.compressionMethod,
      size: entry.uncompressedSize,
      crc32: entry.crc32,
      mode: (entry.externalFileAttributes >>> 16) & 0xffff,
      mtime: entry.getLastModDate(),
      zip64: entry.extraFields.some((f) => f.id === 0x0001),
      data,
    });
  }
  return { entries, entryCount: zip.entryCount };
}

export const hasUnzip = ['/usr/bin/unzip', '/bin/unzip', '/usr/local/bin/unzip'].some((p) => existsSync(p));

/** Info-ZIP's `unzip -t` (test every entry's CRC) on the archive; resolves its output, rejects on failure. */
export async function unzipTest(buffer: Buffer): Promise<string> {
  const file = path.join(tempDir('dam-zip-'), 'archive.zip');
  writeFileSync(file, buffer);
  const { stdout } = await promisify(execFile)('unzip', ['-t', file], { maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

/** An ObjectStore in memory (reads only), for tests of what reads from a store. Keys may be set to fail. */
export class MemoryStore implements Pick<ObjectStore, 'kind' | 'read' | 'head'> {
  readonly kind = 'local' as const;
  readonly objects = new Map<string, Buffer>();
  /** key -> bytes after which the read stream errors. */
  readonly failAfter = new Map<string, number>();
  reads = 0;
  /** Bytes asked for by all reads. */
  bytesRead = 0;
  maxOpen = 0;
  private open = 0;

  head(key: string): Promise<{ size: number; contentType: undefined } | undefined> {
    const data = this.objects.get(key);
    return Promise.resolve(data ? { size: data.length, contentType: undefined } : undefined);
  }

  read(key: string, range?: ByteRange): Promise<ObjectBody> {
    const data = this.objects.get(key);
    if (!data) return Promise.reject(new Error(`No object ${key}`));
    this.reads++;
    const slice = range ? data.subarray(range.start, range.end + 1) : data;
    this.bytesRead += slice.length;
    const failAt = this.failAfter.get(key);
    const track = (delta: number) => {
      this.open += delta;
      this.maxOpen = Math.max(this.maxOpen, this.open);
    };
    async function* chunks(): AsyncGenerator<Buffer> {
      track(1);
      try {
        for (let i = 0; i < slice.length; i += 64 * 1024) {
          if (failAt !== undefined && i >= failAt) throw new Error('simulated provider failure');
          yield slice.subarray(i, i + 64 * 1024);
        }
        if (failAt !== undefined && slice.length <= failAt) throw new Error('simulated provider failure');
      } finally {
        track(-1);
      }
    }
    return Promise.resolve({ stream: Readable.from(chunks(), { objectMode: false }), size: data.length });
  }
}

export async function collect(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A new asset through POST /api/upload-asset, optionally into a folder; returns its id. */
export async function uploadAsset(t: TestApp, who: Account, file: FilePart, opts: { workspaceId?: number; folderId?: number } = {}): Promise<number> {
  const fields: Record<string, string | FilePart> = { workspaceId: String(opts.workspaceId ?? who.workspaceId), file };
  if (opts.folderId !== undefined) fields.folder_id = String(opts.folderId);
  const body = await multipart(fields);
  const res = await t.request({ method: 'POST', url: '/api/upload-asset', token: who.token, ...body });
  if (res.statusCode !== 201) throw new Error(`upload-asset answered ${res.statusCode} ${res.body}`);
  return res.json<{ data: { id: number } }>().data.id;
}

export interface RawEntry {
  /** The name's bytes as written (a string is UTF-8, with the UTF-8 flag). */
  name: string | Buffer;
  /** The uncompressed bytes. */
  data?: Buffer;
  /** 0 stored (default), 8 deflated, anything else is written as is with the data stored. */
  method?: number;
  /** General purpose flags added (1: encrypted). */
  flags?: number;
  /** Unix mode in the external attributes (made by Unix); e.g. 0o120777 for a symbolic link. */
  unixMode?: number;
  /** Overrides of the declared values. */
  crc32?: number;
  size?: number;
}

/**
 * A ZIP written byte by byte, for archives no well-behaved writer makes: `..` names, absolute
 * paths, backslashes, encrypted flags, unknown methods, lying sizes and CRCs (APPNOTE 4.3).
 */
export function rawZip(entries: RawEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = typeof e.name === 'string' ? Buffer.from(e.name, 'utf8') : e.name;
    const data = e.data ?? Buffer.alloc(0);
    const method = e.method ?? 0;
    const stored = method === 8 ? zlib.deflateRawSync(data) : data;
    const crc = e.crc32 ?? zlib.crc32(data);
    const size = e.size ?? data.length;
    const flags = (typeof e.name === 'string' ? 0x800 : 0) | (e.flags ?? 0);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(0x5821, 12);
    local.writeUInt32LE(crc >>> 0, 14);
    local.writeUInt32LE(stored.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(e.unixMode !== undefined ? (3 << 8) | 20 : 20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(0x5821, 14);
    central.writeUInt32LE(crc >>> 0, 16);
    central.writeUInt32LE(stored.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(e.unixMode !== undefined ? (e.unixMode << 16) >>> 0 : 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, stored);
    centrals.push(central, name);
    offset += local.length + name.length + stored.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}
