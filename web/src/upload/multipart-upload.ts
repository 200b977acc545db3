import { ApiError } from '../api/http';
import { storageApi, type UploadRef } from '../api/storage';
import type { UploadPart } from '../api/types';
import { resumeStore, type ResumeStore } from './resume-store';

/** What an upload needs from the server and the store (the browser's, or a fake in unit tests). */
export interface UploadTransport {
  /** `minPartSize`: the server's smallest part (all but the last); the upload's parts grow to it. */
  start(input: { workspaceId: number; fileType: string; fileName: string; folderId?: number | null; fileSize?: number }): Promise<{ uploadId: string; assetId: number; minPartSize?: number }>;
  uploadUrl(ref: UploadRef, partNumber: number, signal: AbortSignal): Promise<{ url: string }>;
  /** PUTs one part to its presigned URL and answers the ETag the store returned. */
  putPart(url: string, body: Blob, onProgress: (loaded: number) => void, signal: AbortSignal): Promise<string>;
  complete(ref: UploadRef, parts: UploadPart[]): Promise<unknown>;
  listParts(ref: UploadRef): Promise<{ parts: { PartNumber: number; ETag: string; Size: number }[] }>;
  abort(ref: UploadRef): Promise<unknown>;
}

export type UploadState = 'idle' | 'uploading' | 'completing' | 'done' | 'failed' | 'cancelled';

export interface UploadOptions {
  workspaceId: number;
  folderId?: number | null;
  /** Preferred bytes per part; raised to the server's minimum (start-upload's minPartSize) and to size / 10,000. */
  partSize?: number;
  /** Parts in flight at once. */
  concurrency?: number;
  /** Further attempts of a failed part before the upload fails. */
  retries?: number;
  retryDelayMs?: (attempt: number) => number;
  transport?: UploadTransport;
  store?: ResumeStore;
  onProgress?: (loaded: number, total: number) => void;
  onState?: (state: UploadState) => void;
}

export const DEFAULT_PART_SIZE = 8 * 1024 * 1024;
const MAX_PARTS = 10_000;

class Cancelled extends Error {
  override readonly name = 'AbortError';
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new Cancelled('cancelled'));
    }, { once: true });
  });

/** The browser's transport: the API for the flow, XMLHttpRequest for parts (fetch cannot report upload progress). */
export const browserTransport: UploadTransport = {
  start: (input) => storageApi.startUpload(input),
  uploadUrl: (ref, n, signal) => storageApi.uploadUrl(ref, n, signal),
  complete: (ref, parts) => storageApi.complete(ref, parts),
  listParts: (ref) => storageApi.listParts(ref),
  abort: (ref) => storageApi.abort(ref),
  putPart: (url, body, onProgress, signal) =>
    new Promise<string>((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open('PUT', url);
      xhr.upload.onprogress = (e) => onProgress(e.loaded);
      xhr.onerror = () => reject(new ApiError('The connection to the storage failed', 0));
      xhr.onabort = () => reject(new Cancelled('cancelled'));
      xhr.onload = () => {
        const etag = xhr.getResponseHeader('ETag');
        if (xhr.status >= 200 && xhr.status < 300 && etag) return resolve(etag);
        if (xhr.status >= 200 && xhr.status < 300) return reject(new ApiError('The storage answered without an ETag (its CORS rules must expose ETag)', xhr.status));
        reject(new ApiError(`The storage refused the part (${xhr.status})`, xhr.status));
      };
      signal.addEventListener('abort', () => xhr.abort(), { once: true });
      xhr.send(body);
    }),
};

export function fingerprint(file: File, workspaceId: number): string {
  return `${workspaceId}:${file.name}:${file.size}:${file.lastModified}`;
}

/**
 * One file uploaded straight to storage through the multipart flow (seed 4.3):
 * start-upload, then its parts in parallel (each through a fresh presigned
 * URL, a failed part retried with backoff), then complete-upload. The upload
 * is remembered (resume-store) until it completes, so after a page reload the
 * same file picks up where it stopped: list-parts tells which parts the
 * storage already has. cancel() aborts the parts in flight and the upload.
 */
export class MultipartUpload {
  state: UploadState = 'idle';
  ref: UploadRef | null = null;
  error: string | null = null;
  readonly total: number;
  /** Fixed once the upload is started or resumed (open()). */
  partSize: number;
  private readonly controller = new AbortController();
  private readonly loadedByPart = new Map<number, number>();
  private readonly transport: UploadTransport;
  private readonly store: ResumeStore;

  constructor(
    readonly file: File,
    private readonly options: UploadOptions,
  ) {
    this.total = file.size;
    this.partSize = Math.max(options.partSize ?? DEFAULT_PART_SIZE, Math.ceil(file.size / MAX_PARTS));
    this.transport = options.transport ?? browserTransport;
    this.store = options.store ?? resumeStore;
  }

  get partCount(): number {
    return Math.max(1, Math.ceil(this.total / this.partSize));
  }

