import { rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from './helpers/databases.js';
import { registerUser, type Account } from './helpers/factories.js';
import {
  completeRequest,
  expectError,
  keyOf,
  listAssets,
  objectExists,
  startStorageApp,
  startUpload,
  uploadParts,
  type StorageTestApp,
} from './helpers/uploads.js';
import { listVersions, multipart, serverUpload, text, uploadVersion, type FilePart } from './helpers/versions.js';

/** Idempotency-Key (issue #10) on the operations that create things, through HTTP on every dialect. */
describe.each(dialects)('Idempotency-Key on %s', (dialect) => {
  let t: StorageTestApp;
  let owner: Account;
  let keys = 0;
  const newKey = () => `key-${dialect}-${(keys += 1)}-${Date.now()}`;

  beforeAll(async () => {
    // Sessions outlive the clock moves past 24 hours below.
    t = await startStorageApp('local', undefined, { dialect, config: { sessionTtl: 30 * 86_400 } });
    owner = await registerUser(t);
  });
  afterAll(async () => {
    await t.close();
  });

  const post = (who: Account, url: string, key: string | undefined, payload?: object): Promise<LightMyRequestResponse> =>
    t.request({ method: 'POST', url, token: who.token, payload, headers: key === undefined ? {} : { 'idempotency-key': key } });

  const postForm = async (who: Account, url: string, key: string, fields: Record<string, string | FilePart>): Promise<LightMyRequestResponse> => {
    const body = await multipart(fields);
    return t.request({ method: 'POST', url, token: who.token, payload: body.payload, headers: { ...body.headers, 'idempotency-key': key } });
  };

  const count = async (who: Account, url: string): Promise<number> => {
    const res = await t.request({ method: 'GET', url, token: who.token });
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json<{ data: unknown[] | { items: unknown[] } }>().data;
    return Array.isArray(data) ? data.length : data.items.length;
  };

  /** The second answer is the first one again, marked as a replay; the first is not. */
  function expectReplay(first: LightMyRequestResponse, second: LightMyRequestResponse, status: number): void {
    expect(first.statusCode, first.body).toBe(status);
    expect(second.statusCode, second.body).toBe(status);
    expect(second.json()).toEqual(first.json());
    expect(second.headers['content-type']).toBe(first.headers['content-type']);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(second.headers['idempotent-replayed']).toBe('true');
  }

  /** An asset with v1 and v2 (current); answers v1's id. */
  async function assetWithHistory(who: Account): Promise<{ assetId: number; v1: number }> {
    const asset = await serverUpload(t, who, text('first', 'a.txt'));
    await uploadVersion(t, who, asset.id, text('second', 'a.txt'));
    const v1 = (await listVersions(t, who, asset.id)).find((v) => v.version === 'v1')!;
    return { assetId: asset.id, v1: v1.id };
  }

  it('a restore sent twice with one key makes one new version; both answers are equal', async () => {
    const { assetId, v1 } = await assetWithHistory(owner);
    const key = newKey();
    const first = await post(owner, `/dam/versions/${v1}/restore`, key);
    const second = await post(owner, `/dam/versions/${v1}/restore`, key);
    expectReplay(first, second, 200);
    expect((await listVersions(t, owner, assetId)).map((v) => v.version)).toEqual(['v3', 'v2', 'v1']);
  });

  it('without the header a double restore still acts twice, as before', async () => {
    const { assetId, v1 } = await assetWithHistory(owner);
    expect((await post(owner, `/dam/versions/${v1}/restore`, undefined)).statusCode).toBe(200);
    expect((await post(owner, `/dam/versions/${v1}/restore`, undefined)).statusCode).toBe(200);
    expect(await listVersions(t, owner, assetId)).toHaveLength(4);
  });

  it.each([
    { what: 'folder', url: '/dam/folders', list: (ws: number) => `/dam/folders?workspaceId=${ws}`, body: (ws: number) => ({ workspace_id: ws, name: 'Once' }) },
    {
      what: 'collection',
      url: '/dam/collections',
      list: (ws: number) => `/dam/collections?workspaceId=${ws}`,
      body: (ws: number) => ({ workspace_id: ws, name: 'Once', description: 'one' }),
    },
    { what: 'workspace', url: '/workspaces', list: () => '/workspaces', body: () => ({ name: 'Once' }) },
  ])('a $what created twice with one key is created once; both answers are equal', async ({ url, list, body }) => {
    const who = await registerUser(t);
    const before = await count(who, list(who.workspaceId));
    const key = newKey();
    const first = await post(who, url, key, body(who.workspaceId));
    // Keys of the body in another order are the same request.
    const reordered = Object.fromEntries(Object.entries(body(who.workspaceId)).reverse());
    const second = await post(who, url, key, reordered);
    expectReplay(first, second, 201);
    expect(await count(who, list(who.workspaceId))).toBe(before + 1);
  });

  it('complete-upload sent twice with one key answers the first answer again', async () => {
    const ref = await startUpload(t, owner, { fileName: 'parts.bin' });
    const parts = await uploadParts(t, owner, ref, [Buffer.from('hello '), Buffer.from('world')]);
    const key = newKey();
    const payload = { uploadId: ref.uploadId, assetId: ref.assetId, workspaceId: ref.workspaceId, parts };
    const first = await post(owner, '/storage/complete-upload', key, payload);
    const second = await post(owner, '/storage/complete-upload', key, payload);
    expectReplay(first, second, 200);
    // Without a key, completing again is still answered by the upload's own record (not a replay).
    const plain = await completeRequest(t, owner, ref, parts);
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['idempotent-replayed']).toBeUndefined();
  });

  it('a version upload sent twice with one key and the same file makes one version; another file is 422', async () => {
    const asset = await serverUpload(t, owner, text('v1 bytes', 'doc.txt'));
    const key = newKey();
    const url = `/dam/assets/${asset.id}/versions`;
    const first = await postForm(owner, url, key, { metadata: '{"a":1}', file: text('v2 bytes', 'doc.txt') });
    const second = await postForm(owner, url, key, { metadata: '{"a":1}', file: text('v2 bytes', 'doc.txt') });
    expectReplay(first, second, 201);
    expect(await listVersions(t, owner, asset.id)).toHaveLength(2);

    // Same name, type and size, other bytes: the file's content is part of the request.
    const other = await postForm(owner, url, key, { metadata: '{"a":1}', file: text('v2 BYTES', 'doc.txt') });
    expectError(other, 422, 'IDEMPOTENCY_KEY_REUSED', 'Idempotency-Key');
    expect(await listVersions(t, owner, asset.id)).toHaveLength(2);
  });

  it('/api/upload-asset sent twice with one key makes one asset', async () => {
    const who = await registerUser(t);
    const key = newKey();
    const fields = () => ({ workspaceId: String(who.workspaceId), tags: 'a,b', file: text('server upload', 'once.txt') });
    const first = await postForm(who, '/api/upload-asset', key, fields());
    const second = await postForm(who, '/api/upload-asset', key, fields());
    expectReplay(first, second, 201);
    expect(await listAssets(t, who, who.workspaceId)).toHaveLength(1);
  });

  it('the same key with another body, path or operation is 422 and acts not', async () => {
    const who = await registerUser(t);
    const key = newKey();
    expect((await post(who, '/dam/folders', key, { workspace_id: who.workspaceId, name: 'A' })).statusCode).toBe(201);
    expectError(await post(who, '/dam/folders', key, { workspace_id: who.workspaceId, name: 'B' }), 422, 'IDEMPOTENCY_KEY_REUSED');
    expectError(await post(who, '/dam/collections', key, { workspace_id: who.workspaceId, name: 'A' }), 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(await count(who, `/dam/folders?workspaceId=${who.workspaceId}`)).toBe(1);
    expect(await count(who, `/dam/collections?workspaceId=${who.workspaceId}`)).toBe(0);

    const { assetId, v1 } = await assetWithHistory(who);
    const restoreKey = newKey();
    expect((await post(who, `/dam/versions/${v1}/restore`, restoreKey)).statusCode).toBe(200);
    const v2 = (await listVersions(t, who, assetId)).find((v) => v.version === 'v2')!.id;
    expectError(await post(who, `/dam/versions/${v2}/restore`, restoreKey), 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(await listVersions(t, who, assetId)).toHaveLength(3);
  });

  it('4xx answers of the handler are kept and replayed too', async () => {
    const { assetId } = await assetWithHistory(owner);
    const current = (await listVersions(t, owner, assetId)).find((v) => v.is_current)!;
    const key = newKey();
    const first = await post(owner, `/dam/versions/${current.id}/restore`, key);
    expectError(first, 409, 'CONFLICT');
    expectReplay(first, await post(owner, `/dam/versions/${current.id}/restore`, key), 409);
  });

  it('a 5xx is not kept: the key is free for the retry', async () => {
    const ref = await startUpload(t, owner, { fileName: 'retry.bin' });
    const parts = await uploadParts(t, owner, ref, [Buffer.from('retry me')]);
    const key = newKey();
    const payload = { uploadId: ref.uploadId, assetId: ref.assetId, workspaceId: ref.workspaceId, parts };
    // The local store cannot publish while its objects directory is a file.
    const objects = path.join(t.config.dataDir, 'storage', 'objects');
    await rename(objects, `${objects}.aside`);
    await writeFile(objects, 'not a directory');
    try {
      const failed = await post(owner, '/storage/complete-upload', key, payload);
      expect(failed.statusCode, failed.body).toBeGreaterThanOrEqual(500);
    } finally {
      await rm(objects);
      await rename(`${objects}.aside`, objects);
    }
    const retried = await post(owner, '/storage/complete-upload', key, payload);
    expect(retried.statusCode, retried.body).toBe(200);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect(await objectExists(t, keyOf(ref))).toBe(true);
  });

  it('keys are per user: two users with the same key act independently', async () => {
    const [a, b] = [await registerUser(t), await registerUser(t)];
    const key = newKey();
    const resA = await post(a, '/workspaces', key, { name: 'Shared key' });
    const resB = await post(b, '/workspaces', key, { name: 'Shared key' });
    expect([resA.statusCode, resB.statusCode]).toEqual([201, 201]);
    expect(resB.headers['idempotent-replayed']).toBeUndefined();
    expect(resA.json<{ data: { id: number } }>().data.id).not.toBe(resB.json<{ data: { id: number } }>().data.id);
    // And each user's retry replays that user's own answer.
    expect((await post(b, '/workspaces', key, { name: 'Shared key' })).json()).toEqual(resB.json());
  });

  it('two identical requests at once act once: the other is a replay or 409 IN_USE with Retry-After', async () => {
    const who = await registerUser(t);
    const { assetId, v1 } = await assetWithHistory(who);
    const key = newKey();
    const answers = await Promise.all([post(who, `/dam/versions/${v1}/restore`, key), post(who, `/dam/versions/${v1}/restore`, key)]);
    expect(await listVersions(t, who, assetId)).toHaveLength(3);
    const acted = answers.filter((r) => r.statusCode === 200 && r.headers['idempotent-replayed'] === undefined);
    expect(acted).toHaveLength(1);
    for (const other of answers.filter((r) => !acted.includes(r))) {
      if (other.statusCode === 409) {
        expectError(other, 409, 'IDEMPOTENCY_KEY_IN_USE');
        expect(Number(other.headers['retry-after'])).toBeGreaterThan(0);
      } else {
        expectReplay(acted[0]!, other, 200);
      }
    }
  });

  it('while the first request runs, the key answers 409 IDEMPOTENCY_KEY_IN_USE with Retry-After; an abandoned claim frees it', async () => {
    const who = await registerUser(t);
    const key = newKey();
    const body = { workspace_id: who.workspaceId, name: 'Running' };
    expect((await post(who, '/dam/folders', key, body)).statusCode).toBe(201);
    // The state of a request still running: claimed, no answer yet.
    await t.database.db
      .updateTable('idempotency_keys')
      .set({ status_code: null, content_type: null, response_body: null })
      .where('user_id', '=', who.user.id)
      .where('idempotency_key', '=', key)
      .execute();
    const busy = await post(who, '/dam/folders', key, body);
    expectError(busy, 409, 'IDEMPOTENCY_KEY_IN_USE', 'Idempotency-Key');
    expect(busy.headers['retry-after']).toBe('1');
    expect(await count(who, `/dam/folders?workspaceId=${who.workspaceId}`)).toBe(1);

    // An hour later the claim counts as abandoned (its process died): the key acts again.
    t.advanceClock(3601);
    const retried = await post(who, '/dam/folders', key, body);
    expect(retried.statusCode).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect(await count(who, `/dam/folders?workspaceId=${who.workspaceId}`)).toBe(2);
  });

  it('after 24 hours the key is forgotten and acts again', async () => {
    const who = await registerUser(t);
    const key = newKey();
    const body = { workspace_id: who.workspaceId, name: 'Daily' };
    const first = await post(who, '/dam/folders', key, body);
    t.advanceClock(23 * 3600);
    expectReplay(first, await post(who, '/dam/folders', key, body), 201);
    t.advanceClock(3600);
    const later = await post(who, '/dam/folders', key, body);
    expect(later.statusCode).toBe(201);
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(await count(who, `/dam/folders?workspaceId=${who.workspaceId}`)).toBe(2);
    // A different body is no longer compared with the forgotten request either.
    t.advanceClock(24 * 3600);
    expect((await post(who, '/dam/folders', key, { ...body, name: 'Other' })).statusCode).toBe(201);
  });

  it.each([
    ['empty', ''],
    ['over 255 characters', 'k'.repeat(256)],
    ['not printable ASCII', 'clé-1'],
  ])('a malformed key (%s) is 400 naming the header and acts not', async (_, key) => {
    const who = await registerUser(t);
    const res = await post(who, '/dam/folders', key, { workspace_id: who.workspaceId, name: 'Never' });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json<{ error: string }>().error.toLowerCase()).toContain('idempotency-key');
    expect(await count(who, `/dam/folders?workspaceId=${who.workspaceId}`)).toBe(0);
  });

  it('a key of 255 printable characters is accepted', async () => {
    const who = await registerUser(t);
    const key = `${'~ '.repeat(127)}!`;
    const res = await post(who, '/workspaces', key, { name: 'Long key' });
    expectReplay(res, await post(who, '/workspaces', key, { name: 'Long key' }), 201);
  });

  it('/openapi.json lists the optional Idempotency-Key header on exactly the operations that create things', async () => {
    const doc = (await t.request({ method: 'GET', url: '/openapi.json' })).json<{
      paths: Record<string, Record<string, { parameters?: { in: string; name: string; required?: boolean }[]; description?: string; responses: Record<string, unknown> }>>;
    }>();
    const withHeader: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const header = operation.parameters?.find((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
        if (!header) continue;
        withHeader.push(`${method.toUpperCase()} ${path}`);
        expect(header.required).toBe(false);
        expect(operation.description).toContain('Idempotency-Key');
        expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['409', '422']));
      }
    }
    expect(withHeader.sort()).toEqual(
      [
        'POST /api/upload-asset',
        'POST /convert/image',
        'POST /convert/video',
        'POST /dam/assets/{id}/versions',
        'POST /dam/collections',
        'POST /dam/fields',
        'POST /dam/folders',
        'POST /dam/versions/{id}/restore',
        'POST /drive-ext-1/import',
        'POST /drive-ext-1/upload',
        'POST /drive-ext-2/import',
        'POST /drive-ext-2/upload',
        'POST /drive-ext-3/import',
        'POST /drive-ext-3/upload',
        'POST /generate-image',
        'POST /shared',
        'POST /storage/complete-upload',
        'POST /workspaces',
        'POST /zip/extract',
      ].sort(),
    );
  });
});
