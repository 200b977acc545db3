import type { Readable } from 'node:stream';
import type { CorsRule, StoredPart } from '../domain/object-parts.js';

export type { CorsRule, StoredPart };

/** seed 2.3: AllowedMethods GET, POST, PUT, DELETE; AllowedOrigins *; AllowedHeaders *; ExposeHeaders ETAG. */
export const DEFAULT_CORS_RULES: CorsRule[] = [
  { AllowedMethods: ['GET', 'POST', 'PUT', 'DELETE'], AllowedOrigins: ['*'], AllowedHeaders: ['*'], ExposeHeaders: ['ETag'] },
];

export interface ObjectInfo {
  size: number;
  contentType: string | undefined;
  /** The store's ETag, quotes removed (S3); undefined where the store has none to tell (local). */
  etag?: string;
}

/** An object as a listing names it. */
export interface ListedObject {
  key: string;
  size: number;
  /** When it was written, Unix seconds. */
  modifiedAt: number;
}

export interface ByteRange {
  start: number;
  /** Inclusive. */
  end: number;
}

export interface ObjectBody {
  stream: Readable;
  size: number;
}

/**
 * The one small interface both stores implement (local disk, S3-compatible).
 * Keys are already validated and workspace-scoped by the caller.
 */
export interface ObjectStore {
  readonly kind: 'local' | 's3';
  /** Starts a multipart upload and returns the store's upload id. */
  createMultipartUpload(key: string, contentType: string): Promise<string>;
  /** A URL the client PUTs one part to, valid for `expiresIn` seconds. */
  partUploadUrl(key: string, uploadId: string, partNumber: number, expiresIn: number): Promise<string>;
  listParts(key: string, uploadId: string): Promise<StoredPart[]>;
  /** Joins the parts into the object; atomic: afterwards the object is whole or absent. */
  completeMultipartUpload(key: string, uploadId: string, parts: { PartNumber: number; ETag: string }[]): Promise<void>;
  abortMultipartUpload(key: string, uploadId: string): Promise<void>;
  /**
   * Writes a whole object from a local file (server-side uploads, renditions). `unchanging`: the caller never writes
   * to the file again (it only removes it), so the local store may hard-link it rather than copy its bytes.
   */
  putFile(key: string, filePath: string, contentType: string, options?: { unchanging?: boolean }): Promise<void>;
  /** A new object at `target` with the bytes of `source` (restoring a version gives it a key of its own). */
  copy(source: string, target: string): Promise<void>;
  head(key: string): Promise<ObjectInfo | undefined>;
  /** Reads the object, or the inclusive byte range of it. */
  read(key: string, range?: ByteRange): Promise<ObjectBody>;
  delete(key: string): Promise<void>;
  /**
   * Every whole object whose key starts with `prefix`, page by page (bounded memory, in no promised order).
   * Multipart uploads in progress are not objects yet and are not listed. For checks (`npm run admin -- verify`).
   */
  listKeys(prefix: string): AsyncIterable<ListedObject>;
  getCorsRules(): Promise<CorsRule[]>;
  putCorsRules(rules: CorsRule[]): Promise<void>;
  /**
   * Whether the store is there and answers (GET /readyz, issue #37): one cheap request or file-system call, given up
   * after `timeoutMs`. Throws a StoreError that is `unavailable` when the store did not answer or failed.
   */
  probe(timeoutMs: number): Promise<void>;
}

/**
 * Thrown by a store when the provider fails; answered as S3_ERROR (502), STORAGE_UNAVAILABLE (503, `unavailable`) or
 * mapped by the caller (src/faults/classify.ts, storeFailure).
 */
export class StoreError extends Error {
  constructor(
    message: string,
    /** The provider's own code, e.g. NoSuchUpload, InvalidPart, EntityTooSmall. */
    readonly providerCode: string | undefined,
    /** The provider's HTTP status; undefined when no answer came (refused, reset, timed out). */
    readonly httpStatus: number | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StoreError';
  }

  /** The store is down, overloaded (5xx, SlowDown) or did not answer in time, after the SDK's retries (issue #37). */
  get unavailable(): boolean {
    return this.httpStatus === undefined || this.httpStatus >= 500;
  }
}
