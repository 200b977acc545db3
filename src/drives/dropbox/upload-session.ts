import { readRange } from '../transfer.js';
import { DriveProviderError, DriveRateLimited, type DriveUploadSource } from '../types.js';
import { DropboxEndpointError } from './errors.js';
import type { DropboxMetadata } from './files.js';
import type { DropboxHttp } from './http.js';

/** Each request carries this much: a multiple of 4 MiB, as Dropbox asks of upload-session chunks. */
export const CHUNK_BYTES = 8 * 1024 * 1024;
/** A chunk that fails (5xx, a dropped connection, a rate limit) is sent again at most this often in a row. */
const MAX_RETRIES = 5;
/** Longest wait before sending a chunk again, whatever Retry-After says (seconds): the caller is waiting. */
const MAX_WAIT_SECONDS = 30;

/** CommitInfo: where the finished file goes; `add` with autorename never overwrites anything. */
export interface Commit {
  path: string;
  mode: 'add';
  autorename: true;
  mute: false;
  strict_conflict: false;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Bytes [start, end) of the source; one chunk in memory, so a failed request can be sent again. */
async function readChunk(source: DriveUploadSource, start: number, end: number): Promise<Buffer> {
  if (end <= start) return Buffer.alloc(0);
  return readRange(source, start, end - 1);
}

/**
 * `incorrect_offset` (append_v2: `{".tag": "incorrect_offset", correct_offset}`; finish: the same inside
 * `lookup_failed`): Dropbox holds another number of bytes than we sent from, typically because it stored a chunk
 * whose answer was lost. Its `correct_offset` is where to go on.
 */
function correctOffset(err: unknown): number | null {
  if (!(err instanceof DropboxEndpointError)) return null;
  type Lookup = { '.tag'?: string; correct_offset?: unknown; lookup_failed?: Lookup };
  let error = err.error as Lookup | undefined;
  if (error?.['.tag'] === 'lookup_failed') error = error.lookup_failed;
  return error?.['.tag'] === 'incorrect_offset' && typeof error.correct_offset === 'number' ? error.correct_offset : null;
}

const retryable = (err: unknown) => err instanceof DriveRateLimited || (err instanceof DriveProviderError && (err.status === null || err.status >= 500));

/**
 * Dropbox's upload session (files/upload_session/start, append_v2, finish) for files over the single-request
 * limit: the first chunk starts the session, the middle ones are appended at their offset, the last one finishes
 * it with the commit. A chunk whose request fails with a 5xx, a broken connection or a rate limit is sent again
 * (Retry-After, else 1, 2, 4, 8 s); Dropbox has no status query, so when it did store a chunk whose answer was
 * lost it says so with `incorrect_offset` and the upload goes on from its `correct_offset`. Only one chunk is in
 * memory at a time; sessions live 48 hours at Dropbox, far longer than this takes.
 */
export async function sessionUpload(http: DropboxHttp, token: string, source: DriveUploadSource, commit: Commit): Promise<DropboxMetadata> {
  let sessionId: string | null = null;
  let offset = 0;
  let failures = 0;
  for (;;) {
    const end = Math.min(offset + CHUNK_BYTES, source.size);
    const chunk = await readChunk(source, offset, end);
    try {
      if (sessionId === null) {
        // A failed start leaves no session worth resuming: the next attempt starts a new one.
        sessionId = (await http.upload<{ session_id: string }>(token, 'files/upload_session/start', { close: false }, chunk)).session_id;
        if (typeof sessionId !== 'string' || !sessionId) throw new DriveProviderError('Dropbox started an upload session without an id', 200);
      } else if (end >= source.size) {
        return await http.upload<DropboxMetadata>(token, 'files/upload_session/finish', { cursor: { session_id: sessionId, offset }, commit }, chunk);
      } else {
        await http.upload<null>(token, 'files/upload_session/append_v2', { cursor: { session_id: sessionId, offset }, close: false }, chunk);
      }
      offset = end;
      failures = 0;
    } catch (err) {
      const correct = correctOffset(err);
      if (correct !== null && correct !== offset && correct >= 0 && correct <= source.size) {
        offset = correct;
        continue;
      }
      if (!retryable(err) || ++failures > MAX_RETRIES) throw err;
      const said = err instanceof DriveRateLimited ? err.retryAfter : null;
      await sleep(Math.min(said ?? 2 ** (failures - 1), MAX_WAIT_SECONDS) * 1000);
    }
  }
}
