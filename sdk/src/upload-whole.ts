import type { DamClient } from './client.js';
import { apiError } from './errors.js';
import { DEFAULT_RETRY, failureOf, withRetries, type RetryPolicy } from './retry.js';
import { openSource, type UploadSource } from './source.js';

export interface UploadWholeOptions {
  workspaceId: number;
  folderId?: number;
  /** The file name (default: the File's name or the path's base name). */
  name?: string;
  contentType?: string;
  /** Tags of the new asset, set in the same request. */
  tags?: string[];
  /**
   * Sent as Idempotency-Key (default: a new UUID): retries use it, so a request whose answer was lost is answered
   * again instead of making a second asset. A caller that records it can retry safely even after a restart (24 h).
   */
  idempotencyKey?: string;
  signal?: AbortSignal;
  retry?: Partial<RetryPolicy>;
}

/**
 * A file in one request (POST /api/upload-asset, multipart/form-data) instead of the four of the multipart flow:
 * what small files want, since for them the round trips cost more than the bytes. No resume within a file (a retry
 * sends it again); the server refuses files over DAM_MAX_FILE_SIZE. Returns the new asset's id.
 */
export async function uploadWhole(client: DamClient, source: UploadSource, options: UploadWholeOptions): Promise<{ assetId: number }> {
  const retry: RetryPolicy = { ...DEFAULT_RETRY, ...options.retry };
  const file = await openSource(source);
  const key = options.idempotencyKey ?? globalThis.crypto.randomUUID();
  const name = (options.name ?? file.name ?? 'untitled').slice(0, 255) || 'untitled';
  return withRetries(retry, options.signal, async () => {
    const form = new FormData();
    form.set('workspaceId', String(options.workspaceId));
    if (options.folderId !== undefined) form.set('folder_id', String(options.folderId));
    if (options.tags?.length) form.set('tags', JSON.stringify(options.tags));
    // Fields first: the server reads the file part last.
    form.set('file', new Blob([file.blob], { type: options.contentType ?? file.type ?? 'application/octet-stream' }), name);
    const { data, error, response } = await client.api.POST('/api/upload-asset', {
      body: form as never,
      bodySerializer: (body: unknown) => body as FormData,
      headers: { 'idempotency-key': key },
      signal: options.signal,
    });
    if (data) return { assetId: data.data.id };
    const err = await apiError(response, 'upload-asset', error);
    // 409: the first request with this key is still being processed (a retry after a dropped connection).
    throw failureOf(response, err, (status) => status === 409);
  });
}
