import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { access, constants, link, mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DEFAULT_CORS_RULES, StoreError, type ByteRange, type CorsRule, type ListedObject, type ObjectBody, type ObjectInfo, type ObjectStore, type StoredPart } from './object-store.js';
import { fsyncPath, LocalObjects } from './local-objects.js';
import { Md5Threads } from './md5-threads.js';
import type { UrlSigner } from './signed-url.js';

/** A part as recorded, with the file of its current body in the upload's directory (null: `<n>-<md5>`, an older layout). */
export interface LocalPart extends StoredPart {
  file: string | null;
}

/** Where the local store keeps what S3 would keep: parts and CORS rules. The app backs it with the database. */
export interface LocalStoreRegistry {
  /** Records the part's body in `file`; answers the part it replaced (atomically: each predecessor answered once). */
  recordPart(uploadId: string, part: StoredPart, file: string): Promise<LocalPart | undefined>;
  listParts(uploadId: string): Promise<LocalPart[]>;
  getCorsRules(): Promise<CorsRule[] | undefined>;
  putCorsRules(rules: CorsRule[]): Promise<void>;
}

/** S3's largest part. */
export const MAX_PART_SIZE = 5 * 1024 ** 3;

/** Part ETags are hashed off the event loop, on threads every store of the process shares. */
const md5Threads = new Md5Threads();

