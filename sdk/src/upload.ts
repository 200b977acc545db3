import type { DamClient } from './client.js';
import { apiError, DamApiError, partError } from './errors.js';
import { DEFAULT_RETRY, failureOf, isRetryableStatus, RetryableError, withRetries, type RetryPolicy } from './retry.js';
import { openSource, type UploadSource } from './source.js';

/** The server refuses more parts than this (S3's limit). */
const MAX_PARTS = 10_000;
const DEFAULT_PART_SIZE = 8 * 1024 * 1024;
const DEFAULT_CONCURRENCY = 4;

export interface UploadProgress {
  /** Bytes of the parts stored so far (parts found by a resume count at once). */
  loaded: number;
  total: number;
  partsDone: number;
  partsTotal: number;
  /** Bytes of the parts being sent, as far as a `putPart` reports them (0 with the default sender). */
  sending: number;
}

/** What `putPart` answers: the store's status and the part's ETag (null when the store sent none). */
export interface PartResponse {
  status: number;
  etag: string | null;
  /** The body of a refusal (S3's XML error document), when the sender read it. */
  body?: string;
}

/** One part's PUT to its presigned URL; `onBytes` reports the bytes sent so far (it may go back to 0 on a retry). */
export interface PartPut {
  url: string;
  body: Blob;
  partNumber: number;
  signal?: AbortSignal;
  onBytes: (sent: number) => void;
}

/** An open multipart upload: enough to resume it (list-parts) or give it up (abort-upload). */
export interface UploadRef {
  uploadId: string;
  assetId: number;
  workspaceId: number;
  /** The part size the upload was cut with: a resume must cut the file the same way. */
  partSize: number;
}

export interface UploadOptions {
  workspaceId: number;
  folderId?: number;
  /** The file name (default: the File's name or the path's base name; "untitled" on the server otherwise). */
  name?: string;
  /** The claimed MIME type (default: the File's or the path's type, else application/octet-stream). */
  contentType?: string;
  /** Called after every stored part (progress is per part: fetch tells nothing while a body is being sent). */
  onProgress?: (progress: UploadProgress) => void;
  /** Called once the upload is open (or resumed), e.g. to record it for a later resume. */
  onStarted?: (ref: UploadRef) => void;
  /**
   * Aborting stops the transfer; the upload stays open on the server with the parts stored so far, so that it can
   * be resumed (or given up with abortUpload); the server drops it after DAM_UPLOAD_TTL.
   */
  signal?: AbortSignal;
  /** Bytes per part (default 8 MiB), raised to the server's minPartSize and to what keeps the file within 10,000 parts. */
  partSize?: number;
  /** Parts sent at once (default 4). */
  concurrency?: number;
  /** Attempts per part and for the completion, and their backoff. */
  retry?: Partial<RetryPolicy>;
  /** Continue this upload (of the same file, cut the same way): parts the server already has are not sent again. */
  resume?: Omit<UploadRef, 'workspaceId'>;
  /**
   * With `resume`: when the server no longer has that upload (expired, aborted elsewhere: list-parts answers 400, 404
   * or 410), start a new one instead of failing.
   */
  restartIfGone?: boolean;
  /**
   * Sends one part (default: a PUT through the client's fetch). A browser passes an XMLHttpRequest sender to report
   * bytes while a part is on its way (fetch cannot); a network failure must reject with a TypeError (retried), an
   * abort with the signal's reason.
   */
  putPart?: (put: PartPut) => Promise<PartResponse>;
}

export interface UploadResult extends UploadRef {
  /** The object's key and its download URL on the API. */
  key: string;
  location: string;
}

/** One part: its number and byte range (end exclusive). */
interface PartPlan {
  number: number;
  start: number;
  end: number;
}

