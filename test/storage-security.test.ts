import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { putStoredCorsRules } from '../src/repositories/uploads.js';
import type { TestApp } from './helpers/app.js';
import { addMember, registerUser, type Account } from './helpers/factories.js';
import {
  STORE_KINDS,
  completeRequest,
  deleteRequest,
  downloadRequest,
  expectError,
  getAsset,
  keyOf,
  listPartsRequest,
  objectExists,
  partUrl,
  partUrlRequest,
  putPart,
  refQuery,
  startS3Server,
  startStorageApp,
  startUpload,
  startUploadRequest,
  uploadFile,
  uploadPart,
  type S3Server,
  type StorageTestApp,
  type UploadRef,
} from './helpers/uploads.js';
import { expectS3Error } from './helpers/s3-errors.js';

/** Who may do what with the storage endpoints (seed 4.3, 5.1, 5.3), on both stores. */
describe.each(STORE_KINDS)('storage access on the %s store', (kind) => {
  let s3: S3Server | undefined;
  let t: TestApp;
  let owner: Account; // the first user: instance admin, and admin of their workspace
  let manager: Account;
  let viewer: Account;
  let stranger: Account;
  let bytes: Buffer;
  let stored: UploadRef;

  beforeAll(async () => {
    if (kind === 's3') s3 = await startS3Server();
    t = await startStorageApp(kind, s3);
    owner = await registerUser(t);
    [manager, viewer, stranger] = [await registerUser(t), await registerUser(t), await registerUser(t)];
    await addMember(t, owner, owner.workspaceId, manager, 'manager');
    await addMember(t, owner, owner.workspaceId, viewer, 'viewer');
    bytes = randomBytes(200);
    stored = (await uploadFile(t, owner, bytes)).ref;
  });
  afterAll(async () => {
    await t.close();
    await s3?.close();
  });

  async function expectStoredIntact(): Promise<void> {
    expect(await objectExists(t, keyOf(stored))).toBe(true);
    const res = await downloadRequest(t, owner, keyOf(stored), stored.workspaceId);
    expect(Buffer.compare(res.rawPayload, bytes)).toBe(0);
  }

  it('only instance admins read or change the bucket configuration', async () => {
    for (const who of [manager, viewer, stranger]) {
      expectError(await t.request({ method: 'GET', url: '/storage/getBucketConfig', token: who.token }), 403, 'FORBIDDEN');
      expectError(await t.request({ method: 'POST', url: '/storage/updateBucketConfig', token: who.token }), 403, 'FORBIDDEN');
    }
    expect((await t.request({ method: 'GET', url: '/storage/getBucketConfig', token: owner.token })).statusCode).toBe(200);
    expectError(await t.request({ method: 'GET', url: '/storage/getBucketConfig' }), 401, 'UNAUTHORIZED');
  });

  it('a non-member gets 404 from every endpoint and changes nothing', async () => {
    const open = await startUpload(t, owner);
    const part = await uploadPart(t, owner, open, 1, randomBytes(10));
    expectError(await startUploadRequest(t, stranger, { workspaceId: owner.workspaceId, fileType: 'image/png' }), 404, 'NOT_FOUND');
    expectError(await partUrlRequest(t, stranger, open, 2), 404, 'NOT_FOUND');
    expectError(await completeRequest(t, stranger, open, [part]), 404, 'NOT_FOUND');
    expectError(await listPartsRequest(t, stranger, open), 404, 'NOT_FOUND');
    expectError(await t.request({ method: 'DELETE', url: `/storage/abort-upload?${refQuery(open)}`, token: stranger.token }), 404, 'NOT_FOUND');
    expectError(await downloadRequest(t, stranger, keyOf(stored), stored.workspaceId), 404, 'NOT_FOUND');
    expectError(await deleteRequest(t, stranger, keyOf(stored), stored.workspaceId), 404, 'NOT_FOUND');
    await expectStoredIntact();
    expect((await completeRequest(t, owner, open, [part])).statusCode).toBe(200);
  });

  it('a viewer downloads but may not upload, complete or delete', async () => {
    const res = await downloadRequest(t, viewer, keyOf(stored), stored.workspaceId);
    expect(res.statusCode).toBe(200);
    expect(Buffer.compare(res.rawPayload, bytes)).toBe(0);

    const open = await startUpload(t, owner);
    const part = await uploadPart(t, owner, open, 1, randomBytes(10));
    expectError(await startUploadRequest(t, viewer, { workspaceId: owner.workspaceId, fileType: 'image/png' }), 403, 'FORBIDDEN');
    expectError(await partUrlRequest(t, viewer, open, 2), 403, 'FORBIDDEN');
    expectError(await completeRequest(t, viewer, open, [part]), 403, 'FORBIDDEN');
    expectError(await t.request({ method: 'DELETE', url: `/storage/abort-upload?${refQuery(open)}`, token: viewer.token }), 403, 'FORBIDDEN');
    expectError(await deleteRequest(t, viewer, keyOf(stored), stored.workspaceId), 403, 'FORBIDDEN');
    await expectStoredIntact();
    expect((await getAsset(t, owner, open.assetId)).statusCode).toBe(404); // still not completed
  });

  it('a manager uploads and deletes', async () => {
    const mine = await uploadFile(t, manager, randomBytes(64), { workspaceId: owner.workspaceId });
    expect(mine.answer.key).toBe(`${owner.workspaceId}/digital_assets/${mine.ref.assetId}`);
    const theirs = await uploadFile(t, owner, randomBytes(64));
    expect((await deleteRequest(t, manager, mine.answer.key, owner.workspaceId)).statusCode).toBe(200);
    expect((await deleteRequest(t, manager, theirs.answer.key, owner.workspaceId)).statusCode).toBe(200);
    expect(await objectExists(t, mine.answer.key)).toBe(false);
    expect(await objectExists(t, theirs.answer.key)).toBe(false);
  });

  it('refuses traversal and absolute keys (400) and keys of another workspace (404) before touching anything', async () => {
    // The owner is a member of both workspaces: the key must still lie under the workspaceId given.
    const other = await registerUser(t);
    await addMember(t, other, other.workspaceId, owner, 'admin');
    const elsewhere = (await uploadFile(t, other, randomBytes(32), { workspaceId: other.workspaceId })).ref;
    const ws = owner.workspaceId;
    const key = keyOf(stored);
    const bad: [string, number, string][] = [
      [`${ws}/digital_assets/../../${other.workspaceId}/digital_assets/${elsewhere.assetId}`, 400, 'VALIDATION_ERROR'],
      [`${ws}/digital_assets/${stored.assetId}/../${stored.assetId}`, 400, 'VALIDATION_ERROR'],
      [`../../../../../../../../etc/passwd`, 400, 'VALIDATION_ERROR'],
      [`/${key}`, 400, 'VALIDATION_ERROR'],
      [`${ws}\\digital_assets\\${stored.assetId}`, 400, 'VALIDATION_ERROR'],
      [keyOf(elsewhere), 404, 'NOT_FOUND'],
      [`${ws}/digital_assets/${elsewhere.assetId}`, 404, 'NOT_FOUND'],
      [`${ws}/digital_assets/${stored.assetId}/`, 404, 'NOT_FOUND'],
      [`${ws}/thumbnails/${stored.assetId}`, 404, 'NOT_FOUND'],
    ];
    for (const [k, status, code] of bad) {
      expectError(await downloadRequest(t, owner, k, ws), status, code);
      expectError(await deleteRequest(t, owner, k, ws), status, code);
    }
    await expectStoredIntact();
    expect(await objectExists(t, keyOf(elsewhere))).toBe(true);
    const theirs = await downloadRequest(t, owner, keyOf(elsewhere), other.workspaceId);
    expect(theirs.statusCode).toBe(200);
  });
});

