import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { NoSuchUpload, S3Client, S3ServiceException, UploadPartCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePlans } from '../src/payments/plans.js';
import { registerUser, type Account } from './helpers/factories.js';
import { startFakeStripe, type FakeStripe } from './helpers/fake-stripe.js';
import { expectS3Error } from './helpers/s3-errors.js';
import {
  completeRequest,
  expectError,
  listPartsRequest,
  partUrl,
  putPart,
  refQuery,
  startStorageApp,
  startUpload,
  uploadPart,
  type StorageTestApp,
  type UploadRef,
} from './helpers/uploads.js';

/**
 * Issue #38: the local store's presigned part URLs speak S3's protocol for failure too. Every refusal is an S3
 * error document (application/xml) with S3's code and status, readable cross-origin, and the AWS SDK's own
 * response parsing recognises it; the rest of the API keeps its JSON.
 */

const ORIGIN = 'https://uploader.example';
const iso = (unix: number) => new Date(unix * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * The AWS SDK v3's UploadPart sent to one of this service's presigned part URLs instead of a bucket's: the request
 * is rewritten to the URL after the SDK built and signed it (the URL is the credential), and the answer goes
 * through the SDK's own parsing, errors included.
 */
async function sdkUploadPart(url: string, body: Buffer) {
  const target = new URL(url);
  const client = new S3Client({
    region: 'us-east-1',
    endpoint: target.origin,
    forcePathStyle: true,
    credentials: { accessKeyId: 'unused', secretAccessKey: 'unused' },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    maxAttempts: 1,
  });
  client.middlewareStack.add(
    (next) => (args) => {
      const request = (args as { request: { path: string; query: Record<string, string>; headers: Record<string, string> } }).request;
      request.path = target.pathname;
      request.query = Object.fromEntries(target.searchParams);
      for (const name of Object.keys(request.headers)) if (/^(authorization|x-amz-)/i.test(name)) delete request.headers[name];
      return next(args);
    },
    { step: 'deserialize', priority: 'low', name: 'toPresignedPartUrl' },
  );
  try {
    return await client.send(new UploadPartCommand({ Bucket: 'dam', Key: 'object', UploadId: 'by-url', PartNumber: 1, Body: body }));
  } finally {
    client.destroy();
  }
}

async function sdkError(url: string, body: Buffer): Promise<S3ServiceException> {
  const err: unknown = await sdkUploadPart(url, body).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(S3ServiceException);
  return err as S3ServiceException;
}

describe('S3 error answers of the local part URL', () => {
  let t: StorageTestApp;
  let owner: Account;

  beforeAll(async () => {
    // Sessions outlive the clock moves below.
    t = await startStorageApp('local', undefined, { config: { maxFileSize: 100, uploadMaxLifetime: 7200, sessionTtl: 30 * 86_400 } });
    owner = await registerUser(t);
  });
  afterAll(() => t.close());

  const listed = async (ref: UploadRef) => (await listPartsRequest(t, owner, ref)).json<{ parts: unknown[] }>().parts;

  it('success is unchanged: 200, empty body, the ETag header exposed by the bucket CORS rules; the SDK reads the ETag', async () => {
    const ref = await startUpload(t, owner);
    const url = await partUrl(t, owner, ref, 1);
    const res = await putPart(url, Buffer.from('hello'), { origin: ORIGIN });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
    expect(res.headers.get('etag')).toBe('"5d41402abc4b2a76b9719d911017c592"');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-expose-headers')).toContain('ETag');
    expect((await sdkUploadPart(url, Buffer.from('hello'))).ETag).toBe('"5d41402abc4b2a76b9719d911017c592"');
  });

  it('an expired URL is 403 AccessDenied "Request has expired" with Expires and ServerTime, readable cross-origin', async () => {
    const ref = await startUpload(t, owner);
    const url = await partUrl(t, owner, ref, 1);
    const expires = Number(new URL(url).searchParams.get('expires'));
    t.advanceClock(3601);
    try {
      const res = await putPart(url, Buffer.from('too late'), { origin: ORIGIN });
      const fields = await expectS3Error(res, 403, 'AccessDenied');
      // Word for word: Uppy re-signs on this message alone.
      expect(fields.Message).toBe('Request has expired');
      expect(fields.Expires).toBe(iso(expires));
      expect(Date.parse(fields.ServerTime!) / 1000).toBeGreaterThan(expires);
      expect(Date.parse(fields.ServerTime!) / 1000 - expires).toBeLessThan(10);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(await listed(ref)).toEqual([]);

      const err = await sdkError(url, Buffer.from('too late'));
      expect({ name: err.name, message: err.message, status: err.$metadata.httpStatusCode, fault: err.$fault }).toEqual({
        name: 'AccessDenied',
        message: 'Request has expired',
        status: 403,
        fault: 'client',
      });
      expect(err.$metadata.requestId).toBeTruthy();
      expect((err as unknown as { Expires: string }).Expires).toBe(iso(expires));
    } finally {
      t.advanceClock(-3601);
    }
  });

  it('a tampered, missing or moved signature is 403 SignatureDoesNotMatch', async () => {
    const ref = await startUpload(t, owner);
    const url = new URL(await partUrl(t, owner, ref, 1));
    const signature = url.searchParams.get('signature')!;
    const expires = url.searchParams.get('expires')!;
    const base = `${url.origin}${url.pathname}`;
    const variants: Record<string, string>[] = [{ signature: (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1), expires }, { expires }, {}];
    for (const query of variants) {
      await expectS3Error(await putPart(`${base}?${new URLSearchParams(query).toString()}`, Buffer.from('x'), { origin: ORIGIN }), 403, 'SignatureDoesNotMatch', 'get-upload-url');
    }
    await expectS3Error(await putPart(url.href.replace('/1?', '/2?'), Buffer.from('x')), 403, 'SignatureDoesNotMatch');
    expect((await sdkError(`${base}?expires=${expires}`, Buffer.from('x'))).name).toBe('SignatureDoesNotMatch');
    expect(await listed(ref)).toEqual([]);
  });

  it('a completed or aborted upload is 404 NoSuchUpload naming it; the SDK raises its NoSuchUpload', async () => {
    const done = await startUpload(t, owner);
    const later = await partUrl(t, owner, done, 2);
    const part = await uploadPart(t, owner, done, 1, Buffer.from('only part'));
    expect((await completeRequest(t, owner, done, [part])).statusCode).toBe(200);
    const fields = await expectS3Error(await putPart(later, Buffer.from('late')), 404, 'NoSuchUpload');
    expect(fields.UploadId).toBe(done.uploadId);
    const err = await sdkError(later, Buffer.from('late'));
    expect(err).toBeInstanceOf(NoSuchUpload);
    expect(err.$metadata.httpStatusCode).toBe(404);

    const aborted = await startUpload(t, owner);
    const url = await partUrl(t, owner, aborted, 1);
    expect((await t.request({ method: 'DELETE', url: `/storage/abort-upload?${refQuery(aborted)}`, token: owner.token })).statusCode).toBe(200);
    expect((await expectS3Error(await putPart(url, Buffer.from('x')), 404, 'NoSuchUpload')).UploadId).toBe(aborted.uploadId);
  });

  it('an upload past DAM_UPLOAD_MAX_LIFETIME (410 UPLOAD_EXPIRED on the API) is 404 NoSuchUpload', async () => {
    const ref = await startUpload(t, owner);
    // Asked for late in the upload's lifetime, the URL ends with it: in that last second the URL is still valid, the upload is not.
    t.advanceClock(7100);
    const res = await t.request({ method: 'GET', url: `/storage/get-upload-url?PartNumber=1&${refQuery(ref)}`, token: owner.token });
    t.advanceClock(-7100);
    const { url, expiresIn } = res.json<{ url: string; expiresIn: number }>();
    expect(expiresIn).toBeLessThanOrEqual(100);
    const end = Number(new URL(url).searchParams.get('expires'));
    let answer: Response | undefined;
    // The real clock may pass a second between setting the app's and its answer: then the URL has expired too, and it is tried again.
    for (let attempt = 0; attempt < 3 && answer?.status !== 404; attempt += 1) {
      const offset = end - Math.floor(Date.now() / 1000);
      t.advanceClock(offset);
      answer = await putPart(url, Buffer.from('x'));
      t.advanceClock(-offset);
    }
    expect((await expectS3Error(answer!, 404, 'NoSuchUpload', 'DAM_UPLOAD_MAX_LIFETIME')).UploadId).toBe(ref.uploadId);
    expect(await listed(ref)).toEqual([]);
  });

  it('a part past the upload\'s room (413 on the API) is 400 EntityTooLarge with ProposedSize and MaxSizeAllowed; the connection closes', async () => {
    const ref = await startUpload(t, owner);
    await uploadPart(t, owner, ref, 1, randomBytes(60));
    const res = await putPart(await partUrl(t, owner, ref, 2), randomBytes(41), { origin: ORIGIN });
    const fields = await expectS3Error(res, 400, 'EntityTooLarge', 'DAM_MAX_FILE_SIZE');
    expect({ proposed: fields.ProposedSize, max: fields.MaxSizeAllowed }).toEqual({ proposed: '41', max: '40' });
    expect(res.headers.get('connection')).toBe('close');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(await listed(ref)).toHaveLength(1);
    expect((await sdkError(await partUrl(t, owner, ref, 2), randomBytes(41))).name).toBe('EntityTooLarge');
  });

  it('a malformed part number, upload id or query is 400 InvalidArgument naming it', async () => {
    const ref = await startUpload(t, owner);
    const url = new URL(await partUrl(t, owner, ref, 1));
    const cases: [string, string][] = [
      [url.href.replace('/1?', '/0?'), 'partNumber'],
      [url.href.replace('/1?', '/10001?'), 'partNumber'],
      [url.href.replace('/1?', '/one?'), 'partNumber'],
      [url.href.replace(encodeURIComponent(ref.uploadId), 'u'.repeat(129)), 'uploadId'],
      [url.href.replace(/signature=[^&]*/, `signature=${'s'.repeat(129)}`), 'signature'],
    ];
    for (const [bad, name] of cases) {
      const fields = await expectS3Error(await putPart(bad, Buffer.from('x')), 400, 'InvalidArgument', name);
      expect(fields.ArgumentName).toBe(name);
    }
  });

  it('a failure of the store is 500 InternalError, telling nothing of the server', async () => {
    const ref = await startUpload(t, owner);
    const url = await partUrl(t, owner, ref, 1);
    // The upload's directory turned into a file: the part cannot be placed.
    const dir = path.join(t.config.dataDir, 'storage', 'multipart', ref.uploadId);
    rmSync(dir, { recursive: true });
    writeFileSync(dir, '');
    try {
      const fields = await expectS3Error(await putPart(url, Buffer.from('x')), 500, 'InternalError');
      expect(fields.Message).toBe('We encountered an internal error. Please try again.');
    } finally {
      rmSync(dir);
    }
  });

  it('the API around the part URL keeps its JSON errors', async () => {
    const ref = await startUpload(t, owner);
    expect((await t.request({ method: 'DELETE', url: `/storage/abort-upload?${refQuery(ref)}`, token: owner.token })).statusCode).toBe(200);
    expectError(await listPartsRequest(t, owner, ref), 404, 'INVALID_UPLOAD_ID');
    expectError(await t.request({ method: 'GET', url: `/storage/get-upload-url?PartNumber=1&${refQuery(ref)}`, token: owner.token }), 404, 'INVALID_UPLOAD_ID');
  });
});

const PLANS = parsePlans(JSON.stringify({ plans: [{ id: 'free', name: 'Free', price_label: 'Free', limits: { storage_bytes: 100 } }] }), 'test plans');

describe('S3 error answer of a part past the plan', () => {
  let t: StorageTestApp;
  let stripe: FakeStripe;

  beforeAll(async () => {
    stripe = await startFakeStripe();
    t = await startStorageApp('local', undefined, { config: { payments: { plans: PLANS, stripe: stripe.config(), graceDays: 7 } } });
  });
  afterAll(async () => {
    await t.close();
    await stripe.close();
  });

  it('402 QuotaExceeded (no S3 client retries it), nothing written', async () => {
    const owner = await registerUser(t);
    const ref = await startUpload(t, owner);
    await uploadPart(t, owner, ref, 1, randomBytes(90));
    const res = await putPart(await partUrl(t, owner, ref, 2), randomBytes(20));
    await expectS3Error(res, 402, 'QuotaExceeded', 'plan allows 100 bytes');
    expect((await listPartsRequest(t, owner, ref)).json<{ parts: unknown[] }>().parts).toHaveLength(1);
  });
});
