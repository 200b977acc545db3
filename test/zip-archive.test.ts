import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { archiveStream, type ArchiveItem } from '../src/zip/archive-stream.js';
import { isStoredType } from '../src/zip/compression.js';
import { nativeCrc } from '../src/zip/crc32.js';
import { ArchivePaths, sanitizePath } from '../src/zip/entry-names.js';
import { ZipArchive } from '../src/zip/zip-reader.js';
import type { ObjectStore } from '../src/storage/object-store.js';
import { collect, hasUnzip, MemoryStore, readZip, unzipTest } from './helpers/zip.js';

const log = pino({ level: 'silent' });
const T = 1_700_000_000;

function storeWith(files: Record<string, Buffer>): MemoryStore {
  const store = new MemoryStore();
  for (const [k, v] of Object.entries(files)) store.objects.set(k, v);
  return store;
}

const item = (path: string, key: string, data: Buffer, mimeType = 'application/octet-stream'): ArchiveItem => ({
  path,
  objectKey: key,
  size: data.length,
  mimeType,
  modifiedAt: T,
});

const zipOf = (store: MemoryStore, items: ArchiveItem[] | AsyncIterable<ArchiveItem>) => collect(archiveStream(store as unknown as ObjectStore, items, log));

describe('entry names', () => {
  it('never lets a name leave the archive root', () => {
    expect(sanitizePath('../../etc/passwd')).toEqual(['_', '_', 'etc', 'passwd']);
    expect(sanitizePath('/abs/x.txt')).toEqual(['abs', 'x.txt']);
    expect(sanitizePath('C:\\Windows\\x.dll')).toEqual(['C_', 'Windows', 'x.dll']);
    expect(sanitizePath('C:evil.txt')).toEqual(['C_evil.txt']);
    expect(sanitizePath('a\u0000b\u202e.txt')).toEqual(['ab.txt']);
    expect(sanitizePath('...')).toEqual(['_']);
    expect(sanitizePath('')).toEqual(['_']);
    expect(sanitizePath('name. ')).toEqual(['name']);
  });

  it('keeps names at most 255 UTF-8 bytes, with their extension', () => {
    const [long] = sanitizePath(`${'é'.repeat(300)}.jpg`);
    expect(Buffer.byteLength(long!)).toBeLessThanOrEqual(255);
    expect(long!.endsWith('é.jpg')).toBe(true);
  });

  it('numbers duplicates before the extension, case-insensitively, directories included', () => {
    const paths = new ArchivePaths();
    expect(paths.file('photo.jpg')).toBe('photo.jpg');
    expect(paths.file('Photo.JPG')).toBe('Photo (2).JPG');
    expect(paths.file('photo.jpg')).toBe('photo (3).jpg');
    expect(paths.file('photo (2).jpg')).toBe('photo (2) (2).jpg');
    expect(paths.file('Trip')).toBe('Trip');
    expect(paths.file('Trip/a.jpg')).toBe('Trip (2)/a.jpg');
    expect(paths.file('Trip/b.jpg')).toBe('Trip (2)/b.jpg');
    expect(paths.takeNewDirectories()).toEqual(['Trip (2)']);
    expect(paths.file('archive.tar.gz')).toBe('archive.tar.gz');
    expect(paths.file('archive.tar.gz')).toBe('archive.tar (2).gz');
    expect(paths.file('.env')).toBe('.env');
    expect(paths.file('.env')).toBe('.env (2)');
  });
});

describe('stored or deflated', () => {
  it('stores what is already compressed and deflates the rest', () => {
    for (const t of ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/heic', 'video/mp4', 'video/quicktime', 'audio/mpeg', 'application/zip', 'application/pdf', 'application/x-7z-compressed', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'IMAGE/JPEG; q=1']) {
      expect(isStoredType(t), t).toBe(true);
    }
    for (const t of ['text/plain', 'application/json', 'image/svg+xml', 'image/tiff', 'image/bmp', 'audio/wav', 'application/octet-stream', 'application/x-tar', '', 'nonsense']) {
      expect(isStoredType(t), t).toBe(false);
    }
  });
});

