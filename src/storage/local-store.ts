import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DEFAULT_CORS_RULES, StoreError, type ByteRange, type CorsRule, type ObjectBody, type ObjectInfo, type ObjectStore, type StoredPart } from './object-store.js';
import type { UrlSigner } from './signed-url.js';

/** Where the local store keeps what S3 would keep: parts and CORS rules. The app backs it with the database. */
export interface LocalStoreRegistry {
  recordPart(uploadId: string, part: StoredPart): Promise<void>;
  listParts(uploadId: string): Promise<StoredPart[]>;
  getCorsRules(): Promise<CorsRule[] | undefined>;
  putCorsRules(rules: CorsRule[]): Promise<void>;
}

/** S3's largest part. */
export const MAX_PART_SIZE = 5 * 1024 ** 3;

async function fsyncFile(file: string): Promise<void> {
  const handle = await open(file, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function isDirectory(dir: string): Promise<boolean> {
  return stat(dir).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

export const normalizeEtag = (etag: string): string => etag.replace(/^W\//, '').replace(/"/g, '');

/**
 * Objects on local disk under `<root>/objects/<key>`; multipart parts under
 * `<root>/multipart/<uploadId>/<n>-<md5>`. Every write goes to a temporary
 * file first and is renamed into place, so a reader (or a crash) never sees
 * half an object. Part file names carry their MD5, so two concurrent PUTs of
 * the same part cannot make the recorded ETag disagree with the bytes.
 */
export class LocalStore implements ObjectStore {
  readonly kind = 'local' as const;
  private readonly objects: string;
  private readonly multipart: string;
  private readonly tmp: string;

  constructor(
    root: string,
    private readonly registry: LocalStoreRegistry,
    private readonly signer: UrlSigner,
    private readonly publicUrl: string,
    private readonly now: () => number,
  ) {
    this.objects = path.join(root, 'objects');
    this.multipart = path.join(root, 'multipart');
    this.tmp = path.join(root, 'tmp');
  }

  /** Keys are validated by the service; this is a second fence against traversal. */
  private objectPath(key: string): string {
    const full = path.resolve(this.objects, key);
    if (!full.startsWith(this.objects + path.sep)) throw new StoreError(`Refused key ${key}`, 'InvalidKey', 400);
    return full;
  }

  private uploadDir(uploadId: string): string {
    if (!/^[A-Za-z0-9_-]{16,64}$/.test(uploadId)) throw new StoreError('Malformed upload id', 'NoSuchUpload', 404);
    return path.join(this.multipart, uploadId);
  }

  private async tempFile(): Promise<string> {
    await mkdir(this.tmp, { recursive: true });
    return path.join(this.tmp, randomBytes(12).toString('hex'));
  }

  async createMultipartUpload(): Promise<string> {
    const uploadId = randomBytes(18).toString('base64url');
    await mkdir(this.uploadDir(uploadId), { recursive: true });
    return uploadId;
  }

  /** Path of the part PUT route; the signature covers it. */
  static partPath(uploadId: string, partNumber: number): string {
    return `/storage/parts/${encodeURIComponent(uploadId)}/${partNumber}`;
  }

  partUploadUrl(_key: string, uploadId: string, partNumber: number, expiresIn: number): Promise<string> {
    const partPath = LocalStore.partPath(uploadId, partNumber);
    return Promise.resolve(`${this.publicUrl}${partPath}?${this.signer.sign('PUT', partPath, this.now() + expiresIn)}`);
  }

  /** Checks the signature of a part URL this store handed out: 'ok', 'expired' or 'invalid'. */
  verifyPartUrl(uploadId: string, partNumber: number, expires: unknown, signature: unknown): 'ok' | 'expired' | 'invalid' {
    return this.signer.verify('PUT', LocalStore.partPath(uploadId, partNumber), expires, signature, this.now());
  }

  /**
   * Streams one part to disk while hashing it; never holds a whole part in memory.
   * Returns the part as recorded.
   */
  async writePart(uploadId: string, partNumber: number, body: Readable): Promise<StoredPart> {
    const dir = this.uploadDir(uploadId);
    try {
      await stat(dir);
    } catch {
      throw new StoreError('The upload does not exist or was aborted', 'NoSuchUpload', 404);
    }
    const tmp = await this.tempFile();
    const md5 = createHash('md5');
    let size = 0;
    const meter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        size += chunk.length;
        if (size > MAX_PART_SIZE) return done(new StoreError('A part may not exceed 5 GiB', 'EntityTooLarge', 400));
        md5.update(chunk);
        done(null, chunk);
      },
    });
    try {
      await pipeline(body, meter, createWriteStream(tmp));
      const etag = md5.digest('hex');
      await rename(tmp, path.join(dir, `${partNumber}-${etag}`));
      const part = { PartNumber: partNumber, ETag: `"${etag}"`, Size: size };
      await this.registry.recordPart(uploadId, part);
      return part;
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  }

  listParts(_key: string, uploadId: string): Promise<StoredPart[]> {
    return this.registry.listParts(uploadId);
  }

  async completeMultipartUpload(key: string, uploadId: string, parts: { PartNumber: number; ETag: string }[]): Promise<void> {
    const dir = this.uploadDir(uploadId);
    const target = this.objectPath(key);
    // As S3: an upload that is gone (completed by a concurrent or interrupted call, or aborted) is NoSuchUpload,
    // so the caller can tell it from a bad parts list and carry on when the object is already whole.
    const gone = () => new StoreError('The upload does not exist, was aborted or is already completed', 'NoSuchUpload', 404);
    if (!(await isDirectory(dir))) throw gone();
    const tmp = await this.tempFile();
    const out = createWriteStream(tmp);
    try {
      for (const part of parts) {
        const file = path.join(dir, `${part.PartNumber}-${normalizeEtag(part.ETag)}`);
        try {
          await pipeline(createReadStream(file), out, { end: false });
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
            if (!(await isDirectory(dir))) throw gone();
            throw new StoreError(`Part ${part.PartNumber} was not uploaded with ETag ${part.ETag}`, 'InvalidPart', 400);
          }
          throw err;
        }
      }
      await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
      await fsyncFile(tmp);
      await mkdir(path.dirname(target), { recursive: true });
      await rename(tmp, target);
    } catch (err) {
      out.destroy();
      await rm(tmp, { force: true });
      throw err;
    }
    await rm(dir, { recursive: true, force: true });
  }

  async abortMultipartUpload(_key: string, uploadId: string): Promise<void> {
    await rm(this.uploadDir(uploadId), { recursive: true, force: true });
  }

  async putFile(key: string, filePath: string): Promise<void> {
    const target = this.objectPath(key);
    const tmp = await this.tempFile();
    await pipeline(createReadStream(filePath), createWriteStream(tmp));
    await mkdir(path.dirname(target), { recursive: true });
    await rename(tmp, target);
  }

  async head(key: string): Promise<ObjectInfo | undefined> {
    try {
      const s = await stat(this.objectPath(key));
      return s.isFile() ? { size: s.size, contentType: undefined } : undefined;
    } catch {
      return undefined;
    }
  }

  async read(key: string, range?: ByteRange): Promise<ObjectBody> {
    const info = await this.head(key);
    if (!info) throw new StoreError(`No object ${key}`, 'NoSuchKey', 404);
    const stream = createReadStream(this.objectPath(key), range ? { start: range.start, end: range.end } : undefined);
    return { stream, size: info.size };
  }

  async delete(key: string): Promise<void> {
    await unlink(this.objectPath(key)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  }

  async getCorsRules(): Promise<CorsRule[]> {
    return (await this.registry.getCorsRules()) ?? DEFAULT_CORS_RULES;
  }

  putCorsRules(rules: CorsRule[]): Promise<void> {
    return this.registry.putCorsRules(rules);
  }
}
