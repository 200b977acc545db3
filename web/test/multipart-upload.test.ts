import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../src/api/http';
import type { UploadRef } from '../src/api/storage';
import { fingerprint, MultipartUpload, type UploadTransport } from '../src/upload/multipart-upload';
import { memoryResumeStore } from '../src/upload/resume-store';

const MiB = 1024 * 1024;
const PART = 5 * MiB;

function file(size: number, name = 'big.bin'): File {
  return new File([new Uint8Array(size)], name, { type: 'application/octet-stream', lastModified: 1_700_000_000_000 });
}

/** A storage that keeps parts in memory; `failures` maps a part number to how many PUTs of it fail first. */
function fakeStorage(options: { failures?: Record<number, number>; delayMs?: number; minPartSize?: number } = {}) {
  const parts = new Map<string, Map<number, { etag: string; size: number }>>();
  const failures = { ...options.failures };
  let inFlight = 0;
  let maxInFlight = 0;
  let uploads = 0;
  const puts: number[] = [];
  const transport: UploadTransport & Record<string, unknown> = {
    start: vi.fn(async () => {
      uploads += 1;
      parts.set(`u${uploads}`, new Map());
      return { uploadId: `u${uploads}`, assetId: 40 + uploads, minPartSize: options.minPartSize };
    }),
    uploadUrl: vi.fn(async (ref: UploadRef, n: number) => ({ url: `http://store/${ref.uploadId}/${n}` })),
    putPart: vi.fn(async (url: string, body: Blob, onProgress: (loaded: number) => void, signal: AbortSignal) => {
      const [uploadId, n] = url.split('/').slice(-2) as [string, string];
      const part = Number(n);
      puts.push(part);
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        onProgress(body.size / 2);
        await new Promise((resolve, reject) => {
          const t = setTimeout(resolve, options.delayMs ?? 5);
          signal.addEventListener('abort', () => {
            clearTimeout(t);
            reject(new DOMException('aborted', 'AbortError'));
          });
        });
        if ((failures[part] ?? 0) > 0) {
          failures[part]! -= 1;
          throw new ApiError('The connection to the storage failed', 0);
        }
        parts.get(uploadId)!.set(part, { etag: `"etag-${part}"`, size: body.size });
        return `"etag-${part}"`;
      } finally {
        inFlight -= 1;
      }
    }),
    complete: vi.fn(async () => ({ success: true })),
    listParts: vi.fn(async (ref: UploadRef) => {
      const stored = parts.get(ref.uploadId);
      if (!stored) throw new ApiError('Unknown upload id', 404, 'INVALID_UPLOAD_ID');
      return { parts: [...stored.entries()].map(([PartNumber, p]) => ({ PartNumber, ETag: p.etag, Size: p.size })) };
    }),
    abort: vi.fn(async (ref: UploadRef) => {
      parts.delete(ref.uploadId);
      return { success: true };
    }),
  };
  return { transport, parts, puts, failures, get maxInFlight() { return maxInFlight; } };
}

const noDelay = () => 0;

