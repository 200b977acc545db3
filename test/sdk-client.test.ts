import { randomBytes } from 'node:crypto';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDam, DamApiError, type Dam, type FetchFn, type UploadRef } from '../sdk/src/index.js';
import { dialects, tempDir } from './helpers/databases.js';
import { registerUser, type Account } from './helpers/factories.js';
import { STORE_KINDS, startS3Server, startStorageApp, type S3Server, type StorageTestApp } from './helpers/uploads.js';

/** The SDK (sdk/) against a real server on 127.0.0.1, on both stores and both databases. */

/** A fetch that counts the part PUTs and lets a test fail or hold some of them. */
function partFetch(hooks: { failFirstPut?: boolean; afterPut?: (n: number) => void } = {}): FetchFn & { puts: number[] } {
  const puts: number[] = [];
  let failed = false;
  const fn = (async (request: Request) => {
    const isPut = request.method === 'PUT';
    if (isPut && hooks.failFirstPut && !failed) {
      failed = true;
      // As a dropped connection: fetch rejects with a TypeError.
      throw new TypeError('fetch failed (injected)');
    }
    const response = await fetch(request);
    if (isPut) {
      // S3: ?partNumber=N; the local store: /storage/parts/:uploadId/N.
      const url = new URL(request.url);
      const partNumber = Number(url.searchParams.get('partNumber') ?? url.pathname.split('/').at(-1));
      puts.push(partNumber);
      hooks.afterPut?.(puts.length);
    }
    return response;
  }) as FetchFn & { puts: number[] };
  fn.puts = puts;
  return fn;
}

const bytes = (n: number) => randomBytes(n);

