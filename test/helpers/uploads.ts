import { existsSync } from 'node:fs';
import path from 'node:path';
import { CreateBucketCommand, HeadObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import type { LightMyRequestResponse } from 'fastify';
import S3rver from 's3rver';
import sharp from 'sharp';
import { expect } from 'vitest';
import { s3ClientSettings, type AppConfig, type StorageConfig } from '../../src/config.js';
import type { DatabaseHandle } from '../../src/db/database.js';
import type { DialectName } from '../../src/db/dialects/types.js';
import { startHttpTestApp, type TestApp } from './app.js';
import { tempDir } from './databases.js';
import type { Account } from './factories.js';

/** Shared flow helpers of the object-storage suites (test/storage-*.test.ts). */

export type StoreKind = 'local' | 's3';
export const STORE_KINDS: StoreKind[] = ['local', 's3'];

type S3Storage = Extract<StorageConfig, { kind: 's3' }>;

export function s3Storage(endpoint: string, bucket: string): S3Storage {
  return { kind: 's3', bucket, endpoint, region: 'us-east-1', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', forcePathStyle: true, client: s3ClientSettings({}) };
}

export function s3Client(storage: S3Storage): S3Client {
  return new S3Client({
    region: storage.region,
    endpoint: storage.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
}

export interface S3Server {
  endpoint: string;
  /** A storage config on a fresh bucket: every app gets its own, since keys restart with every database. */
  newBucket(): Promise<S3Storage>;
  close(): Promise<void>;
}

let buckets = 0;

/** s3rver 3.7.1 on 127.0.0.1, an ephemeral port and a temporary directory, with the bucket `dam-test` configured. */
export async function startS3Server(): Promise<S3Server> {
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory: tempDir('dam-s3rver-'),
    silent: true,
    configureBuckets: [{ name: 'dam-test' }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    newBucket: async () => {
      buckets += 1;
      const storage = s3Storage(endpoint, `dam-test-${process.pid}-${buckets}`);
      const client = s3Client(storage);
      await client.send(new CreateBucketCommand({ Bucket: storage.bucket }));
      client.destroy();
      return storage;
    },
    close: () => server.close(),
  };
}

export type StorageTestApp = TestApp & { baseUrl: string };

/**
 * An app listening on a real port (clients follow the part URLs it hands out), on the given store.
 * Small parts are allowed (minPartSize 5 bytes) unless the config says otherwise.
 */
export async function startStorageApp(
  kind: StoreKind,
  s3: S3Server | undefined,
  options: { dialect?: DialectName; config?: Partial<AppConfig>; database?: DatabaseHandle; logStream?: { write(line: string): void } } = {},
): Promise<StorageTestApp> {
  let storage: StorageConfig = { kind: 'local' };
  if (kind === 's3') {
    if (!s3) throw new Error('the s3 store needs a running s3rver');
    storage = await s3.newBucket();
  }
  return startHttpTestApp({ ...options, config: { minPartSize: 5, storage, ...options.config } });
}

export interface UploadRef {
  uploadId: string;
  assetId: number;
  workspaceId: number;
}

export interface Part {
  PartNumber: number;
  ETag: string;
}

export const keyOf = (ref: { workspaceId: number; assetId: number }): string => `${ref.workspaceId}/digital_assets/${ref.assetId}`;

/** `UploadId=&assetId=&workspaceId=` of list-parts, abort-upload (and get-upload-url, with PartNumber). */
export const refQuery = (ref: UploadRef): string =>
  new URLSearchParams({ UploadId: ref.uploadId, assetId: String(ref.assetId), workspaceId: String(ref.workspaceId) }).toString();

export function startUploadRequest(t: TestApp, who: Account, query: Record<string, string | number>): Promise<LightMyRequestResponse> {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
  return t.request({ method: 'GET', url: `/storage/start-upload?${qs.toString()}`, token: who.token });
}

export async function startUpload(
  t: TestApp,
  who: Account,
  opts: { workspaceId?: number; fileType?: string; fileName?: string } = {},
): Promise<UploadRef> {
  const workspaceId = opts.workspaceId ?? who.workspaceId;
  const query: Record<string, string | number> = { workspaceId, fileType: opts.fileType ?? 'application/octet-stream' };
  if (opts.fileName !== undefined) query.fileName = opts.fileName;
  const res = await startUploadRequest(t, who, query);
  if (res.statusCode !== 200) throw new Error(`start-upload answered ${res.statusCode} ${res.body}`);
  const body = res.json<{ uploadId: string; assetId: number }>();
  return { uploadId: body.uploadId, assetId: body.assetId, workspaceId };
}

export function partUrlRequest(t: TestApp, who: Account, ref: UploadRef, partNumber: number | string): Promise<LightMyRequestResponse> {
  return t.request({ method: 'GET', url: `/storage/get-upload-url?PartNumber=${partNumber}&${refQuery(ref)}`, token: who.token });
}

export async function partUrl(t: TestApp, who: Account, ref: UploadRef, partNumber: number): Promise<string> {
  const res = await partUrlRequest(t, who, ref, partNumber);
  if (res.statusCode !== 200) throw new Error(`get-upload-url answered ${res.statusCode} ${res.body}`);
  const body = res.json<{ url: string; expiresIn: number }>();
  expect(body.expiresIn).toBe(3600);
  return body.url;
}

/** PUTs bytes to a part URL as a browser would: plain fetch, no Authorization header. */
export function putPart(url: string, bytes: Uint8Array, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'PUT', body: bytes, headers });
}

/** Gets a URL for the part, PUTs it, checks the 200 and returns the part with its ETag. */
export async function uploadPart(t: TestApp, who: Account, ref: UploadRef, partNumber: number, bytes: Uint8Array): Promise<Part> {
  const res = await putPart(await partUrl(t, who, ref, partNumber), bytes);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`part ${partNumber} PUT answered ${res.status} ${text}`);
  const etag = res.headers.get('etag');
  expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
  return { PartNumber: partNumber, ETag: etag! };
}

/** Uploads chunk i as part i + 1. */
export async function uploadParts(t: TestApp, who: Account, ref: UploadRef, chunks: Uint8Array[]): Promise<Part[]> {
  const parts: Part[] = [];
  for (const [i, chunk] of chunks.entries()) parts.push(await uploadPart(t, who, ref, i + 1, chunk));
  return parts;
}

export function splitBytes(bytes: Buffer, partSize: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += partSize) chunks.push(bytes.subarray(at, at + partSize));
  return chunks;
}