/** crypto.randomUUID exists in secure contexts only: a page served over plain http (a LAN address) has getRandomValues alone. */
function randomKey(): string {
  if (typeof globalThis.crypto.randomUUID === 'function') return globalThis.crypto.randomUUID();
  return Array.from(globalThis.crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

function planParts(size: number, partSize: number): PartPlan[] {
  const parts: PartPlan[] = [];
  for (let n = 1, start = 0; start < size || n === 1; n++, start += partSize) {
    parts.push({ number: n, start, end: Math.min(size, start + partSize) });
  }
  return parts;
}

function choosePartSize(size: number, wanted: number | undefined, minPartSize: number): number {
  return Math.max(wanted ?? DEFAULT_PART_SIZE, minPartSize, Math.ceil(size / MAX_PARTS), 1);
}

/**
 * Uploads a file through the multipart flow (start-upload, a presigned URL per part, PUT, complete-upload): parts
 * in parallel, each retried with bounded exponential backoff; with `resume`, parts the server lists are skipped.
 * With `assetId` (uploadVersion) the file becomes a new current version of that asset.
 */
export async function uploadFile(client: DamClient, source: UploadSource, options: UploadOptions, assetId?: number): Promise<UploadResult> {
  const { api } = client;
  const { signal } = options;
  const retry: RetryPolicy = { ...DEFAULT_RETRY, ...options.retry };
  const file = await openSource(source);
  const size = file.blob.size;
  signal?.throwIfAborted();

  // A resume keeps the parts the server has whose size is the one this cut gives them.
  let ref: UploadRef | undefined;
  const etags = new Map<number, string>();
  if (options.resume) {
    const resumed = { ...options.resume, workspaceId: options.workspaceId };
    const planned = planParts(size, resumed.partSize);
    const listQuery = { UploadId: resumed.uploadId, assetId: resumed.assetId, workspaceId: resumed.workspaceId };
    const { data, error, response } = await api.GET('/storage/list-parts', { params: { query: listQuery }, signal });
    if (data) {
      ref = resumed;
      for (const stored of data.parts) {
        const plan = planned[stored.PartNumber - 1];
        if (plan && plan.end - plan.start === stored.Size) etags.set(stored.PartNumber, stored.ETag);
      }
    } else if (!(options.restartIfGone && [400, 404, 410].includes(response.status))) {
      throw await apiError(response, 'list-parts', error);
    }
  }
  if (!ref) {
    const { data, error, response } = await api.GET('/storage/start-upload', {
      params: {
        query: {
          workspaceId: options.workspaceId,
          fileType: options.contentType ?? file.type ?? 'application/octet-stream',
          ...((options.name ?? file.name) !== undefined && { fileName: (options.name ?? file.name)!.slice(0, 255) || 'untitled' }),
          ...(options.folderId !== undefined && { folderId: options.folderId }),
          ...(assetId !== undefined && { assetId }),
          // Declared so that a plan's storage limit refuses the upload before any byte is sent.
          fileSize: size,
        },
      },
      signal,
    });
    if (!data) throw await apiError(response, 'start-upload', error);
    ref = { uploadId: data.uploadId, assetId: data.assetId, workspaceId: options.workspaceId, partSize: choosePartSize(size, options.partSize, data.minPartSize) };
  }
  options.onStarted?.(ref);
  const query = { UploadId: ref.uploadId, assetId: ref.assetId, workspaceId: ref.workspaceId };
  const parts = planParts(size, ref.partSize);

  const progress: UploadProgress = { loaded: 0, total: size, partsDone: 0, partsTotal: parts.length, sending: 0 };
  const sendingByPart = new Map<number, number>();
  const setSending = (part: number, sent: number) => {
    sendingByPart.set(part, sent);
    let sum = 0;
    for (const n of sendingByPart.values()) sum += n;
    progress.sending = sum;
  };
  for (const p of parts) {
    if (etags.has(p.number)) {
      progress.loaded += p.end - p.start;
      progress.partsDone += 1;
    }
  }
  if (progress.partsDone > 0) options.onProgress?.({ ...progress });

  const sendPart = async (part: PartPlan): Promise<string> => {
    const { data, error, response } = await api.GET('/storage/get-upload-url', { params: { query: { ...query, PartNumber: part.number } }, signal });
    if (!data) {
      const err = await apiError(response, `get-upload-url of part ${part.number}`, error);
      throw failureOf(response, err);
    }
    const body = file.blob.slice(part.start, part.end);
    if (options.putPart) {
      const onBytes = (sent: number) => {
        setSending(part.number, sent);
        options.onProgress?.({ ...progress });
      };
      let answer: PartResponse;
      try {
        answer = await options.putPart({ url: data.url, body, partNumber: part.number, signal, onBytes });
      } finally {
        setSending(part.number, 0);
      }
      if (answer.status === 403 || isRetryableStatus(answer.status)) {
        throw new RetryableError(`part ${part.number}: ${answer.status}`, undefined, { cause: partError(answer.status, '', answer.body ?? '', `part ${part.number}`) });
      }
      if (answer.status < 200 || answer.status >= 300) throw partError(answer.status, '', answer.body ?? '', `part ${part.number}`);
      if (!answer.etag) throw new DamApiError(answer.status, undefined, `part ${part.number}: the store answered without an ETag (its CORS rules must expose ETag)`);
      return answer.etag;
    }
    // No bearer token: the presigned URL is the credential (and may be another host: the bucket).
    const put = await client.fetch(new Request(data.url, { method: 'PUT', body, signal }));
    const etag = put.headers.get('etag');
    // A 403 is an expired or refused signature: a fresh URL may do, so it is retried like a server error.
    if (put.status === 403 || isRetryableStatus(put.status)) {
      const cause = partError(put.status, put.statusText, await put.text().catch(() => ''), `part ${part.number}`);
      throw new RetryableError(`part ${part.number}: ${put.status}`, undefined, { cause });
    }
    if (!put.ok) throw partError(put.status, put.statusText, await put.text().catch(() => ''), `part ${part.number}`);
    await put.body?.cancel();
    if (!etag) throw new DamApiError(put.status, undefined, `part ${part.number}: the store answered without an ETag (its CORS rules must expose ETag)`);
    return etag;
  };

  const queue = parts.filter((p) => !etags.has(p.number));
  const concurrency = Math.max(1, Math.min(options.concurrency ?? DEFAULT_CONCURRENCY, queue.length || 1));
  let failed = false;
  const worker = async () => {
    for (let part = queue.shift(); part && !failed; part = queue.shift()) {
      const current = part;
      try {
        etags.set(current.number, await withRetries(retry, signal, () => sendPart(current)));
      } catch (err) {
        failed = true;
        throw err;
      }
      progress.loaded += current.end - current.start;
      progress.partsDone += 1;
      options.onProgress?.({ ...progress });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));

  // One Idempotency-Key for every attempt: a completion retried after a lost answer gets the first one's answer.
  const idempotencyKey = randomKey();
  const body = { ...query, uploadId: ref.uploadId, parts: parts.map((p) => ({ PartNumber: p.number, ETag: etags.get(p.number)! })) };
  const { UploadId: _unused, ...completeRef } = body;
  const done = await withRetries(retry, signal, async () => {
    const { data, error, response } = await api.POST('/storage/complete-upload', {
      body: completeRef,
      headers: { 'idempotency-key': idempotencyKey },
      signal,
    });
    if (data) return data;
    const err = await apiError(response, 'complete-upload', error);
    throw failureOf(response, err);
  });
  return { ...ref, key: done.key, location: done.location };
}

/** Gives up an open upload: its parts and its unfinished asset are removed. */
export async function abortUpload(client: DamClient, ref: Pick<UploadRef, 'uploadId' | 'assetId' | 'workspaceId'>): Promise<void> {
  const { error, response } = await client.api.DELETE('/storage/abort-upload', {
    params: { query: { UploadId: ref.uploadId, assetId: ref.assetId, workspaceId: ref.workspaceId } },
    // The document declares DELETE bodies as null or {}; null is the empty one.
    body: null,
  });
  if (!response.ok) throw await apiError(response, 'abort-upload', error);
}

/** A new current version of an asset, through the same multipart flow; the workspace is looked up when not given. */
export async function uploadVersion(
  client: DamClient,
  assetId: number,
  source: UploadSource,
  options: Omit<UploadOptions, 'workspaceId' | 'folderId'> & { workspaceId?: number } = {},
): Promise<UploadResult> {
  let workspaceId = options.workspaceId;
  if (workspaceId === undefined) {
    const { data, error, response } = await client.api.GET('/dam/assets/{id}', { params: { path: { id: assetId } }, signal: options.signal });
    if (!data) throw await apiError(response, `asset ${assetId}`, error);
    workspaceId = data.data.workspace_id;
  }
  return uploadFile(client, source, { ...options, workspaceId }, assetId);
}