/**
 * The local store's part URLs, signed by this server. On S3 the presigned URL is S3's to verify
 * (and s3rver does not check V4 query signatures), so these run on the local store only.
 */
describe('local part URLs', () => {
  let t: StorageTestApp;
  let owner: Account;

  beforeAll(async () => {
    // Sessions outlive the clock moves below; uploads are swept after 120 s.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    t = await startStorageApp('local', undefined, { config: { sessionTtl: 30 * 24 * 3600, uploadTtl: 120 } });
    owner = await registerUser(t);
  });
  afterAll(async () => {
    vi.useRealTimers();
    await t.close();
  });

  const quotedMd5 = (b: Buffer) => `"${createHash('md5').update(b).digest('hex')}"`;
  const listed = async (ref: UploadRef) => (await listPartsRequest(t, owner, ref)).json<{ parts: unknown[] }>().parts;

  it('take any body verbatim without a bearer token and answer the quoted MD5 as ETag; preflights pass from any origin', async () => {
    const ref = await startUpload(t, owner, { fileType: 'application/json' });
    const chunks = [Buffer.from('{"not": "json'), Buffer.from('--x\r\nContent-Disposition: form-data\r\n'), randomBytes(1000)];
    const types = ['application/json', 'multipart/form-data; boundary=x', 'image/jpeg'];
    const parts = [];
    for (const [i, chunk] of chunks.entries()) {
      const res = await putPart(await partUrl(t, owner, ref, i + 1), chunk, { 'content-type': types[i]! });
      expect(res.status).toBe(200);
      expect(res.headers.get('etag')).toBe(quotedMd5(chunk));
      parts.push({ PartNumber: i + 1, ETag: res.headers.get('etag')! });
    }
    expect((await completeRequest(t, owner, ref, parts)).statusCode).toBe(200);
    expect(Buffer.compare((await downloadRequest(t, owner, keyOf(ref), ref.workspaceId)).rawPayload, Buffer.concat(chunks))).toBe(0);

    const url = await partUrl(t, owner, await startUpload(t, owner), 1);
    for (const origin of ['https://app.example.com', 'http://localhost:5173', 'null']) {
      const preflight = await fetch(url, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type,x-custom' },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
      expect(preflight.headers.get('access-control-allow-methods')).toContain('PUT');
      expect(preflight.headers.get('access-control-allow-headers')).toBe('content-type,x-custom');
      const put = await putPart(url, Buffer.from('hello'), { origin });
      expect(put.headers.get('access-control-expose-headers')).toContain('ETag');
    }
  });

  it('refuse a tampered or missing signature with 403 SignatureDoesNotMatch and write nothing', async () => {
    const ref = await startUpload(t, owner);
    const url = new URL(await partUrl(t, owner, ref, 1));
    const signature = url.searchParams.get('signature')!;
    const expires = url.searchParams.get('expires')!;
    const variants: Record<string, string>[] = [
      { signature: (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1), expires },
      { signature: signature.slice(0, -2), expires },
      { signature, expires: String(Number(expires) + 3600) },
      { expires },
      { signature },
      {},
    ];
    for (const query of variants) {
      const res = await putPart(`${url.origin}${url.pathname}?${new URLSearchParams(query).toString()}`, randomBytes(10));
      await expectS3Error(res, 403, 'SignatureDoesNotMatch');
    }
    expect(await listed(ref)).toEqual([]);
  });

  it('are good for their own part and upload only', async () => {
    const a = await startUpload(t, owner);
    const b = await startUpload(t, owner);
    const forPart1 = new URL(await partUrl(t, owner, a, 1));
    const asPart2 = forPart1.href.replace(`/${encodeURIComponent(a.uploadId)}/1?`, `/${encodeURIComponent(a.uploadId)}/2?`);
    const asOtherUpload = forPart1.href.replace(`/${encodeURIComponent(a.uploadId)}/`, `/${encodeURIComponent(b.uploadId)}/`);
    expect(new Set([forPart1.href, asPart2, asOtherUpload]).size).toBe(3);
    for (const url of [asPart2, asOtherUpload]) {
      await expectS3Error(await putPart(url, randomBytes(10)), 403, 'SignatureDoesNotMatch');
    }
    expect(await listed(a)).toEqual([]);
    expect(await listed(b)).toEqual([]);
    expect((await putPart(forPart1.href, randomBytes(10))).status).toBe(200);
  });

  it('expire after an hour (DAM_PART_URL_TTL): 403 AccessDenied "Request has expired", nothing written, and a fresh URL works', async () => {
    const ref = await startUpload(t, owner);
    const url = await partUrl(t, owner, ref, 1);
    t.advanceClock(3500);
    const first = Buffer.from('within the hour');
    expect((await putPart(url, first)).status).toBe(200);
    t.advanceClock(101);
    const late = await putPart(url, Buffer.from('too late'));
    expect((await expectS3Error(late, 403, 'AccessDenied')).Message).toBe('Request has expired');
    expect(await listed(ref)).toEqual([{ PartNumber: 1, ETag: quotedMd5(first), Size: first.length }]);
    expect((await putPart(await partUrl(t, owner, ref, 1), Buffer.from('fresh url'))).status).toBe(200);
  });

  it('take no parts once the upload is completed', async () => {
    const ref = await startUpload(t, owner);
    const later = await partUrl(t, owner, ref, 2);
    const part = await uploadPart(t, owner, ref, 1, Buffer.from('only part'));
    expect((await completeRequest(t, owner, ref, [part])).statusCode).toBe(200);
    await expectS3Error(await putPart(later, randomBytes(10)), 404, 'NoSuchUpload');
    expectError(await partUrlRequest(t, owner, ref, 2), 404, 'INVALID_UPLOAD_ID');
    expect((await downloadRequest(t, owner, keyOf(ref), ref.workspaceId)).body).toBe('only part');
  });

  it('deleting assets by any path (asset, recursive folder, workspace) removes their stored objects', async () => {
    const byAsset = await uploadFile(t, owner, randomBytes(20));
    const inFolder = await uploadFile(t, owner, randomBytes(20));
    const folder = await t.request({ method: 'POST', url: '/dam/folders', token: owner.token, payload: { workspace_id: owner.workspaceId, name: 'doomed' } });
    const folderId = folder.json<{ data: { id: number } }>().data.id;
    const moved = await t.request({ method: 'PATCH', url: `/dam/assets/${inFolder.ref.assetId}`, token: owner.token, payload: { folder_id: folderId } });
    expect(moved.statusCode).toBe(200);
    const ws = await t.request({ method: 'POST', url: '/workspaces', token: owner.token, payload: { name: 'doomed' } });
    const wsId = ws.json<{ data: { id: number } }>().data.id;
    const inWorkspace = await uploadFile(t, owner, randomBytes(20), { workspaceId: wsId });
    const keys = [byAsset, inFolder, inWorkspace].map((u) => u.answer.key);
    for (const key of keys) expect(await objectExists(t, key)).toBe(true);

    // permanent=true: a plain DELETE moves to the trash, whose files stay until it is emptied or purged (test/trash.test.ts).
    expect((await t.request({ method: 'DELETE', url: `/dam/assets/${byAsset.ref.assetId}?permanent=true`, token: owner.token })).statusCode).toBe(200);
    expect((await t.request({ method: 'DELETE', url: `/dam/folders/${folderId}?recursive=true&permanent=true`, token: owner.token })).statusCode).toBe(200);
    expect((await t.request({ method: 'DELETE', url: `/workspaces/${wsId}`, token: owner.token })).statusCode).toBe(200);

    // The rows are gone at once; their objects go with the next housekeeping run (every minute).
    vi.advanceTimersByTime(60_000);
    await vi.waitFor(async () => {
      for (const key of keys) expect(await objectExists(t, key)).toBe(false);
    });
  });

  // Last in this block: it moves the clock past the upload TTL. The sweep runs from the app's own
  // housekeeping timer (every minute), driven here by fake timers; no HTTP endpoint triggers it.
  it('housekeeping sweeps uploads untouched for longer than the upload TTL', async () => {
    const stale = await startUpload(t, owner);
    const staleUrl = await partUrl(t, owner, stale, 2);
    await uploadPart(t, owner, stale, 1, randomBytes(10));
    const done = await uploadFile(t, owner, randomBytes(30));
    t.advanceClock(121);
    const fresh = await startUpload(t, owner);
    await uploadPart(t, owner, fresh, 1, randomBytes(10));

    vi.advanceTimersByTime(10 * 60_000);
    await vi.waitFor(async () => {
      expectError(await listPartsRequest(t, owner, stale), 404, 'INVALID_UPLOAD_ID');
      // A completed upload past the TTL is forgotten too (its asset stays).
      expectError(await completeRequest(t, owner, done.ref, done.parts), 404, 'INVALID_UPLOAD_ID');
    });
    expect(existsSync(path.join(t.config.dataDir, 'storage', 'multipart', stale.uploadId))).toBe(false);
    expect((await putPart(staleUrl, randomBytes(10))).status).toBe(404);
    expect((await getAsset(t, owner, done.ref.assetId)).statusCode).toBe(200);
    expect((await downloadRequest(t, owner, done.answer.key, done.ref.workspaceId)).statusCode).toBe(200);
    expect(await listed(fresh)).toHaveLength(1);
  });
});

/** The local part route answers CORS by the stored bucket rules (as S3 does for presigned PUTs), not by the API's open policy. */
describe('local part URLs under narrowed bucket rules', () => {
  let t: StorageTestApp;
  let owner: Account;
  const allowed = 'https://app.example.com';
  beforeAll(async () => {
    t = await startStorageApp('local', undefined);
    owner = await registerUser(t);
    // An operator's own rules, written where updateBucketConfig keeps them, before any part request reads them.
    await putStoredCorsRules(t.database.db, [
      { AllowedMethods: ['PUT'], AllowedOrigins: ['https://*.example.com'], AllowedHeaders: ['content-type'], ExposeHeaders: ['ETag'], MaxAgeSeconds: 600 },
    ]);
  });
  afterAll(() => t.close());

  const preflight = (url: string, origin: string, method = 'PUT') =>
    fetch(url, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'content-type,x-custom' } });

  it('allow a matching origin with the rule\'s headers, refuse others, and open again after updateBucketConfig', async () => {
    const url = await partUrl(t, owner, await startUpload(t, owner), 1);
    const ok = await preflight(url, allowed);
    expect(ok.status).toBe(204);
    expect(ok.headers.get('access-control-allow-origin')).toBe(allowed);
    expect(ok.headers.get('access-control-allow-methods')).toBe('PUT');
    expect(ok.headers.get('access-control-allow-headers')).toBe('content-type');
    expect(ok.headers.get('access-control-max-age')).toBe('600');
    expect(ok.headers.get('vary')).toContain('Origin');
    const put = await putPart(url, Buffer.from('hello'), { origin: allowed });
    expect(put.status).toBe(200);
    expect(put.headers.get('access-control-allow-origin')).toBe(allowed);
    expect(put.headers.get('access-control-expose-headers')).toBe('ETag');

    // Another origin, or a method no rule allows: no CORS header, and the preflight is refused.
    expect((await preflight(url, 'https://evil.example.org')).status).toBe(404);
    expect((await preflight(url, allowed, 'DELETE')).status).toBe(404);
    const other = await putPart(url, Buffer.from('hello'), { origin: 'https://evil.example.org' });
    expect(other.status).toBe(200);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    // The API's own routes keep the open policy whatever the bucket says.
    const api = await fetch(`${t.baseUrl}/healthz?x=1`, { headers: { origin: 'https://evil.example.org' } });
    expect(api.headers.get('access-control-allow-origin')).toBe('*');

    expect((await t.request({ method: 'POST', url: '/storage/updateBucketConfig', token: owner.token })).statusCode).toBe(200);
    const open = await preflight(url, 'https://evil.example.org');
    expect(open.status).toBe(204);
    expect(open.headers.get('access-control-allow-origin')).toBe('*');
    expect(open.headers.get('access-control-allow-headers')).toBe('content-type,x-custom');
  });
});
