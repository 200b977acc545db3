import type { DamClient } from '../../../sdk/src/client';
import { DEFAULT_RETRY } from '../../../sdk/src/retry';
import { abortUpload, uploadFile, type PartPut, type PartResponse } from '../../../sdk/src/upload';
import { xhrPutPart } from '../../../sdk/src/xhr';
import { ApiError } from '../api/http';
import { damClient, toClientError } from '../api/sdk';
import { translate } from '../i18n';
import { errorMessage } from '../i18n/errors';
import type { UploadRef } from '../api/storage';
import { resumeStore, type ResumeStore } from './resume-store';

export type UploadState = 'idle' | 'uploading' | 'completing' | 'done' | 'failed' | 'cancelled';

export interface UploadOptions {
  workspaceId: number;
  folderId?: number | null;
  /** Preferred bytes per part; raised to the server's minimum (start-upload's minPartSize) and to size / 10,000. */
  partSize?: number;
  /** Parts in flight at once. */
  concurrency?: number;
  /** Attempts of a part (and of the completion) in all, the first included (the SDK's default: 5). */
  attempts?: number;
  /** Delay before the first retry, doubling after (the SDK's default: 500 ms). */
  retryDelayMs?: number;
  /** The SDK client (default: this page's, ../api/sdk.ts); unit tests pass one with a fake fetch. */
  client?: DamClient;
  /** Sends a part's bytes (default: XMLHttpRequest, for progress within a part). */
  putPart?: (put: PartPut) => Promise<PartResponse>;
  store?: ResumeStore;
  onProgress?: (loaded: number, total: number) => void;
  onState?: (state: UploadState) => void;
}

export const DEFAULT_PART_SIZE = 8 * 1024 * 1024;

export function fingerprint(file: File, workspaceId: number): string {
  return `${workspaceId}:${file.name}:${file.size}:${file.lastModified}`;
}

/**
 * One file uploaded straight to storage through the multipart flow (seed 4.3), by the SDK's uploadFile: start-upload
 * (declaring the size, so a plan's limit refuses it before any byte is sent), the parts in parallel through fresh
 * presigned URLs with retries, complete-upload. The upload is remembered (resume-store) until it completes, so after
 * a page reload the same file picks up where it stopped: the SDK asks list-parts which parts the storage already has,
 * and starts over when the server no longer knows the upload. cancel() stops the parts and aborts the upload.
 */
export class MultipartUpload {
  state: UploadState = 'idle';
  ref: UploadRef | null = null;
  error: string | null = null;
  loaded = 0;
  readonly total: number;
  /** Fixed once the upload is started or resumed. */
  partSize: number;
  private readonly controller = new AbortController();
  private readonly client: DamClient;
  private readonly store: ResumeStore;

  constructor(
    readonly file: File,
    private readonly options: UploadOptions,
  ) {
    this.total = file.size;
    this.partSize = options.partSize ?? DEFAULT_PART_SIZE;
    this.client = options.client ?? damClient();
    this.store = options.store ?? resumeStore;
  }

  private setState(state: UploadState): void {
    this.state = state;
    this.options.onState?.(state);
  }

  async run(): Promise<{ assetId: number }> {
    this.setState('uploading');
    this.error = null;
    const key = fingerprint(this.file, this.options.workspaceId);
    const saved = this.store.get(key);
    try {
      const result = await uploadFile(this.client, this.file, {
        workspaceId: this.options.workspaceId,
        ...(this.options.folderId != null && { folderId: this.options.folderId }),
        name: this.file.name,
        contentType: this.file.type || 'application/octet-stream',
        partSize: this.partSize,
        concurrency: this.options.concurrency ?? 4,
        retry: { attempts: this.options.attempts ?? DEFAULT_RETRY.attempts, baseDelayMs: this.options.retryDelayMs ?? DEFAULT_RETRY.baseDelayMs },
        signal: this.controller.signal,
        // The parts already stored were cut with the size the upload started with, whatever this page prefers.
        ...(saved && { resume: { uploadId: saved.ref.uploadId, assetId: saved.ref.assetId, partSize: saved.partSize }, restartIfGone: true }),
        putPart: this.options.putPart ?? xhrPutPart,
        onStarted: (ref) => {
          this.ref = { uploadId: ref.uploadId, assetId: ref.assetId, workspaceId: ref.workspaceId };
          this.partSize = ref.partSize;
          if (saved?.ref.uploadId !== ref.uploadId) {
            this.store.put(key, { ref: this.ref, partSize: ref.partSize, name: this.file.name, size: this.file.size, savedAt: Date.now() });
          }
        },
        onProgress: (p) => {
          this.loaded = Math.min(this.total, p.loaded + p.sending);
          this.options.onProgress?.(this.loaded, this.total);
          if (p.partsDone === p.partsTotal) this.setState('completing');
        },
      });
      this.store.remove(key);
      this.loaded = this.total;
      this.setState('done');
      return { assetId: result.assetId };
    } catch (err) {
      if (this.controller.signal.aborted && this.state === 'cancelled') throw err;
      const failure = toClientError(err, translate('upload.storageFailed'));
      // The server's refusal as the client words it (a full disk, the store unavailable: plain words, issue #37).
      this.error = failure instanceof ApiError && !failure.isNetwork ? errorMessage(failure) : failure instanceof Error ? failure.message : String(failure);
      this.setState('failed');
      // Stop the other parts; the upload stays remembered, so trying again resumes it.
      this.controller.abort();
      throw failure;
    }
  }

  /** Stops the parts in flight and aborts the upload on the server (its parts and unfinished asset go). */
  async cancel(): Promise<void> {
    if (this.state === 'done' || this.state === 'cancelled') return;
    this.setState('cancelled');
    this.controller.abort();
    this.store.remove(fingerprint(this.file, this.options.workspaceId));
    if (this.ref) await abortUpload(this.client, this.ref).catch(() => undefined);
  }
}