describe('archiveStream', () => {
  it('runs the writer on the native CRC-32, with the same results as crc-32', () => {
    expect(nativeCrc).toBe(true);
    const require = createRequire(createRequire(import.meta.url).resolve('compress-commons'));
    const crc = require('crc-32') as { buf: (b: Buffer, seed?: number | Buffer) => number; bstr: (s: string, seed?: number) => number };
    for (const size of [0, 1, 7, 1000, 65_537]) {
      const data = randomBytes(size);
      // bstr() still runs the JavaScript table (on the bytes as a binary string); buf() is the native one.
      expect(crc.buf(data)).toBe(crc.bstr(data.toString('latin1')));
      expect(crc.buf(data, 12345)).toBe(crc.bstr(data.toString('latin1'), 12345));
      expect(crc.buf(data, Buffer.alloc(4))).toBe(crc.bstr(data.toString('latin1')));
    }
  });

  it('writes a valid archive: files, folders, non-ASCII names, stored media and deflated text', async () => {
    const jpeg = randomBytes(200_000);
    const text = Buffer.from('hello '.repeat(10_000));
    const store = storeWith({ a: jpeg, b: text, c: Buffer.alloc(0) });
    const out = await zipOf(store, [
      item('Ferien/Strand/Größe 日本.jpg', 'a', jpeg, 'image/jpeg'),
      item('Ferien/notes.txt', 'b', text, 'text/plain'),
      item('empty.bin', 'c', Buffer.alloc(0)),
      { path: 'Ferien/Leer', objectKey: '', size: 0, mimeType: '', modifiedAt: T, kind: 'directory' },
    ]);
    const { entries } = await readZip(out);
    expect(entries.map((e) => e.name)).toEqual(['Ferien/', 'Ferien/Strand/', 'Ferien/Strand/Größe 日本.jpg', 'Ferien/notes.txt', 'empty.bin', 'Ferien/Leer/']);
    const photo = entries.find((e) => e.name.endsWith('.jpg'))!;
    expect(photo.data.equals(jpeg)).toBe(true);
    expect(photo.compressionMethod).toBe(0);
    const notes = entries.find((e) => e.name.endsWith('.txt'))!;
    expect(notes.data.equals(text)).toBe(true);
    expect(notes.compressionMethod).toBe(8);
    expect(notes.mode).toBe(0o100644);
    expect(Math.floor(notes.mtime.getTime() / 1000)).toBe(T);
    expect(entries.find((e) => e.name === 'Ferien/Leer/')!.mode).toBe(0o40755);
    expect(store.maxOpen).toBe(1);
    if (hasUnzip) expect(await unzipTest(out)).toMatch(/No errors detected/);
  });

  it('accepts an async iterable and an empty selection', async () => {
    const data = Buffer.from('x');
    const store = storeWith({ k: data });
    async function* items(): AsyncGenerator<ArchiveItem> {
      yield item('one.txt', 'k', data);
      yield item('one.txt', 'k', data);
    }
    expect((await readZip(await zipOf(store, items()))).entries.map((e) => e.name)).toEqual(['one.txt', 'one (2).txt']);
    expect((await readZip(await zipOf(store, []))).entries).toEqual([]);
  });

  it('fails the stream (never ends it) when an object read fails mid-entry', async () => {
    const big = randomBytes(1_000_000);
    const store = storeWith({ ok: Buffer.from('fine'), bad: big });
    store.failAfter.set('bad', 300_000);
    const stream = archiveStream(store as unknown as ObjectStore, [item('ok.txt', 'ok', Buffer.from('fine')), item('bad.bin', 'bad', big), item('after.txt', 'ok', Buffer.from('fine'))], log);
    await expect(collect(stream)).rejects.toThrow(/bad\.bin.*simulated provider failure/);
  });

  it('fails when an object is missing or its size differs from the recorded one', async () => {
    const store = storeWith({ k: Buffer.from('12345') });
    await expect(zipOf(store, [item('gone.txt', 'missing', Buffer.from('x'))])).rejects.toThrow(/gone\.txt/);
    await expect(zipOf(store, [{ ...item('short.txt', 'k', Buffer.from('12345')), size: 9 }])).rejects.toThrow(/holds 5 bytes, 9 were recorded/);
  });

  it('stops reading objects when the reader goes away', async () => {
    const big = randomBytes(4_000_000);
    const store = storeWith({ k: big });
    const stream = archiveStream(store as unknown as ObjectStore, Array.from({ length: 20 }, (_, i) => item(`f${i}.bin`, 'k', big)), log);
    await new Promise<void>((resolve) => stream.once('data', () => resolve()));
    stream.destroy();
    await new Promise((r) => setTimeout(r, 100));
    expect(store.reads).toBe(1);
  });

  it('uses the ZIP64 end records past 65,535 entries (read back by yauzl and unzip)', async () => {
    const data = Buffer.from('z');
    const store = storeWith({ k: data });
    const count = 65_540;
    const out = await zipOf(store, Array.from({ length: count }, (_, i) => item(`e${i}.txt`, 'k', data)));
    // The ZIP64 end of central directory locator sits just before the classic end record.
    expect(out.readUInt32LE(out.length - 22 - 20)).toBe(0x07064b50);
    const { entryCount, entries } = await readZip(out, { data: false });
    expect(entryCount).toBe(count);
    expect(entries.length).toBe(count);
    if (hasUnzip) expect(await unzipTest(out)).toMatch(/No errors detected in compressed data/);
  }, 120_000);

  it('reads a stored archive through ranged reads of its end, never the whole object', async () => {
    const big = randomBytes(4 * 1024 * 1024);
    const store = storeWith({ k: big });
    const out = await zipOf(store, Array.from({ length: 5 }, (_, i) => item(`dir/f${i}.bin`, 'k', big, 'video/mp4')));
    const zipStore = storeWith({ zip: out });
    const archive = await ZipArchive.open(zipStore as unknown as ObjectStore, 'zip', out.length);
    const names: string[] = [];
    for await (const { info } of archive.entries()) names.push(info.name);
    archive.close();
    expect(names).toEqual(['dir/', ...Array.from({ length: 5 }, (_, i) => `dir/f${i}.bin`)]);
    // The end records (at most 64 KiB + 22 bytes) and one 256 KiB block of the central directory.
    expect(zipStore.bytesRead).toBeLessThan(400 * 1024);
    expect(out.length).toBeGreaterThan(20 * 1024 * 1024);
  });
});
