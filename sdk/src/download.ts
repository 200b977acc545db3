import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { DamClient } from './client.js';
import { apiError } from './errors.js';

export interface DownloadOptions {
  /** A version of the asset other than the current one. */
  versionId?: number;
  signal?: AbortSignal;
  /** Called as bytes arrive; `total` is the Content-Length when the server sends one. */
  onProgress?: (progress: { loaded: number; total: number | undefined }) => void;
}

/** The current version of an asset (GET /dam/assets/{id}/versions). */
async function currentVersionId(client: DamClient, assetId: number, signal?: AbortSignal): Promise<number> {
  const { data, error, response } = await client.api.GET('/dam/assets/{id}/versions', { params: { path: { id: assetId } }, signal });
  if (!data) throw await apiError(response, `versions of asset ${assetId}`, error);
  const current = data.find((v) => v.is_current);
  if (!current) throw new Error(`asset ${assetId} has no current version`);
  return current.id;
}

/**
 * Node only: writes an asset's current file (or `versionId`'s) to `filePath`, streamed, through a temporary file
 * beside it that is renamed into place once whole (an interrupted download leaves no partial file at `filePath`).
 * Returns the bytes written.
 */
export async function downloadToFile(client: DamClient, assetId: number, filePath: string, options: DownloadOptions = {}): Promise<number> {
  const { signal } = options;
  const versionId = options.versionId ?? (await currentVersionId(client, assetId, signal));
  const { response, error } = await client.api.GET('/dam/versions/{id}/download', { params: { path: { id: versionId }, query: {} }, parseAs: 'stream', signal });
  if (!response.ok || !response.body) throw await apiError(response, `download of version ${versionId}`, error);

  const [{ createWriteStream }, { rename, rm }, { Readable, Transform }, { pipeline }] = await Promise.all([
    import('node:fs'),
    import('node:fs/promises'),
    import('node:stream'),
    import('node:stream/promises'),
  ]);
  const length = Number(response.headers.get('content-length'));
  const total = Number.isFinite(length) && response.headers.has('content-length') ? length : undefined;
  let loaded = 0;
  const count = new Transform({
    transform(chunk: Buffer, _enc, done) {
      loaded += chunk.length;
      options.onProgress?.({ loaded, total });
      done(null, chunk);
    },
  });
  const temporary = `${filePath}.${globalThis.crypto.randomUUID().slice(0, 8)}.part`;
  try {
    await pipeline(Readable.fromWeb(response.body as NodeReadableStream), count, createWriteStream(temporary), { signal });
    await rename(temporary, filePath);
  } catch (err) {
    await rm(temporary, { force: true });
    throw err;
  }
  return loaded;
}
