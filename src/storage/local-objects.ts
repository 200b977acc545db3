import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { link, mkdir, open, opendir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { StoreError, type ByteRange, type ListedObject } from './object-store.js';

/** The object as stored: its pieces in order. */
interface Manifest {
  size: number;
  pieces: { file: string; size: number }[];
}

const MANIFEST = 'manifest.json';

export async function fsyncPath(file: string): Promise<void> {
  const handle = await open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Objects on local disk, each a directory `<key>.obj/` holding its pieces and a
 * manifest. A multipart upload is published by hard-linking its part files into
 * a new directory and renaming that directory into place: completion costs a
 * few metadata operations instead of copying every byte again, the parts stay
 * untouched until the rename (a crash leaves no object or a whole one), and
 * readers never see half an object. MinIO keeps multipart objects as parts
 * plus metadata for the same reason.
 */
export class LocalObjects {
  constructor(
    private readonly root: string,
    private readonly tmp: string,
  ) {}

  /** Keys are validated by the service; this is a second fence against traversal. */
  private dir(key: string): string {
    const full = path.resolve(this.root, `${key}.obj`);
    if (!full.startsWith(this.root + path.sep)) throw new StoreError(`Refused key ${key}`, 'InvalidKey', 400);
    return full;
  }

  async tempPath(): Promise<string> {
    await mkdir(this.tmp, { recursive: true });
    return path.join(this.tmp, randomBytes(12).toString('hex'));
  }

  /**
   * Makes `files` (in order) the object at `key`. `link` keeps the sources (multipart parts,
   * removed later); `move` renames them (temporary files of a whole-file upload).
   */
  async publish(key: string, files: { path: string; size: number }[], mode: 'link' | 'move'): Promise<void> {
    const staging = await this.tempPath();
    await mkdir(staging);
    try {
      const pieces = [];
      for (const [i, f] of files.entries()) {
        const file = String(i + 1).padStart(5, '0');
        await (mode === 'link' ? link(f.path, path.join(staging, file)) : rename(f.path, path.join(staging, file)));
        pieces.push({ file, size: f.size });
      }
      const manifest: Manifest = { size: pieces.reduce((n, p) => n + p.size, 0), pieces };
      await writeFile(path.join(staging, MANIFEST), JSON.stringify(manifest));
      await fsyncPath(path.join(staging, MANIFEST));
      await fsyncPath(staging);
      const target = this.dir(key);
      await mkdir(path.dirname(target), { recursive: true });
      await this.placeOnce(staging, target);
    } catch (err) {
      await rm(staging, { recursive: true, force: true });
      throw err;
    }
  }

  /**
   * Keys are write-once (they carry ids that are never reused), so an existing object at the
   * target is this same upload, published by a concurrent completion: keep it, drop ours.
   */
  private async placeOnce(staging: string, target: string): Promise<void> {
    try {
      await rename(staging, target);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw err;
      await rm(staging, { recursive: true, force: true });
    }
  }

  private async manifest(key: string): Promise<Manifest | undefined> {
    try {
      return JSON.parse(await readFile(path.join(this.dir(key), MANIFEST), 'utf8')) as Manifest;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
      throw err;
    }
  }

  async size(key: string): Promise<number | undefined> {
    return (await this.manifest(key))?.size;
  }

  /** Streams the object or an inclusive byte range of it, piece after piece. */
  async read(key: string, range?: ByteRange): Promise<{ stream: Readable; size: number }> {
    const manifest = await this.manifest(key);
    if (!manifest) throw new StoreError(`No object ${key}`, 'NoSuchKey', 404);
    const dir = this.dir(key);
    const start = range?.start ?? 0;
    const end = range?.end ?? manifest.size - 1;
    async function* slices(): AsyncGenerator<Buffer> {
      let offset = 0;
      for (const piece of manifest!.pieces) {
        const pieceEnd = offset + piece.size - 1;
        if (piece.size > 0 && pieceEnd >= start && offset <= end) {
          const from = Math.max(start, offset) - offset;
          const to = Math.min(end, pieceEnd) - offset;
          for await (const chunk of createReadStream(path.join(dir, piece.file), { start: from, end: to, highWaterMark: 1 << 20 })) {
            yield chunk as Buffer;
          }
        }
        offset += piece.size;
        if (offset > end) break;
      }
    }
    return { stream: Readable.from(slices(), { objectMode: false }), size: manifest.size };
  }

  /** Publishes the pieces of `source` again as `target`, by hard links: no byte is copied. */
  async copy(source: string, target: string): Promise<void> {
    const manifest = await this.manifest(source);
    if (!manifest) throw new StoreError(`No object ${source}`, 'NoSuchKey', 404);
    const dir = this.dir(source);
    await this.publish(
      target,
      manifest.pieces.map((p) => ({ path: path.join(dir, p.file), size: p.size })),
      'link',
    );
  }

  /**
   * Every object whose key starts with `prefix` (as S3 matches prefixes: by characters, not path segments). Walks
   * from the deepest directory the prefix names, depth first with one open directory per level, so neither a
   * directory of millions of objects nor the whole tree is ever held in memory. Directories that cannot hold a
   * matching key are skipped; an `.obj` directory without a manifest is not a whole object and is not listed.
   */
  async *list(prefix: string): AsyncGenerator<ListedObject> {
    const cut = prefix.lastIndexOf('/');
    const start = cut < 0 ? '' : prefix.slice(0, cut);
    if (start && !path.resolve(this.root, start).startsWith(this.root + path.sep)) throw new StoreError(`Refused prefix ${prefix}`, 'InvalidKey', 400);
    yield* this.walk(start, prefix);
  }

  private async *walk(rel: string, prefix: string): AsyncGenerator<ListedObject> {
    let dir;
    try {
      dir = await opendir(rel ? path.join(this.root, rel) : this.root);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return;
      throw err;
    }
    for await (const entry of dir) {
      if (!entry.isDirectory()) continue;
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.name.endsWith('.obj')) {
        const key = child.slice(0, -'.obj'.length);
        if (!key.startsWith(prefix)) continue;
        const size = await this.size(key);
        // The directory was renamed into place whole: its time is the object's.
        const modified = size === undefined ? undefined : await stat(path.join(this.root, child)).catch(() => undefined);
        if (size !== undefined && modified) yield { key, size, modifiedAt: Math.floor(modified.mtimeMs / 1000) };
      } else if (prefix.startsWith(`${child}/`) || `${child}/`.startsWith(prefix)) {
        yield* this.walk(child, prefix);
      }
    }
  }

  /** Moves the directory aside, then removes it: a reader sees the whole object or none. */
  async delete(key: string): Promise<void> {
    const trash = await this.tempPath();
    try {
      await rename(this.dir(key), trash);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    await rm(trash, { recursive: true, force: true });
  }
}
