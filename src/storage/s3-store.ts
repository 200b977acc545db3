import { createReadStream } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetBucketCorsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  PutBucketCorsCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { StorageConfig } from '../config.js';
import { GuardedBody } from './body-guard.js';
import { StoreError, type ByteRange, type CorsRule, type ListedObject, type ObjectBody, type ObjectInfo, type ObjectStore, type StoredPart } from './object-store.js';

type S3Config = Extract<StorageConfig, { kind: 's3' }>;

/** Told when an object's body fails after its answer began (reset, stalled, cut short): the store is failing. */
export type BodyFailureListener = (err: StoreError) => void;

/** The largest object one CopyObject call copies. */
const MAX_COPY_SIZE = 5 * 1024 ** 3;

/** A provider failure as a StoreError that keeps S3's own error code. */
function storeError(what: string, err: unknown): StoreError {
  if (err instanceof S3ServiceException) {
    return new StoreError(`${what}: ${err.name}: ${err.message}`, err.name, err.$metadata.httpStatusCode, { cause: err });
  }
  // No answer: refused, reset, or past the request timeout (issue #37: unavailable).
  return new StoreError(`${what}: ${err instanceof Error ? err.message : String(err)}`, undefined, undefined, { cause: err });
}

async function call<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw storeError(what, err);
  }
}

/**
 * Any S3-compatible store (AWS S3, MinIO, Ceph, R2) through the AWS SDK v3.
 *
 * A store that errs or stalls (issue #37) costs a bounded time: every request is tried DAM_S3_MAX_ATTEMPTS times
 * at most, with the SDK's exponential backoff and jitter and its retry quota (`standard` or `adaptive` mode), each
 * attempt given DAM_S3_CONNECT_TIMEOUT to connect and cut after DAM_S3_REQUEST_TIMEOUT without a byte; then it
 * fails as a StoreError without a status (`unavailable`: 503 STORAGE_UNAVAILABLE, a job postponed). Connections are
 * kept alive and bounded (DAM_S3_MAX_SOCKETS, shared by both clients below).
 *
 * Two clients, because one timeout cannot fit both kinds of request: `client` cuts a socket idle for the request
 * timeout (the SDK's socketTimeout: a stall while sending, waiting or reading an XML answer); `reader` serves the
 * object bodies we stream to clients, where an idle socket may only mean that our own client reads slowly, so it
 * bounds the time to the answer's headers (requestTimeout) and leaves the body to GuardedBody, whose clock runs only
 * while the reader waits for the store.
 */
export class S3Store implements ObjectStore {
  readonly kind = 's3' as const;
  private readonly client: S3Client;
  private readonly reader: S3Client;
  private readonly bucket: string;
  private readonly bodyIdleMs: number;

  constructor(
    config: S3Config,
    private readonly bodyFailed?: BodyFailureListener,
  ) {
    this.bucket = config.bucket;
    const { maxAttempts, retryMode, connectTimeoutMs, requestTimeoutMs, maxSockets } = config.client;
    this.bodyIdleMs = requestTimeoutMs;
    // Our own agents (the SDK's default is 50 sockets per client, and an unbounded one for Expect: 100-continue).
    const agents = { http: new http.Agent({ keepAlive: true, maxSockets }), https: new https.Agent({ keepAlive: true, maxSockets }) };
    const common = {
      region: config.region,
      endpoint: config.endpoint,
      forcePathStyle: config.forcePathStyle,
      credentials:
        config.accessKeyId && config.secretAccessKey
          ? { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey }
          : undefined,
      // Checksums only where S3 requires them: many S3-compatible stores reject the newer defaults.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts,
      retryMode,
    } as const;
    const handler = { connectionTimeout: connectTimeoutMs, httpAgent: agents.http, httpsAgent: agents.https };
    this.client = new S3Client({ ...common, requestHandler: { ...handler, socketTimeout: requestTimeoutMs } });
    this.reader = new S3Client({
      ...common,
      // throwOnRequestTimeout: without it the SDK only logs a warning when requestTimeout passes.
      requestHandler: { ...handler, requestTimeout: requestTimeoutMs, throwOnRequestTimeout: true, socketTimeout: 0 },
    });
  }