describe.each(STORE_KINDS)('SDK on the %s store', (kind) => {
  describe.each(dialects)('on %s', (dialect) => {
    let s3: S3Server | undefined;
    let t: StorageTestApp;
    let owner: Account;
    const dam = (fetchFn?: FetchFn): Dam => createDam({ baseUrl: t.baseUrl, token: owner.token, ...(fetchFn && { fetch: fetchFn }) });
    const work = tempDir('dam-sdk-');

    beforeAll(async () => {
      if (kind === 's3') s3 = await startS3Server();
      t = await startStorageApp(kind, s3, { dialect });
      owner = await registerUser(t);
    });
    afterAll(async () => {
      await t.close();
      await s3?.close();
    });

    it('uploads a small file in one part, typed answers, and downloads it byte for byte', async () => {
      const client = dam();
      const content = Buffer.from('hello from the sdk\n');
      const progress: number[] = [];
      const up = await client.uploadFile(new File([content], 'hello.txt', { type: 'text/plain' }), {
        workspaceId: owner.workspaceId,
        onProgress: (p) => progress.push(p.loaded),
      });
      expect(up.key).toBe(`${owner.workspaceId}/digital_assets/${up.assetId}`);
      expect(progress).toEqual([content.length]);
      const { data } = await client.api.GET('/dam/assets/{id}', { params: { path: { id: up.assetId } } });
      expect(data?.data).toMatchObject({ display_file_name: 'hello.txt', file_size: content.length, mime_type: 'text/plain' });

      const target = path.join(work, `hello-${kind}-${dialect}.txt`);
      expect(await client.downloadToFile(up.assetId, target)).toBe(content.length);
      expect(Buffer.compare(await readFile(target), content)).toBe(0);
    });

    it('uploads a file from a path in many parts in parallel; a part that fails once is retried', async () => {
      // S3 keeps its own 5 MiB minimum part size; the local store takes the test app's 5 bytes.
      const partSize = kind === 's3' ? 5 * 1024 * 1024 : 64 * 1024;
      const content = bytes(4 * partSize + 17);
      const source = path.join(work, `big-${kind}-${dialect}.bin`);
      await writeFile(source, content);
      const fetchFn = partFetch({ failFirstPut: true });
      const client = dam(fetchFn);
      const seen: { loaded: number; partsDone: number }[] = [];
      const up = await client.uploadFile(source, {
        workspaceId: owner.workspaceId,
        partSize,
        concurrency: 3,
        retry: { baseDelayMs: 10 },
        onProgress: (p) => seen.push({ loaded: p.loaded, partsDone: p.partsDone }),
      });
      // 5 parts; the failed PUT never reached the server and was sent again.
      expect(new Set(fetchFn.puts).size).toBe(5);
      expect(seen.at(-1)).toEqual({ loaded: content.length, partsDone: 5 });
      const { data } = await client.api.GET('/dam/assets/{id}', { params: { path: { id: up.assetId } } });
      expect(data?.data.display_file_name).toBe(path.basename(source));

      const target = path.join(work, `big-${kind}-${dialect}.out`);
      await client.downloadToFile(up.assetId, target);
      expect(Buffer.compare(await readFile(target), content)).toBe(0);
    });

    // s3rver answers neither ListParts nor AbortMultipartUpload: resuming and giving up are checked on the local store.
    it.runIf(kind === 'local')('stops at an abort, keeps the upload open, and a resume sends only the missing parts', async () => {
      const content = bytes(8 * 1000);
      const controller = new AbortController();
      const first = partFetch({ afterPut: (n) => n === 3 && controller.abort(new Error('interrupted')) });
      let ref: UploadRef | undefined;
      const options = { workspaceId: owner.workspaceId, partSize: 1000, concurrency: 1, name: 'resumed.bin' };
      await expect(dam(first).uploadFile(new Blob([content]), { ...options, signal: controller.signal, onStarted: (r) => (ref = r) })).rejects.toThrow(
        'interrupted',
      );
      expect(first.puts).toEqual([1, 2, 3]);
      // Not in the library until completed.
      const listed = await t.request({ method: 'GET', url: `/dam/assets?workspaceId=${owner.workspaceId}`, token: owner.token });
      expect(listed.json<{ data: { items: { id: number }[] } }>().data.items.map((a) => a.id)).not.toContain(ref!.assetId);

      const second = partFetch();
      const up = await dam(second).uploadFile(new Blob([content]), { ...options, resume: ref! });
      expect(second.puts.sort((a, b) => a - b)).toEqual([4, 5, 6, 7, 8]);
      expect(up.assetId).toBe(ref!.assetId);
      const got = await t.request({ method: 'GET', url: `/dam/versions/${(await versionsOf(up.assetId))[0]!.id}/download`, token: owner.token });
      expect(Buffer.compare(got.rawPayload, content)).toBe(0);
    });

    it.runIf(kind === 'local')('an aborted upload can be given up; a signal aborted before the start sends nothing', async () => {
      const controller = new AbortController();
      controller.abort(new Error('never mind'));
      const fetchFn = partFetch();
      await expect(dam(fetchFn).uploadFile(new Blob(['x']), { workspaceId: owner.workspaceId, signal: controller.signal })).rejects.toThrow('never mind');
      expect(fetchFn.puts).toEqual([]);

      const stop = new AbortController();
      let ref: UploadRef | undefined;
      const client = dam(partFetch({ afterPut: () => stop.abort(new Error('stop')) }));
      await expect(
        client.uploadFile(new Blob([bytes(20)]), { workspaceId: owner.workspaceId, partSize: 10, concurrency: 1, signal: stop.signal, onStarted: (r) => (ref = r) }),
      ).rejects.toThrow('stop');
      await client.abortUpload(ref!);
      const parts = await client.api.GET('/storage/list-parts', {
        params: { query: { UploadId: ref!.uploadId, assetId: ref!.assetId, workspaceId: ref!.workspaceId } },
      });
      expect(parts.response.status).toBe(404);
    });

    it('uploads a new version of an asset and downloads either version', async () => {
      const client = dam();
      const up = await client.uploadFile(new Blob(['version one']), { workspaceId: owner.workspaceId, name: 'doc.txt', contentType: 'text/plain' });
      await client.uploadVersion(up.assetId, new Blob(['version two, longer']), { contentType: 'text/plain' });
      const versions = await versionsOf(up.assetId);
      expect(versions.map((v) => v.version)).toEqual(['v2', 'v1']);
      const current = path.join(work, `v-${kind}-${dialect}.txt`);
      await client.downloadToFile(up.assetId, current);
      expect(await readFile(current, 'utf8')).toBe('version two, longer');
      await client.downloadToFile(up.assetId, current, { versionId: versions[1]!.id });
      expect(await readFile(current, 'utf8')).toBe('version one');
      expect((await readdir(work)).filter((f) => f.endsWith('.part'))).toEqual([]);
    });

    it('refusals are DamApiErrors with the status and code of the catalogue', async () => {
      const other = await registerUser(t);
      const err = await dam()
        .uploadFile(new Blob(['x']), { workspaceId: other.workspaceId })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DamApiError);
      expect(err).toMatchObject({ status: 404 });
      const missing = await dam().downloadToFile(999_999, path.join(work, 'missing')).catch((e: unknown) => e);
      expect(missing).toMatchObject({ status: 404 });
    });

    it.runIf(kind === 'local')('a part the store refuses is a DamApiError with its S3 code mapped to the catalogue', async () => {
      // The part PUT sends more than the upload declared: the local store answers S3's 400 EntityTooLarge document.
      const oversize: FetchFn = (request) =>
        request.method === 'PUT' ? fetch(new Request(request.url, { method: 'PUT', body: new Uint8Array(64) })) : fetch(request);
      const err = await dam(oversize)
        .uploadFile(new Blob([bytes(10)]), { workspaceId: owner.workspaceId, name: 'small.bin' })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DamApiError);
      expect(err).toMatchObject({ status: 400, code: 'PAYLOAD_TOO_LARGE', body: { s3Code: 'EntityTooLarge' } });
      expect((err as DamApiError).message).toMatch(/^part 1: 400 Part 1 is 64 bytes, more/);
    });

    async function versionsOf(assetId: number) {
      const { data } = await dam().api.GET('/dam/assets/{id}/versions', { params: { path: { id: assetId } } });
      return data!;
    }
  });
});