describe('MultipartUpload (seed 4.3 flow)', () => {
  it('uploads the parts in parallel and completes with them in order, reporting progress', async () => {
    const storage = fakeStorage();
    const progress: number[] = [];
    const f = file(4 * PART + 123);
    const upload = new MultipartUpload(f, { workspaceId: 3, folderId: 8, partSize: PART, concurrency: 3, transport: storage.transport, store: memoryResumeStore(), onProgress: (loaded) => progress.push(loaded) });
    await expect(upload.run()).resolves.toEqual({ assetId: 41 });
    // The size is declared up front, so a plan's storage limit refuses the upload before any part is sent (issue #17).
    expect(storage.transport.start).toHaveBeenCalledWith({ workspaceId: 3, fileType: 'application/octet-stream', fileName: 'big.bin', folderId: 8, fileSize: 4 * PART + 123 });
    expect(storage.maxInFlight).toBe(3);
    expect(storage.transport.complete).toHaveBeenCalledWith({ uploadId: 'u1', assetId: 41, workspaceId: 3 }, [1, 2, 3, 4, 5].map((n) => ({ PartNumber: n, ETag: `"etag-${n}"` })));
    expect([...storage.parts.get('u1')!.values()].map((p) => p.size)).toEqual([PART, PART, PART, PART, 123]);
    expect(progress.at(-1)).toBe(f.size);
    expect(progress.some((p) => p > 0 && p < f.size)).toBe(true);
    expect(upload.state).toBe('done');
  });

  it('retries a failed part automatically, through a fresh URL', async () => {
    const storage = fakeStorage({ failures: { 2: 2 } });
    const upload = new MultipartUpload(file(3 * PART), { workspaceId: 1, partSize: PART, retryDelayMs: noDelay, transport: storage.transport, store: memoryResumeStore() });
    await upload.run();
    expect(storage.puts.filter((n) => n === 2)).toHaveLength(3);
    expect(vi.mocked(storage.transport.uploadUrl).mock.calls.filter(([, n]) => n === 2)).toHaveLength(3);
    expect(upload.state).toBe('done');
  });

  it('fails after the retries run out and keeps the upload to resume', async () => {
    const storage = fakeStorage({ failures: { 1: 10 } });
    const store = memoryResumeStore();
    const f = file(2 * PART);
    const upload = new MultipartUpload(f, { workspaceId: 1, partSize: PART, retries: 2, retryDelayMs: noDelay, transport: storage.transport, store });
    await expect(upload.run()).rejects.toThrow(/connection to the storage failed/);
    expect(upload.state).toBe('failed');
    expect(storage.transport.complete).not.toHaveBeenCalled();
    expect(store.get(fingerprint(f, 1))?.ref.uploadId).toBe('u1');
  });

  it('resumes after a reload: list-parts tells which parts are stored, only the rest are sent', async () => {
    const storage = fakeStorage({ failures: { 3: 10 } });
    const store = memoryResumeStore();
    const f = file(3 * PART + 10);
    const first = new MultipartUpload(f, { workspaceId: 2, partSize: PART, concurrency: 1, retries: 0, transport: storage.transport, store });
    await expect(first.run()).rejects.toThrow();
    const storedBefore = [...storage.parts.get('u1')!.keys()].sort();
    expect(storedBefore).toEqual([1, 2]);

    // A new page: same file, new upload object, the remembered upload id; the network is back.
    storage.puts.length = 0;
    storage.failures[3] = 0;
    const loaded: number[] = [];
    const second = new MultipartUpload(f, { workspaceId: 2, partSize: PART, transport: storage.transport, store, onProgress: (l) => loaded.push(l) });
    await second.run();
    expect(storage.transport.listParts).toHaveBeenCalledWith({ uploadId: 'u1', assetId: 41, workspaceId: 2 });
    expect(storage.transport.start).toHaveBeenCalledTimes(1);
    expect(storage.puts.sort()).toEqual([3, 4]);
    expect(loaded.slice(0, 2)).toEqual([PART, 2 * PART]); // the stored parts count as done at once
    expect(vi.mocked(storage.transport.complete).mock.calls.at(-1)![1].map((p) => p.PartNumber)).toEqual([1, 2, 3, 4]);
    expect(store.entries()).toEqual([]);
  });

  it('grows its parts to the minimum the server answers at start (DAM_MIN_PART_SIZE above the preferred size)', async () => {
    const storage = fakeStorage({ minPartSize: 2 * PART });
    const upload = new MultipartUpload(file(4 * PART + 1), { workspaceId: 1, partSize: PART, transport: storage.transport, store: memoryResumeStore() });
    await upload.run();
    expect(upload.partSize).toBe(2 * PART);
    expect([...storage.parts.get('u1')!.values()].map((p) => p.size)).toEqual([2 * PART, 2 * PART, 1]);
  });

  it('resumes with the part size the upload started with, whatever the new page prefers', async () => {
    const storage = fakeStorage({ failures: { 2: 10 } });
    const store = memoryResumeStore();
    const f = file(3 * PART);
    await expect(new MultipartUpload(f, { workspaceId: 2, partSize: PART, concurrency: 1, retries: 0, transport: storage.transport, store }).run()).rejects.toThrow();
    storage.failures[2] = 0;
    storage.puts.length = 0;
    const second = new MultipartUpload(f, { workspaceId: 2, partSize: 2 * PART, transport: storage.transport, store });
    await second.run();
    expect(storage.transport.start).toHaveBeenCalledTimes(1);
    expect(storage.puts.sort()).toEqual([2, 3]);
    expect([...storage.parts.get('u1')!.entries()].sort((a, b) => a[0] - b[0]).map(([, p]) => p.size)).toEqual([PART, PART, PART]);
  });

  it('starts over when the remembered upload is gone from the server', async () => {
    const storage = fakeStorage();
    const store = memoryResumeStore();
    const f = file(PART);
    store.put(fingerprint(f, 1), { ref: { uploadId: 'expired', assetId: 9, workspaceId: 1 }, partSize: PART, name: f.name, size: f.size, savedAt: Date.now() });
    const upload = new MultipartUpload(f, { workspaceId: 1, partSize: PART, transport: storage.transport, store });
    await expect(upload.run()).resolves.toEqual({ assetId: 41 });
    expect(storage.transport.start).toHaveBeenCalledOnce();
  });

  it('cancels: the parts in flight stop and the upload is aborted on the server', async () => {
    const storage = fakeStorage({ delayMs: 200 });
    const store = memoryResumeStore();
    const f = file(4 * PART);
    const upload = new MultipartUpload(f, { workspaceId: 1, partSize: PART, transport: storage.transport, store });
    const running = upload.run();
    await vi.waitFor(() => expect(storage.puts.length).toBeGreaterThan(0));
    await upload.cancel();
    await expect(running).rejects.toThrow();
    expect(upload.state).toBe('cancelled');
    expect(storage.transport.abort).toHaveBeenCalledWith({ uploadId: 'u1', assetId: 41, workspaceId: 1 });
    expect(storage.transport.complete).not.toHaveBeenCalled();
    expect(store.entries()).toEqual([]);
  });

  it('sends an empty file as one empty part, and keeps parts under 10,000', () => {
    expect(new MultipartUpload(file(0), { workspaceId: 1 }).partCount).toBe(1);
    const huge = { size: 200 * 1024 * MiB, name: 'huge', type: '', lastModified: 0, slice: () => new Blob() } as unknown as File;
    expect(new MultipartUpload(huge, { workspaceId: 1 }).partCount).toBeLessThanOrEqual(10_000);
  });
});