  get loaded(): number {
    let sum = 0;
    for (const n of this.loadedByPart.values()) sum += n;
    return sum;
  }

  private partBounds(n: number): { start: number; end: number } {
    const start = (n - 1) * this.partSize;
    return { start, end: Math.min(this.total, start + this.partSize) };
  }

  private setState(state: UploadState): void {
    this.state = state;
    this.options.onState?.(state);
  }

  private progress(part: number, loaded: number): void {
    this.loadedByPart.set(part, loaded);
    this.options.onProgress?.(this.loaded, this.total);
  }

  async run(): Promise<{ assetId: number }> {
    this.setState('uploading');
    this.error = null;
    try {
      const done = await this.open();
      const etags = new Map<number, string>(done);
      const todo: number[] = [];
      for (let n = 1; n <= this.partCount; n += 1) if (!etags.has(n)) todo.push(n);
      const workers = Array.from({ length: Math.min(this.options.concurrency ?? 4, todo.length) }, async () => {
        for (let n = todo.shift(); n !== undefined; n = todo.shift()) etags.set(n, await this.uploadPart(n));
      });
      await Promise.all(workers);
      this.check();
      this.setState('completing');
      const parts = [...etags.entries()].sort((a, b) => a[0] - b[0]).map(([PartNumber, ETag]) => ({ PartNumber, ETag }));
      await this.transport.complete(this.ref!, parts);
      this.store.remove(fingerprint(this.file, this.options.workspaceId));
      this.setState('done');
      return { assetId: this.ref!.assetId };
    } catch (err) {
      if (this.controller.signal.aborted) {
        this.setState('cancelled');
      } else {
        this.error = err instanceof Error ? err.message : String(err);
        this.setState('failed');
        // Stop the other parts; the upload stays remembered, so trying again resumes it.
        this.controller.abort();
      }
      throw err;
    }
  }

  /** Starts the upload, or reopens a remembered one: answers the parts the storage already holds. */
  private async open(): Promise<Map<number, string>> {
    const key = fingerprint(this.file, this.options.workspaceId);
    const saved = this.store.get(key);
    if (saved) {
      try {
        const listed = await this.transport.listParts(saved.ref);
        this.ref = saved.ref;
        // The parts already stored were cut with the size the upload started with.
        this.partSize = saved.partSize;
        const done = new Map<number, string>();
        for (const p of listed.parts) {
          const { start, end } = this.partBounds(p.PartNumber);
          // A part cut short (the page closed mid-PUT) is uploaded again.
          if (p.PartNumber <= this.partCount && p.Size === end - start) {
            done.set(p.PartNumber, p.ETag);
            this.progress(p.PartNumber, p.Size);
          }
        }
        return done;
      } catch (err) {
        // The upload expired or was aborted elsewhere: start over.
        if (!(err instanceof ApiError) || err.isNetwork) throw err;
        this.store.remove(key);
      }
    }
    this.check();
    const started = await this.transport.start({
      workspaceId: this.options.workspaceId,
      fileType: this.file.type || 'application/octet-stream',
      fileName: this.file.name,
      folderId: this.options.folderId,
      fileSize: this.file.size,
    });
    this.ref = { uploadId: started.uploadId, assetId: started.assetId, workspaceId: this.options.workspaceId };
    this.partSize = Math.max(this.partSize, started.minPartSize ?? 0);
    this.store.put(key, { ref: this.ref, partSize: this.partSize, name: this.file.name, size: this.file.size, savedAt: Date.now() });
    return new Map();
  }

  private async uploadPart(n: number): Promise<string> {
    const { start, end } = this.partBounds(n);
    const body = this.file.slice(start, end);
    const retries = this.options.retries ?? 3;
    const delay = this.options.retryDelayMs ?? ((attempt: number) => 500 * 3 ** (attempt - 1));
    for (let attempt = 0; ; attempt += 1) {
      this.check();
      try {
        // A fresh URL each attempt: the last one may have expired.
        const { url } = await this.transport.uploadUrl(this.ref!, n, this.controller.signal);
        const etag = await this.transport.putPart(url, body, (loaded) => this.progress(n, loaded), this.controller.signal);
        this.progress(n, end - start);
        return etag;
      } catch (err) {
        this.check();
        this.progress(n, 0);
        const clientError = err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 403 && err.status !== 408 && err.status !== 429;
        if (attempt >= retries || clientError) throw err;
        await sleep(delay(attempt + 1), this.controller.signal);
      }
    }
  }

  private check(): void {
    if (this.controller.signal.aborted) throw new Cancelled('cancelled');
  }

  /** Stops the parts in flight and aborts the upload on the server (its parts and unfinished asset go). */
  async cancel(): Promise<void> {
    if (this.state === 'done' || this.state === 'cancelled') return;
    this.controller.abort();
    this.setState('cancelled');
    this.store.remove(fingerprint(this.file, this.options.workspaceId));
    if (this.ref) await this.transport.abort(this.ref).catch(() => undefined);
  }
}
