import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHttpTestApp, type TestApp } from './helpers/app.js';
import { dialects } from './helpers/databases.js';
import { registerUser } from './helpers/factories.js';
import { undecodableMedia } from './helpers/media.js';
import {
  STORE_KINDS,
  completeRequest,
  deleteRequest,
  downloadRequest,
  expectError,
  getAsset,
  keyOf,
  listAssets,
  listPartsRequest,
  makeJpeg,
  objectExists,
  partUrl,
  putPart,
  splitBytes,
  startUploadRequest,
  startStorageApp,
  startS3Server,
  startUpload,
  uploadFile,
  uploadPart,
  uploadParts,
  type AssetJson,
  type CompleteAnswer,
  type S3Server,
} from './helpers/uploads.js';

/**
 * The multipart upload flow of seed 4.3 end to end, on both object stores: the local
 * store (part URLs served by this app) and an S3-compatible one (s3rver; the part
 * URLs are real S3 presigned UploadPart URLs). Parts are PUT with plain fetch, as a
 * browser would.
 */
describe.each(STORE_KINDS)('upload flow on the %s store', (kind) => {
  let s3: S3Server | undefined;
  const open: TestApp[] = [];

  beforeAll(async () => {
    if (kind === 's3') s3 = await startS3Server();
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((t) => t.close()));
  });
  afterAll(async () => {
    await s3?.close();
  });

  async function app(options: Parameters<typeof startStorageApp>[2] = {}) {
    const t = await startStorageApp(kind, s3, options);
    open.push(t);
    return t;
  }

  describe.each(dialects)('on %s', (dialect) => {
    it('uploads a JPEG in three parts, completes, probes it and serves it back byte for byte', async () => {
      const t = await app({ dialect });
      const owner = await registerUser(t);
      const jpeg = await makeJpeg(640, 480);
      const ref = await startUpload(t, owner, { fileType: 'image/jpeg', fileName: 'photo.jpg' });
      expect(ref.assetId).toBeGreaterThan(0);
      expect(ref.uploadId).not.toBe('');

      // While uploading, the asset is not in the catalog.
      expect((await getAsset(t, owner, ref.assetId)).statusCode).toBe(404);
      expect(await listAssets(t, owner, owner.workspaceId)).toEqual([]);

      const parts = await uploadParts(t, owner, ref, splitBytes(jpeg, Math.ceil(jpeg.length / 3)));
      expect(parts.map((p) => p.PartNumber)).toEqual([1, 2, 3]);
      const done = await completeRequest(t, owner, ref, parts);
      expect(done.statusCode).toBe(200);
      const answer = done.json<CompleteAnswer>();
      const key = `${owner.workspaceId}/digital_assets/${ref.assetId}`;
      expect(answer).toMatchObject({ success: true, key });
      expect(answer.location).toContain('/storage/download?');

      const asset = (await getAsset(t, owner, ref.assetId)).json<{ data: AssetJson }>().data;
      expect(asset).toMatchObject({
        id: ref.assetId,
        workspace_id: owner.workspaceId,
        file_name: 'photo.jpg',
        file_size: jpeg.length,
        mime_type: 'image/jpeg',
        file_type: 'image',
        width: 640,
        height: 480,
        orientation: 'landscape',
      });
      expect((await listAssets(t, owner, owner.workspaceId)).map((a) => a.id)).toEqual([ref.assetId]);
      expect(await objectExists(t, key)).toBe(true);

      const res = await downloadRequest(t, owner, key, owner.workspaceId);
      expect(res.statusCode).toBe(200);
      expect(Buffer.compare(res.rawPayload, jpeg)).toBe(0);
      expect(res.headers['content-type']).toBe('image/jpeg');
      expect(res.headers['content-length']).toBe(String(jpeg.length));
      expect(res.headers['content-disposition']).toBe('attachment; filename="photo.jpg"');
      expect(res.headers['x-content-type-options']).toBe('nosniff');

      // `location` is a working download URL on this API (with a bearer token).
      const viaLocation = await fetch(answer.location, { headers: { authorization: `Bearer ${owner.token}` } });
      expect(viaLocation.status).toBe(200);
      expect(Buffer.compare(Buffer.from(await viaLocation.arrayBuffer()), jpeg)).toBe(0);
    });

    it('survives a restart between parts: sessions and parts live in the database', async () => {
      const first = await app({ dialect });
      const owner = await registerUser(first);
      const bytes = randomBytes(64 * 1024);
      const [one, two] = splitBytes(bytes, 40 * 1024);
      const ref = await startUpload(first, owner, { fileName: 'blob.bin' });
      const part1 = await uploadPart(first, owner, ref, 1, one!);
      await first.app.close(); // keeps the database: a process restart
      open.splice(open.indexOf(first), 1);

      const second = await startHttpTestApp({
        database: first.database,
        config: { dataDir: first.config.dataDir, storage: first.config.storage, minPartSize: 5 },
      });
      open.push(second);
      expect(second.baseUrl).not.toBe(first.baseUrl);
      if (kind === 'local') {
        // s3rver has no ListParts; on S3 the parts are the bucket's anyway.
        const listed = await listPartsRequest(second, owner, ref);
        expect(listed.json()).toEqual({ parts: [{ PartNumber: 1, ETag: part1.ETag, Size: one!.length }] });
      }
      const part2 = await uploadPart(second, owner, ref, 2, two!);
      const done = await completeRequest(second, owner, ref, [part1, part2]);
      expect(done.statusCode).toBe(200);
      const res = await downloadRequest(second, owner, keyOf(ref), ref.workspaceId);
      expect(res.statusCode).toBe(200);
      expect(Buffer.compare(res.rawPayload, bytes)).toBe(0);
    });
  });

  it('start-upload answers the smallest part completion accepts (S3 never below its own 5 MiB)', async () => {
    for (const [configured, expected] of [[5, kind === 's3' ? 5 * 1024 * 1024 : 5], [16 * 1024 * 1024, 16 * 1024 * 1024]] as const) {
      const t = await app({ config: { minPartSize: configured } });
      const owner = await registerUser(t);
      const res = await startUploadRequest(t, owner, { workspaceId: owner.workspaceId, fileType: 'image/png' });
      expect(res.json<{ minPartSize: number }>().minPartSize).toBe(expected);
    }
  });

  it('reads displayed dimensions: EXIF orientation 6 swaps width and height', async () => {
    const t = await app();
    const owner = await registerUser(t);
    const jpeg = await makeJpeg(300, 200, 6);
    const { ref } = await uploadFile(t, owner, jpeg, { fileType: 'image/jpeg', fileName: 'rotated.jpg' });
    const asset = (await getAsset(t, owner, ref.assetId)).json<{ data: AssetJson }>().data;
    expect(asset).toMatchObject({ width: 200, height: 300, orientation: 'portrait', file_type: 'image', file_size: jpeg.length });
  });

  it('stores any file type: a document without dimensions, parts larger than the JSON body limit, default name', async () => {
    const t = await app();
    const owner = await registerUser(t);
    // The first bytes (all the type sniffer reads) are fixed: random ones are taken for MP3, AAC or PostScript about once in 600 runs.
    const bytes = Buffer.concat([undecodableMedia(4100), randomBytes(2_500_000 - 4100)]);
    const { ref, answer } = await uploadFile(t, owner, bytes, { fileType: 'application/pdf', partSize: 1_300_000 });
    const asset = (await getAsset(t, owner, ref.assetId)).json<{ data: AssetJson }>().data;
    expect(asset).toMatchObject({ file_name: 'untitled', file_size: bytes.length, mime_type: 'application/pdf', file_type: 'document' });
    expect(asset).toMatchObject({ width: null, height: null, orientation: null });
    const res = await downloadRequest(t, owner, answer.key, ref.workspaceId);
    expect(Buffer.compare(res.rawPayload, bytes)).toBe(0);
    expect(res.headers['content-disposition']).toBe('attachment; filename="untitled.pdf"');
  });

  it('answers ranges with 206, unsatisfiable ones with 416, and names UTF-8 files per RFC 6266', async () => {
    const t = await app();
    const owner = await registerUser(t);
    const bytes = randomBytes(1000);
    // Only ISO-8859-1 letters: the case where a Latin-1 `filename` alone would be sent without filename*.
    const name = 'Größe Übersicht.txt';
    const { answer } = await uploadFile(t, owner, bytes, { fileType: 'text/plain', fileName: name });

    const whole = await downloadRequest(t, owner, answer.key, owner.workspaceId);
    expect(whole.headers['content-disposition']).toBe(`attachment; filename="Grosse Ubersicht.txt"; filename*=UTF-8''${encodeURIComponent(name)}`);
    expect(whole.headers['content-type']).toBe('text/plain');

    const middle = await downloadRequest(t, owner, answer.key, owner.workspaceId, { range: 'bytes=100-199' });
    expect(middle.statusCode).toBe(206);
    expect(middle.headers['content-range']).toBe('bytes 100-199/1000');
    expect(middle.headers['content-length']).toBe('100');
    expect(Buffer.compare(middle.rawPayload, bytes.subarray(100, 200))).toBe(0);

    const tail = await downloadRequest(t, owner, answer.key, owner.workspaceId, { range: 'bytes=-10' });
    expect(tail.statusCode).toBe(206);
    expect(Buffer.compare(tail.rawPayload, bytes.subarray(990))).toBe(0);

    expectError(await downloadRequest(t, owner, answer.key, owner.workspaceId, { range: 'bytes=1000-' }), 416, 'RANGE_NOT_SATISFIABLE');
  });

  it('completing again with the same parts answers the same and keeps one asset; other parts are 409', async () => {
    const t = await app();
    const owner = await registerUser(t);
    const bytes = randomBytes(300);
    const ref = await startUpload(t, owner);
    const parts = await uploadParts(t, owner, ref, splitBytes(bytes, 100));
    const first = await completeRequest(t, owner, ref, parts);
    expect(first.statusCode).toBe(200);
    // The same parts, ETags unquoted this time: still the same completion.
    const again = await completeRequest(t, owner, ref, parts.map((p) => ({ ...p, ETag: p.ETag.replaceAll('"', '') })));
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    expectError(await completeRequest(t, owner, ref, parts.slice(0, 2)), 409, 'CONFLICT');
    expect((await listAssets(t, owner, owner.workspaceId)).map((a) => a.id)).toEqual([ref.assetId]);
    expect(Buffer.compare((await downloadRequest(t, owner, keyOf(ref), ref.workspaceId)).rawPayload, bytes)).toBe(0);
  });

  it('complete-upload takes assetId and workspaceId as the strings of seed 2.3 or as numbers, nothing else', async () => {
    const t = await app();
    const owner = await registerUser(t);
    const bytes = randomBytes(200);
    const ref = await startUpload(t, owner);
    const parts = await uploadParts(t, owner, ref, splitBytes(bytes, 100));
    const complete = (assetId: unknown, workspaceId: unknown) =>
      t.request({ method: 'POST', url: '/storage/complete-upload', token: owner.token, payload: { uploadId: ref.uploadId, assetId, workspaceId, parts } });
    for (const [assetId, workspaceId] of [[`0x${ref.assetId.toString(16)}`, String(ref.workspaceId)], [ref.assetId, true], [String(ref.assetId), ` ${ref.workspaceId}`]]) {
      expect((await complete(assetId, workspaceId)).statusCode).toBe(400);
    }
    const done = await complete(String(ref.assetId), String(ref.workspaceId));
    expect(done.statusCode, done.body).toBe(200);
    expect(Buffer.compare((await downloadRequest(t, owner, keyOf(ref), ref.workspaceId)).rawPayload, bytes)).toBe(0);
  });

  // Local store only: s3rver answers a CompleteMultipartUpload of an upload it has already joined with
  // InternalError (a missing file) where S3 answers NoSuchUpload, which the service relies on here.
  // This test caught a local-store bug: a late call failed with UPLOAD_FAILED instead of the same answer.
  it.runIf(kind === 'local')('concurrent completions of the same parts all succeed with one answer and one asset', async () => {
    const t = await app();
    const owner = await registerUser(t);
    for (let round = 0; round < 3; round += 1) {
      const bytes = randomBytes(3 * 400_000);
      const ref = await startUpload(t, owner);
      const parts = await uploadParts(t, owner, ref, splitBytes(bytes, 400_000));
      // Staggered, so that some calls arrive while an earlier one is merging or has just merged.
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => new Promise((resolve) => setTimeout(resolve, i * 6)).then(() => completeRequest(t, owner, ref, parts))),
      );
      expect(results.map((r) => r.statusCode)).toEqual(Array(8).fill(200));
      expect(new Set(results.map((r) => r.body)).size).toBe(1);
      expect(Buffer.compare((await downloadRequest(t, owner, keyOf(ref), ref.workspaceId)).rawPayload, bytes)).toBe(0);
    }
    expect(await listAssets(t, owner, owner.workspaceId)).toHaveLength(3);
  });

  it('delete removes the object and the asset', async () => {
    const t = await app();
    const owner = await registerUser(t);
    const { ref, answer } = await uploadFile(t, owner, randomBytes(500), { fileType: 'video/mp4' });
    const res = await deleteRequest(t, owner, answer.key, ref.workspaceId);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true });
    expect(await objectExists(t, answer.key)).toBe(false);
    expect((await getAsset(t, owner, ref.assetId)).statusCode).toBe(404);
    expect(await listAssets(t, owner, owner.workspaceId)).toEqual([]);
    expectError(await downloadRequest(t, owner, answer.key, ref.workspaceId), 404, 'NOT_FOUND');
    expectError(await deleteRequest(t, owner, answer.key, ref.workspaceId), 404, 'NOT_FOUND');
  });

  it('an upload in progress has no object to download or delete', async () => {
    const t = await app();
    const owner = await registerUser(t);
    const ref = await startUpload(t, owner);
    await uploadPart(t, owner, ref, 1, randomBytes(10));
    expectError(await downloadRequest(t, owner, keyOf(ref), ref.workspaceId), 404, 'NOT_FOUND');
    expectError(await deleteRequest(t, owner, keyOf(ref), ref.workspaceId), 404, 'NOT_FOUND');
    // The upload is untouched and still completes.
    const part = await uploadPart(t, owner, ref, 1, Buffer.from('hello'));
    expect((await completeRequest(t, owner, ref, [part])).statusCode).toBe(200);
  });

  it('updateBucketConfig applies the default CORS rules; browsers may then PUT parts from any origin and read the ETag', async () => {
    const t = await app();
    const admin = await registerUser(t);
    const before = await t.request({ method: 'GET', url: '/storage/getBucketConfig', token: admin.token });
    expect(before.statusCode).toBe(200);
    // A fresh bucket has no CORS configuration; the local store starts from the default rules.
    expect(before.json()).toEqual({ CORSRules: kind === 's3' ? [] : [defaultRule] });

    const update = await t.request({ method: 'POST', url: '/storage/updateBucketConfig', token: admin.token });
    expect(update.statusCode).toBe(200);
    expect(update.json()).toEqual({ success: true });
    const after = await t.request({ method: 'GET', url: '/storage/getBucketConfig', token: admin.token });
    expect(after.json()).toEqual({ CORSRules: [defaultRule] });

    const ref = await startUpload(t, admin);
    const url = await partUrl(t, admin, ref, 1);
    const storage = t.config.storage;
    if (storage.kind === 's3') {
      // A real S3 presigned UploadPart URL, straight to the bucket.
      const presigned = new URL(url);
      expect(`${presigned.origin}${presigned.pathname}`).toBe(`${storage.endpoint}/${storage.bucket}/${keyOf(ref)}`);
      expect(Object.fromEntries(presigned.searchParams)).toMatchObject({ partNumber: '1', uploadId: ref.uploadId, 'X-Amz-Expires': '3600' });
      expect(presigned.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    } else {
      expect(url.startsWith(`${t.baseUrl}/storage/parts/`)).toBe(true);
    }
    const origin = `https://${randomBytes(4).toString('hex')}.example.org`;
    const preflight = await fetch(url, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type' },
    });
    expect(preflight.ok).toBe(true);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('PUT');
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('content-type');

    const put = await putPart(url, Buffer.from('part bytes'), { origin, 'content-type': 'application/octet-stream' });
    expect(put.status).toBe(200);
    expect(put.headers.get('access-control-allow-origin')).toBe('*');
    expect(put.headers.get('access-control-expose-headers')?.toLowerCase()).toContain('etag');
    expect(put.headers.get('etag')).toMatch(/^"[0-9a-f]{32}"$/);
  });
});

const defaultRule = { AllowedMethods: ['GET', 'POST', 'PUT', 'DELETE'], AllowedOrigins: ['*'], AllowedHeaders: ['*'], ExposeHeaders: ['ETag'] };
