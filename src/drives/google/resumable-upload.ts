import type { drive_v3 } from '@googleapis/drive';
import { readRange } from '../transfer.js';
import type { DriveUploadSource } from '../types.js';
import { DriveProviderError } from '../types.js';
import { googleFailure } from './errors.js';

/** Each PUT carries this much; Drive wants multiples of 256 KiB for every chunk but the last. */
export const CHUNK_BYTES = 8 * 1024 * 1024;
/** Failed chunks (a 5xx or a dropped connection) are resumed from what Drive has, at most this often in a row. */
const MAX_RESUMES = 5;
const TIMEOUT_MS = 120_000;

/** `Range: bytes=0-524287` of a 308: the next byte to send (0 when Drive has nothing yet). */
function nextOffset(res: Response): number {
  const match = /^bytes=0-(\d+)$/.exec(res.headers.get('range') ?? '');
  return match ? Number(match[1]) + 1 : 0;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Drive's resumable upload ("Upload file data": uploadType=resumable), with fetch rather than the SDK:
 * @googleapis/drive only does single-request (media, multipart) uploads, and builds their URL from the
 * per-call `rootUrl` only (a `rootUrl` given to the client is applied to metadata URLs and then replaced
 * by https://www.googleapis.com/upload/... for media; googleapis-common's createAPIRequest).
 *
 * 1. POST {api}/upload/drive/v3/files?uploadType=resumable with the metadata, X-Upload-Content-Type and
 *    -Length, and the bearer token; the session URI comes back in Location.
 * 2. PUT the file in CHUNK_BYTES pieces with Content-Range; 308 Resume Incomplete says (Range) how much
 *    Drive holds, the last chunk answers 200/201 with the file.
 * 3. A chunk that fails with a 5xx or a network error is followed by a status query (`Content-Range:
 *    bytes *\/size`, empty body) and the upload resumes from the byte Drive reports.
 * The session URI itself authorises the upload, so the token is sent only with the first request.
 * Only one chunk (8 MiB) is ever in memory.
 */
export async function resumableUpload(
  apiUrl: string,
  accessToken: string,
  source: DriveUploadSource,
  folder: string | null,
  fields: string,
): Promise<drive_v3.Schema$File> {
  const start = new URL(`${apiUrl}/upload/drive/v3/files`);
  start.search = new URLSearchParams({ uploadType: 'resumable', fields }).toString();
  const session = await request(start, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${accessToken}`,
      'content-type': 'application/json; charset=UTF-8',
      'x-upload-content-type': source.mimeType,
      'x-upload-content-length': String(source.size),
    },
    body: JSON.stringify({ name: source.name, mimeType: source.mimeType, ...(folder ? { parents: [folder] } : {}) }),
  });
  if (!session.ok) throw googleFailure(session.status, await session.text(), session.headers.get('retry-after'));
  const location = session.headers.get('location');
  if (!location) throw new DriveProviderError('Google Drive answered the resumable upload without a session URI', session.status);
  const sessionUrl = new URL(location, start);

  let offset = 0;
  let resumes = 0;
  for (;;) {
    const end = Math.min(offset + CHUNK_BYTES, source.size) - 1;
    const chunk = source.size === 0 ? Buffer.alloc(0) : await readRange(source, offset, end);
    const range = source.size === 0 ? 'bytes */0' : `bytes ${offset}-${end}/${source.size}`;
    let res: Response | undefined;
    try {
      res = await request(sessionUrl, { method: 'PUT', headers: { 'content-range': range }, body: chunk });
    } catch {
      res = undefined;
    }
    if (res && (res.status === 200 || res.status === 201)) return (await res.json()) as drive_v3.Schema$File;
    if (res?.status === 308) {
      offset = nextOffset(res);
      resumes = 0;
      continue;
    }
    if (res && res.status < 500) throw googleFailure(res.status, await res.text(), res.headers.get('retry-after'));
    // A 5xx or a broken connection: ask Drive what it has, then go on from there.
    if (++resumes > MAX_RESUMES) {
      throw new DriveProviderError(`Google Drive's upload session kept failing (${res ? `HTTP ${res.status}` : 'connection lost'})`, res?.status ?? null);
    }
    await sleep(Math.min(1000 * 2 ** (resumes - 1), 16_000));
    const status = await request(sessionUrl, { method: 'PUT', headers: { 'content-range': `bytes */${source.size}` }, body: Buffer.alloc(0) }).catch(() => undefined);
    if (status && (status.status === 200 || status.status === 201)) return (await status.json()) as drive_v3.Schema$File;
    if (status?.status === 308) offset = nextOffset(status);
    else if (status && status.status < 500) throw googleFailure(status.status, await status.text(), status.headers.get('retry-after'));
  }
}

async function request(url: URL, init: { method: string; headers: Record<string, string>; body: string | Buffer }): Promise<Response> {
  try {
    return await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (err) {
    throw new DriveProviderError(`Google Drive could not be reached: ${(err as Error).message}`, null);
  }
}
