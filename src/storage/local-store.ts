import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { link, mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DEFAULT_CORS_RULES, StoreError, type ByteRange, type CorsRule, type ObjectBody, type ObjectInfo, type ObjectStore, type StoredPart } from './object-store.js';
import { fsyncPath, LocalObjects } from './local-objects.js';
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

async function isDirectory(dir: string): Promise<boolean> {
  return stat(dir).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

export const normalizeEtag = (etag: string): string => etag.replace(/^W\//, '').replace(/"/g, '');

/** Hard-links `target` to `source`; false where the file system cannot (another device, no hard links). */
async function linked(source: string, target: string): Promise<boolean> {
  try {
    await link(source, target);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EXDEV' || code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'EMLINK') return false;
    throw err;
  }
}

/**
 * The local-disk store: objects under `<root>/objects` (see LocalObjects),
 * multipart parts under `<root>/multipart/<uploadId>/<n>-<md5>`. A part is
 * streamed to a temporary file, fsynced (an ETag answered is a part kept) and
 * renamed into place; its file name carries its MD5, so two concurrent PUTs of
 * the same part cannot make the recorded ETag disagree with the bytes.
 */
export class LocalStore implements ObjectStore {
  readonly kind = 'local' as const;
  private readonly objects: LocalObjects;
  private readonly multipart: string;

  constructor(
    root: string,
    private readonly registry: LocalStoreRegistry,
    private readonly signer: UrlSigner,
    private readonly publicUrl: string,
    private readonly now: () => number,
  ) {
    this.objects = new LocalObjects(path.join(root, 'objects'), path.join(root, 'tmp'));
    this.multipart = path.join(root, 'multipart');
  }

  private uploadDir(uploadId: string): string {
    if (!/^[A-Za-z0-9_-]{16,64}$/.test(uploadId)) throw new StoreError('Malformed upload id', 'NoSuchUpload', 404);
    return path.join(this.multipart, uploadId);
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
    const tmp = await this.objects.tempPath();
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
      await pipeline(body, meter, createWriteStream(tmp, { highWaterMark: 1 << 20 }));
      await fsyncPath(tmp);
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
    // As S3: an upload that is gone (completed by a concurrent or interrupted call, or aborted) is NoSuchUpload,
    // so the caller can tell it from a bad parts list and carry on when the object is already whole.
    const gone = () => new StoreError('The upload does not exist, was aborted or is already completed', 'NoSuchUpload', 404);
    if (!(await isDirectory(dir))) throw gone();
    const files = [];
    for (const part of parts) {
      const file = path.join(dir, `${part.PartNumber}-${normalizeEtag(part.ETag)}`);
      try {
        files.push({ path: file, size: (await stat(file)).size });
      } catch {
        if (!(await isDirectory(dir))) throw gone();
        throw new StoreError(`Part ${part.PartNumber} was not uploaded with ETag ${part.ETag}`, 'InvalidPart', 400);
      }
    }
    try {
      await this.objects.publish(key, files, 'link');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' && !(await isDirectory(dir))) throw gone();
      throw err;
    }
    await this.retire(dir);
  }

  async abortMultipartUpload(_key: string, uploadId: string): Promise<void> {
    await this.retire(this.uploadDir(uploadId));
  }

  /** Removes an upload's directory in one step (rename aside, then delete), so no caller sees it half gone. */
  private async retire(dir: string): Promise<void> {
    const trash = await this.objects.tempPath();
    try {
      await rename(dir, trash);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    await rm(trash, { recursive: true, force: true });
  }

  async putFile(key: string, filePath: string, _contentType?: string, options: { unchanging?: boolean } = {}): Promise<void> {
    // Our own name for the file first: the caller keeps (and later removes) its file. A file that will not change
    // (a spooled upload) is hard-linked: no byte is copied, which for many small files is most of the disk work;
    // another file system (EXDEV) or one without hard links gets a copy.
    const tmp = await this.objects.tempPath();
    if (!(options.unchanging && (await linked(filePath, tmp)))) await pipeline(createReadStream(filePath), createWriteStream(tmp));
    await fsyncPath(tmp);
    await this.objects.publish(key, [{ path: tmp, size: (await stat(tmp)).size }], 'move');
  }

  copy(source: string, target: string): Promise<void> {
    return this.objects.copy(source, target);
  }

  async head(key: string): Promise<ObjectInfo | undefined> {
    const size = await this.objects.size(key);
    return size === undefined ? undefined : { size, contentType: undefined };
  }

  read(key: string, range?: ByteRange): Promise<ObjectBody> {
    return this.objects.read(key, range);
  }

  delete(key: string): Promise<void> {
    return this.objects.delete(key);
  }

  async getCorsRules(): Promise<CorsRule[]> {
    return (await this.registry.getCorsRules()) ?? DEFAULT_CORS_RULES;
  }

  putCorsRules(rules: CorsRule[]): Promise<void> {
    return this.registry.putCorsRules(rules);
  }
}
