import { describe, expect, it, vi } from 'vitest';
import { createDamClient } from '../../sdk/src/client';
import type { PartPut, PartResponse } from '../../sdk/src/upload';
import { ApiError } from '../src/api/http';
import { billingFailure } from '../src/billing/words';
import { fingerprint, MultipartUpload } from '../src/upload/multipart-upload';
import { memoryResumeStore } from '../src/upload/resume-store';

const MiB = 1024 * 1024;
const PART = 5 * MiB;

function file(size: number, name = 'big.bin'): File {
  return new File([new Uint8Array(size)], name, { type: 'application/octet-stream', lastModified: 1_700_000_000_000 });
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

interface Call {
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
}

/**
 * The API's multipart routes (the SDK's client talks to them through this fetch) and a store that keeps parts in
 * memory (`putPart`); `failures` maps a part number to how many PUTs of it fail first (a network error).
 */
function fakeStorage(
  options: { failures?: Record<number, number>; delayMs?: number; minPartSize?: number; startAnswer?: Response; startFailures?: Response[]; partAnswer?: PartResponse } = {},
) {
  const parts = new Map<string, Map<number, { etag: string; size: number }>>();
  const failures = { ...options.failures };
  const calls: Call[] = [];
  const puts: number[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let uploads = 0;
  const fetch = vi.fn(async (request: Request) => {
    const url = new URL(request.url);
    const query = Object.fromEntries(url.searchParams);
    const body: unknown = request.method === 'POST' ? await request.json() : undefined;
    calls.push({ method: request.method, path: url.pathname, query, body });
    switch (`${request.method} ${url.pathname}`) {
      case 'GET /storage/start-upload':
        if (options.startAnswer) return options.startAnswer.clone();
        if (options.startFailures?.length) return options.startFailures.shift()!;
        uploads += 1;
        parts.set(`u${uploads}`, new Map());
        return json(200, { uploadId: `u${uploads}`, assetId: 40 + uploads, minPartSize: options.minPartSize ?? 0 });
      case 'GET /storage/get-upload-url':
        return json(200, { url: `http://store/${query.UploadId}/${query.PartNumber}`, expiresIn: 3600 });
      case 'GET /storage/list-parts': {
        const stored = parts.get(query.UploadId!);
        if (!stored) return json(404, { error: 'Unknown upload id', code: 'INVALID_UPLOAD_ID' });
        return json(200, { parts: [...stored.entries()].map(([PartNumber, p]) => ({ PartNumber, ETag: p.etag, Size: p.size })) });
      }
      case 'POST /storage/complete-upload':
        return json(200, { success: true, location: '/storage/download?key=k', key: 'k' });
      case 'DELETE /storage/abort-upload':
        parts.delete(query.UploadId!);
        return json(200, { success: true });
      default:
        return json(404, { error: `Route ${request.method}:${url.pathname} not found`, code: 'NOT_FOUND' });
    }
  });
  const putPart = vi.fn(async ({ url, body, signal, onBytes }: PartPut): Promise<PartResponse> => {
    const [uploadId, n] = url.split('/').slice(-2) as [string, string];
    const part = Number(n);
    puts.push(part);
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      onBytes(body.size / 2);
      await new Promise((resolve, reject) => {
        const t = setTimeout(resolve, options.delayMs ?? 5);
        signal?.addEventListener('abort', () => {
          clearTimeout(t);
          reject(new DOMException('aborted', 'AbortError'));
        });
      });
      if ((failures[part] ?? 0) > 0) {
        failures[part]! -= 1;
        throw new TypeError('The connection to the storage failed');
      }
      if (options.partAnswer) return options.partAnswer;
      parts.get(uploadId)!.set(part, { etag: `"etag-${part}"`, size: body.size });
      return { status: 200, etag: `"etag-${part}"` };
    } finally {
      inFlight -= 1;
    }
  });
  const client = createDamClient({ baseUrl: 'http://dam.test', fetch });
  const of = (method: string, path: string) => calls.filter((c) => c.method === method && c.path === path);
  return { client, putPart, parts, puts, failures, of, get maxInFlight() { return maxInFlight; } };
}

type Storage = ReturnType<typeof fakeStorage>;
const via = (storage: Storage) => ({ client: storage.client, putPart: storage.putPart, retryDelayMs: 1 });

describe('MultipartUpload (seed 4.3 flow, through the SDK)', () => {
  it('uploads the parts in parallel and completes with them in order, reporting progress within parts', async () => {
    const storage = fakeStorage();
    const progress: number[] = [];
    const f = file(4 * PART + 123);
    const upload = new MultipartUpload(f, { workspaceId: 3, folderId: 8, partSize: PART, concurrency: 3, ...via(storage), store: memoryResumeStore(), onProgress: (loaded) => progress.push(loaded) });
    await expect(upload.run()).resolves.toEqual({ assetId: 41 });
    // The size is declared up front, so a plan's storage limit refuses the upload before any part is sent (issue #17).
    expect(storage.of('GET', '/storage/start-upload')[0]!.query).toEqual({ workspaceId: '3', fileType: 'application/octet-stream', fileName: 'big.bin', folderId: '8', fileSize: String(4 * PART + 123) });
    expect(storage.maxInFlight).toBe(3);
    expect(storage.of('POST', '/storage/complete-upload')[0]!.body).toEqual({
      uploadId: 'u1',
      assetId: 41,
      workspaceId: 3,
      parts: [1, 2, 3, 4, 5].map((n) => ({ PartNumber: n, ETag: `"etag-${n}"` })),
    });
    expect([...storage.parts.get('u1')!.values()].map((p) => p.size)).toEqual([PART, PART, PART, PART, 123]);
    expect(progress.at(-1)).toBe(f.size);
    // Half a part, as the sender reported it, before any part was stored.
    expect(progress).toContain(PART / 2);
    expect(upload.state).toBe('done');
  });

  it('retries a failed part automatically, through a fresh URL', async () => {
    const storage = fakeStorage({ failures: { 2: 2 } });
    const upload = new MultipartUpload(file(3 * PART), { workspaceId: 1, partSize: PART, ...via(storage), store: memoryResumeStore() });
    await upload.run();
    expect(storage.puts.filter((n) => n === 2)).toHaveLength(3);
    expect(storage.of('GET', '/storage/get-upload-url').filter((c) => c.query.PartNumber === '2')).toHaveLength(3);
    expect(upload.state).toBe('done');
  });

  it('fails after the attempts run out and keeps the upload to resume', async () => {
    const storage = fakeStorage({ failures: { 1: 10 } });
    const store = memoryResumeStore();
    const f = file(2 * PART);
    const upload = new MultipartUpload(f, { workspaceId: 1, partSize: PART, attempts: 3, ...via(storage), store });
    const failure = await upload.run().catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).status).toBe(0);
    expect(upload.error).toMatch(/connection to the storage failed/);
    expect(upload.state).toBe('failed');
    expect(storage.puts.filter((n) => n === 1)).toHaveLength(3);
    expect(storage.of('POST', '/storage/complete-upload')).toHaveLength(0);
    expect(store.get(fingerprint(f, 1))?.ref.uploadId).toBe('u1');
  });

  it('resumes after a reload: list-parts tells which parts are stored, only the rest are sent', async () => {
    const storage = fakeStorage({ failures: { 3: 10 } });
    const store = memoryResumeStore();
    const f = file(3 * PART + 10);
    const first = new MultipartUpload(f, { workspaceId: 2, partSize: PART, concurrency: 1, attempts: 1, ...via(storage), store });
    await expect(first.run()).rejects.toThrow();
    expect([...storage.parts.get('u1')!.keys()].sort()).toEqual([1, 2]);

    // A new page: same file, new upload object, the remembered upload id; the network is back.
    storage.puts.length = 0;
    storage.failures[3] = 0;
    const loaded: number[] = [];
    const second = new MultipartUpload(f, { workspaceId: 2, partSize: PART, ...via(storage), store, onProgress: (l) => loaded.push(l) });
    await second.run();
    expect(storage.of('GET', '/storage/list-parts')[0]!.query).toEqual({ UploadId: 'u1', assetId: '41', workspaceId: '2' });
    expect(storage.of('GET', '/storage/start-upload')).toHaveLength(1);
    expect(storage.puts.sort()).toEqual([3, 4]);
    expect(loaded[0]).toBe(2 * PART); // the stored parts count as done at once
    const completed = storage.of('POST', '/storage/complete-upload').at(-1)!.body as { parts: { PartNumber: number }[] };
    expect(completed.parts.map((p) => p.PartNumber)).toEqual([1, 2, 3, 4]);
    expect(store.entries()).toEqual([]);
  });

  it('grows its parts to the minimum the server answers at start (DAM_MIN_PART_SIZE above the preferred size)', async () => {
    const storage = fakeStorage({ minPartSize: 2 * PART });
    const upload = new MultipartUpload(file(4 * PART + 1), { workspaceId: 1, partSize: PART, ...via(storage), store: memoryResumeStore() });
    await upload.run();
    expect(upload.partSize).toBe(2 * PART);
    expect([...storage.parts.get('u1')!.values()].map((p) => p.size)).toEqual([2 * PART, 2 * PART, 1]);
  });

  it('resumes with the part size the upload started with, whatever the new page prefers', async () => {
    const storage = fakeStorage({ failures: { 2: 10 } });
    const store = memoryResumeStore();
    const f = file(3 * PART);
    await expect(new MultipartUpload(f, { workspaceId: 2, partSize: PART, concurrency: 1, attempts: 1, ...via(storage), store }).run()).rejects.toThrow();
    storage.failures[2] = 0;
    storage.puts.length = 0;
    const second = new MultipartUpload(f, { workspaceId: 2, partSize: 2 * PART, ...via(storage), store });
    await second.run();
    expect(storage.of('GET', '/storage/start-upload')).toHaveLength(1);
    expect(storage.puts.sort()).toEqual([2, 3]);
    expect([...storage.parts.get('u1')!.entries()].sort((a, b) => a[0] - b[0]).map(([, p]) => p.size)).toEqual([PART, PART, PART]);
  });

  it('starts over when the remembered upload is gone from the server', async () => {
    const storage = fakeStorage();
    const store = memoryResumeStore();
    const f = file(PART);
    store.put(fingerprint(f, 1), { ref: { uploadId: 'expired', assetId: 9, workspaceId: 1 }, partSize: PART, name: f.name, size: f.size, savedAt: Date.now() });
    const upload = new MultipartUpload(f, { workspaceId: 1, partSize: PART, ...via(storage), store });
    await expect(upload.run()).resolves.toEqual({ assetId: 41 });
    expect(storage.of('GET', '/storage/start-upload')).toHaveLength(1);
    expect(store.entries()).toEqual([]);
  });

  it('cancels: the parts in flight stop and the upload is aborted on the server', async () => {
    const storage = fakeStorage({ delayMs: 200 });
    const store = memoryResumeStore();
    const f = file(4 * PART);
    const upload = new MultipartUpload(f, { workspaceId: 1, partSize: PART, ...via(storage), store });
    const running = upload.run();
    await vi.waitFor(() => expect(storage.puts.length).toBeGreaterThan(0));
    await upload.cancel();
    await expect(running).rejects.toThrow();
    expect(upload.state).toBe('cancelled');
    expect(storage.of('DELETE', '/storage/abort-upload')[0]!.query).toEqual({ UploadId: 'u1', assetId: '41', workspaceId: '1' });
    expect(storage.of('POST', '/storage/complete-upload')).toHaveLength(0);
    expect(store.entries()).toEqual([]);
  });

  it('sends an empty file as one empty part', async () => {
    const storage = fakeStorage();
    await new MultipartUpload(file(0), { workspaceId: 1, ...via(storage), store: memoryResumeStore() }).run();
    expect([...storage.parts.get('u1')!.values()].map((p) => p.size)).toEqual([0]);
  });

  it('waits out a start-upload answered 503 with Retry-After (the database restarting) and uploads (issue #37)', async () => {
    const unavailable = () =>
      new Response(JSON.stringify({ error: 'The database is unavailable for the moment; try again shortly', code: 'DATABASE_UNAVAILABLE' }), {
        status: 503,
        headers: { 'content-type': 'application/json', 'retry-after': '0' },
      });
    const storage = fakeStorage({ startFailures: [unavailable(), unavailable()] });
    const upload = new MultipartUpload(file(PART), { workspaceId: 1, partSize: PART, ...via(storage), store: memoryResumeStore() });
    await expect(upload.run()).resolves.toEqual({ assetId: 41 });
    expect(storage.of('GET', '/storage/start-upload')).toHaveLength(3);
  });

  it('a full disk refusing the parts fails the upload with plain words and the code, once the attempts are used (issue #37)', async () => {
    const full = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>XMinioStorageFull</Code><Message>There is not enough free disk space</Message></Error>';
    const storage = fakeStorage({ partAnswer: { status: 507, etag: null, body: full } });
    const upload = new MultipartUpload(file(PART), { workspaceId: 1, partSize: PART, attempts: 2, ...via(storage), store: memoryResumeStore() });
    const err = await upload.run().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('INSUFFICIENT_STORAGE');
    expect(upload.error).toBe('The disk is full — nothing was saved. Try again later.');
    expect(storage.puts).toEqual([1, 1]);
    expect(storage.of('POST', '/storage/complete-upload')).toHaveLength(0);
  });

  it("a plan's refusal (402) keeps its reason: the server's message, code and which limit", async () => {
    const refusal = json(402, { error: 'The workspace is over its storage limit', code: 'QUOTA_EXCEEDED', limit: 'storage_bytes', used: 900, requested: 200 });
    const storage = fakeStorage({ startAnswer: refusal });
    const upload = new MultipartUpload(file(200), { workspaceId: 1, ...via(storage), store: memoryResumeStore() });
    const err = await upload.run().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(upload.error).toBe('The workspace is over its storage limit');
    expect(billingFailure(err)).toEqual({ code: 'QUOTA_EXCEEDED', quota: { limit: 'storage_bytes', used: 900, requested: 200 } });
    expect(storage.puts).toEqual([]);
  });
});