export function completeRequest(t: TestApp, who: Account, ref: UploadRef, parts: Part[]): Promise<LightMyRequestResponse> {
  return t.request({
    method: 'POST',
    url: '/storage/complete-upload',
    token: who.token,
    payload: { uploadId: ref.uploadId, assetId: ref.assetId, workspaceId: ref.workspaceId, parts },
  });
}

export interface CompleteAnswer {
  success: boolean;
  location: string;
  key: string;
}

/** The whole flow: start, upload the bytes in parts of `partSize`, complete. */
export async function uploadFile(
  t: TestApp,
  who: Account,
  bytes: Buffer,
  opts: { workspaceId?: number; fileType?: string; fileName?: string; partSize?: number } = {},
): Promise<{ ref: UploadRef; parts: Part[]; answer: CompleteAnswer }> {
  const ref = await startUpload(t, who, opts);
  const parts = await uploadParts(t, who, ref, splitBytes(bytes, opts.partSize ?? Math.max(5, Math.ceil(bytes.length / 2))));
  const res = await completeRequest(t, who, ref, parts);
  if (res.statusCode !== 200) throw new Error(`complete-upload answered ${res.statusCode} ${res.body}`);
  return { ref, parts, answer: res.json<CompleteAnswer>() };
}

export function listPartsRequest(t: TestApp, who: Account, ref: UploadRef): Promise<LightMyRequestResponse> {
  return t.request({ method: 'GET', url: `/storage/list-parts?${refQuery(ref)}`, token: who.token });
}

export function downloadRequest(
  t: TestApp,
  who: Account,
  key: string,
  workspaceId: number,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  const qs = new URLSearchParams({ key, workspaceId: String(workspaceId) });
  return t.request({ method: 'GET', url: `/storage/download?${qs.toString()}`, token: who.token, headers });
}

export function deleteRequest(t: TestApp, who: Account, key: string, workspaceId: number): Promise<LightMyRequestResponse> {
  const qs = new URLSearchParams({ key, workspaceId: String(workspaceId) });
  return t.request({ method: 'DELETE', url: `/storage/delete?${qs.toString()}`, token: who.token });
}

/** Whether the store holds an object under `key`: on disk for the local store, HeadObject on the bucket for S3. */
export async function objectExists(t: TestApp, key: string): Promise<boolean> {
  const storage = t.config.storage;
  // Local layout: each object is a directory <key>.obj/ with a manifest (src/storage/local-objects.ts).
  if (storage.kind === 'local') return existsSync(path.join(t.config.dataDir, 'storage', 'objects', `${key}.obj`, 'manifest.json'));
  const client = s3Client(storage);
  try {
    await client.send(new HeadObjectCommand({ Bucket: storage.bucket, Key: key }));
    return true;
  } catch (err) {
    if (err instanceof S3ServiceException && err.$metadata.httpStatusCode === 404) return false;
    throw err;
  } finally {
    client.destroy();
  }
}

export interface AssetJson {
  id: number;
  workspace_id: number;
  file_name: string;
  file_type: string;
  mime_type: string;
  file_size: number;
  width: number | null;
  height: number | null;
  orientation: string | null;
}

export async function getAsset(t: TestApp, who: Account, id: number): Promise<LightMyRequestResponse> {
  return t.request({ method: 'GET', url: `/dam/assets/${id}`, token: who.token });
}

/** The ready assets of a workspace, as the catalog lists them. */
export async function listAssets(t: TestApp, who: Account, workspaceId: number): Promise<AssetJson[]> {
  const res = await t.request({ method: 'GET', url: `/dam/assets?workspaceId=${workspaceId}`, token: who.token });
  if (res.statusCode !== 200) throw new Error(`GET /dam/assets answered ${res.statusCode} ${res.body}`);
  return res.json<{ data: { items: AssetJson[] } }>().data.items;
}

/** Asserts the seed 7.1 error body `{ error, code }` and the status. */
export function expectError(res: LightMyRequestResponse | { statusCode: number; json: () => unknown }, status: number, code: string, mentions?: string): void {
  const body = res.json() as { error?: unknown; code?: unknown };
  expect({ status: res.statusCode, code: body.code }).toEqual({ status, code });
  expect(typeof body.error).toBe('string');
  if (mentions !== undefined) expect(body.error).toContain(mentions);
}

/** A real JPEG: noise, so it is tens of kilobytes and splits into several parts; optional EXIF orientation. */
export function makeJpeg(width: number, height: number, orientation?: number): Promise<Buffer> {
  const image = sharp({ create: { width, height, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 40 } } });
  return (orientation ? image.withMetadata({ orientation }) : image).jpeg({ quality: 90 }).toBuffer();
}