async function isDirectory(dir: string): Promise<boolean> {
  return stat(dir).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

export const normalizeEtag = (etag: string): string => etag.replace(/^W\//, '').replace(/"/g, '');

/** The file of a recorded part's body. */
const partFile = (part: LocalPart): string => part.file ?? `${part.PartNumber}-${normalizeEtag(part.ETag)}`;

/**
 * The request body's chunks, failing once more than `maxBytes` have come: the chunk that would pass the
 * bound is never written. The body is not destroyed on the way out (that would reset the connection before
 * the 413 is answered); the route closes the connection with its answer instead.
 */
async function* bounded(body: Readable, maxBytes: number, seen: (chunk: Buffer) => Promise<void> | undefined): AsyncGenerator<Buffer> {
  let size = 0;
  for await (const chunk of body.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw new StoreError(`The part is larger than the ${maxBytes} bytes it may hold`, 'EntityTooLarge', 413);
    const wait = seen(chunk);
    if (wait) await wait;
    yield chunk;
  }
}

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
 * multipart parts under `<root>/multipart/<uploadId>/<n>-<md5>-<nonce>`. A part is
 * streamed to a temporary file, fsynced (an ETag answered is a part kept) and
 * renamed into place under a name of its own; the registry then records that file
 * as the part's body and answers the one it replaced, which is removed. So a part
 * number holds one body on disk however often it is PUT (concurrently too), and the
 * recorded ETag always names the bytes of the recorded file.
 */
export class LocalStore implements ObjectStore {
  readonly kind = 'local' as const;
  private readonly objects: LocalObjects;
  private readonly objectsDir: string;
  private readonly multipart: string;

  constructor(
    root: string,
    private readonly registry: LocalStoreRegistry,
    private readonly signer: UrlSigner,
    private readonly publicUrl: string,
    private readonly now: () => number,
  ) {
    this.objectsDir = path.join(root, 'objects');
    this.objects = new LocalObjects(this.objectsDir, path.join(root, 'tmp'));
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
   * Streams one part to disk while a thread hashes it (./md5-threads.ts); never holds a whole part in memory, never writes more than
   * `maxBytes` (EntityTooLarge, 413, past it). Returns the part as recorded; the body it replaced is removed.
   */
  async writePart(uploadId: string, partNumber: number, body: Readable, maxBytes = MAX_PART_SIZE): Promise<StoredPart> {
    const dir = this.uploadDir(uploadId);
    try {
      await stat(dir);
    } catch {
      throw new StoreError('The upload does not exist or was aborted', 'NoSuchUpload', 404);
    }
    const tmp = await this.objects.tempPath();
    const md5 = md5Threads.body();
    let size = 0;
    const count = (chunk: Buffer) => {
      size += chunk.length;
      return md5.update(chunk);
    };
    let placed: string | undefined;
    try {
      await pipeline(bounded(body, Math.min(maxBytes, MAX_PART_SIZE), count), createWriteStream(tmp, { highWaterMark: 1 << 20 }));
      // The last slabs are hashed while the part is fsynced: it is on disk before its ETag is answered.
      const [etag] = await Promise.all([md5.digest(), fsyncPath(tmp)]);
      const file = `${partNumber}-${etag}-${randomBytes(6).toString('hex')}`;
      await rename(tmp, path.join(dir, file));
      placed = file;
      const part = { PartNumber: partNumber, ETag: `"${etag}"`, Size: size };
      const replaced = await this.registry.recordPart(uploadId, part, file);
      // Only after the new body is recorded: until then the old one is the part.
      if (replaced) await rm(path.join(dir, partFile(replaced)), { force: true });
      return part;
    } catch (err) {
      md5.discard();
      await rm(tmp, { force: true });
      // Not recorded (the upload went away meanwhile): the file is nobody's part.
      if (placed) await rm(path.join(dir, placed), { force: true });
      throw err;
    }
  }

  async listParts(_key: string, uploadId: string): Promise<StoredPart[]> {
    return (await this.registry.listParts(uploadId)).map((p) => ({ PartNumber: p.PartNumber, ETag: p.ETag, Size: p.Size }));
  }

  async completeMultipartUpload(key: string, uploadId: string, parts: { PartNumber: number; ETag: string }[]): Promise<void> {
    const dir = this.uploadDir(uploadId);
    // As S3: an upload that is gone (completed by a concurrent or interrupted call, or aborted) is NoSuchUpload,
    // so the caller can tell it from a bad parts list and carry on when the object is already whole.
    const gone = () => new StoreError('The upload does not exist, was aborted or is already completed', 'NoSuchUpload', 404);
    if (!(await isDirectory(dir))) throw gone();
    const recorded = new Map((await this.registry.listParts(uploadId)).map((p) => [p.PartNumber, p]));
    const files = [];
    for (const part of parts) {
      const stored = recorded.get(part.PartNumber);
      const wrong = () => new StoreError(`Part ${part.PartNumber} was not uploaded with ETag ${part.ETag}`, 'InvalidPart', 400);
      if (!stored || normalizeEtag(stored.ETag) !== normalizeEtag(part.ETag)) throw wrong();
      const file = path.join(dir, partFile(stored));
      try {
        files.push({ path: file, size: (await stat(file)).size });
      } catch {
        if (!(await isDirectory(dir))) throw gone();
        throw wrong();
      }
    }
    try {
      await this.objects.publish(key, files, 'link');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      if (!(await isDirectory(dir))) throw gone();
      // A part PUT again while completing replaced (and removed) the body listed: the parts list is stale.
      throw new StoreError('A part was uploaded again while the upload was being completed; list the parts and complete again', 'InvalidPart', 400);
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

  listKeys(prefix: string): AsyncIterable<ListedObject> {
    return this.objects.list(prefix);
  }

  async getCorsRules(): Promise<CorsRule[]> {
    return (await this.registry.getCorsRules()) ?? DEFAULT_CORS_RULES;
  }

  putCorsRules(rules: CorsRule[]): Promise<void> {
    return this.registry.putCorsRules(rules);
  }

  /**
   * The objects directory is there (made as the first upload would make it) and this process may read and write it:
   * a mount that went away or turned read-only fails. File-system calls take no timeout; the caller bounds the wait.
   */
  async probe(): Promise<void> {
    try {
      await mkdir(this.objectsDir, { recursive: true });
      await access(this.objectsDir, constants.R_OK | constants.W_OK | constants.X_OK);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'unknown';
      throw new StoreError(`The objects directory ${this.objectsDir} is not usable (${code})`, code, undefined, { cause: err });
    }
  }
}