  async createMultipartUpload(key: string, contentType: string): Promise<string> {
    const out = await call('CreateMultipartUpload', () =>
      this.client.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: key, ContentType: contentType })),
    );
    if (!out.UploadId) throw new StoreError('CreateMultipartUpload returned no UploadId', undefined, 200);
    return out.UploadId;
  }

  partUploadUrl(key: string, uploadId: string, partNumber: number, expiresIn: number): Promise<string> {
    return call('presign UploadPart', () =>
      getSignedUrl(this.client, new UploadPartCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId, PartNumber: partNumber }), {
        expiresIn,
      }),
    );
  }

  async listParts(key: string, uploadId: string): Promise<StoredPart[]> {
    const parts: StoredPart[] = [];
    let marker: string | undefined;
    do {
      const page = await call('ListParts', () =>
        this.client.send(new ListPartsCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId, PartNumberMarker: marker })),
      );
      for (const p of page.Parts ?? []) parts.push({ PartNumber: p.PartNumber ?? 0, ETag: p.ETag ?? '', Size: p.Size ?? 0 });
      marker = page.IsTruncated ? page.NextPartNumberMarker : undefined;
    } while (marker);
    return parts;
  }

  async completeMultipartUpload(key: string, uploadId: string, parts: { PartNumber: number; ETag: string }[]): Promise<void> {
    await call('CompleteMultipartUpload', () =>
      this.client.send(
        new CompleteMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId, MultipartUpload: { Parts: parts } }),
      ),
    );
  }

  async abortMultipartUpload(key: string, uploadId: string): Promise<void> {
    await call('AbortMultipartUpload', () =>
      this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId })),
    );
  }

  async putFile(key: string, filePath: string, contentType: string): Promise<void> {
    // lib-storage splits large files into a multipart upload with bounded memory.
    await call('PutObject', () =>
      new Upload({ client: this.client, params: { Bucket: this.bucket, Key: key, Body: createReadStream(filePath), ContentType: contentType } }).done(),
    );
  }

  async copy(source: string, target: string): Promise<void> {
    const info = await this.head(source);
    if (!info) throw new StoreError(`No object ${source}`, 'NoSuchKey', 404);
    if (info.size <= MAX_COPY_SIZE) {
      // CopySource is "bucket/key", URL-encoded segment by segment (the slashes stay).
      const copySource = `${this.bucket}/${source.split('/').map(encodeURIComponent).join('/')}`;
      await call('CopyObject', () => this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key: target, CopySource: copySource })));
      return;
    }
    // CopyObject stops at 5 GiB: larger objects are streamed through this process.
    const body = await this.read(source);
    await call('PutObject', () =>
      new Upload({ client: this.client, params: { Bucket: this.bucket, Key: target, Body: body.stream, ContentType: info.contentType } }).done(),
    );
  }

  async head(key: string): Promise<ObjectInfo | undefined> {
    try {
      const out = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { size: out.ContentLength ?? 0, contentType: out.ContentType, etag: out.ETag?.replace(/"/g, '') };
    } catch (err) {
      if (err instanceof S3ServiceException && (err.name === 'NotFound' || err.$metadata.httpStatusCode === 404)) return undefined;
      throw storeError('HeadObject', err);
    }
  }

  async read(key: string, range?: ByteRange): Promise<ObjectBody> {
    const out = await call('GetObject', () =>
      this.reader.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
      ),
    );
    const total = out.ContentRange ? Number(out.ContentRange.split('/')[1]) : (out.ContentLength ?? 0);
    const stream = new GuardedBody(out.Body as Readable, {
      idleMs: this.bodyIdleMs,
      expected: out.ContentLength,
      fail: (cause) => {
        const err = storeError(`GetObject ${key} body`, cause);
        this.bodyFailed?.(err);
        return err;
      },
    });
    return { stream, size: total };
  }

  async delete(key: string): Promise<void> {
    await call('DeleteObject', () => this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key })));
  }

  /** ListObjectsV2, a page (up to 1,000 keys) at a time. */
  async *listKeys(prefix: string): AsyncGenerator<ListedObject> {
    let token: string | undefined;
    do {
      const page = await call('ListObjectsV2', () =>
        this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix || undefined, ContinuationToken: token })),
      );
      for (const o of page.Contents ?? []) {
        if (o.Key !== undefined) yield { key: o.Key, size: o.Size ?? 0, modifiedAt: Math.floor((o.LastModified?.getTime() ?? 0) / 1000) };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async getCorsRules(): Promise<CorsRule[]> {
    try {
      const out = await this.client.send(new GetBucketCorsCommand({ Bucket: this.bucket }));
      return (out.CORSRules ?? []).map((r) => ({
        AllowedMethods: r.AllowedMethods ?? [],
        AllowedOrigins: r.AllowedOrigins ?? [],
        AllowedHeaders: r.AllowedHeaders,
        ExposeHeaders: r.ExposeHeaders,
        MaxAgeSeconds: r.MaxAgeSeconds,
      }));
    } catch (err) {
      // A bucket without CORS configuration answers NoSuchCORSConfiguration: that is "no rules".
      if (err instanceof S3ServiceException && err.name === 'NoSuchCORSConfiguration') return [];
      throw storeError('GetBucketCors', err);
    }
  }

  async putCorsRules(rules: CorsRule[]): Promise<void> {
    await call('PutBucketCors', () =>
      this.client.send(new PutBucketCorsCommand({ Bucket: this.bucket, CORSConfiguration: { CORSRules: rules } })),
    );
  }

  /** HeadBucket, aborted after `timeoutMs` (a stalled store must not hold /readyz). */
  async probe(timeoutMs: number): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }), { abortSignal: AbortSignal.timeout(timeoutMs) });
    } catch (err) {
      // 403: the store answered; the credentials may lack s3:ListBucket, which HeadBucket needs and objects do not.
      if (err instanceof S3ServiceException && err.$metadata.httpStatusCode === 403) return;
      throw storeError('HeadBucket', err);
    }
  }
}
