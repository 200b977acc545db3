import { readRange } from '../transfer.js';
import type { DriveUploadSource } from '../types.js';
import { DriveProviderError } from '../types.js';
import { failureOf, send, type GraphApi } from './graph.js';
import { nameSegment, type GraphItem } from './items.js';

/**
 * Each PUT carries this much: 10 MiB, a multiple of 320 KiB as Graph requires of every fragment but the last
 * (and well under its 60 MiB per request), in the 5-10 MiB Microsoft recommends.
 */
export const FRAGMENT_BYTES = 32 * 320 * 1024;
/** Failed fragments (a 5xx or a dropped connection) are resumed from what OneDrive has, at most this often in a row. */
const MAX_RESUMES = 5;
const FRAGMENT_TIMEOUT_MS = 120_000;

/** The first byte OneDrive still expects (`nextExpectedRanges: ["26-"]` or `["26-99", ...]`), or null. */
function nextExpected(body: unknown, size: number): number | null {
  const ranges = (body as { nextExpectedRanges?: unknown } | null)?.nextExpectedRanges;
  const first = Array.isArray(ranges) && typeof ranges[0] === 'string' ? /^(\d+)-(\d*)$/.exec(ranges[0]) : null;
  if (!first) return null;
  const start = Number(first[1]);
  return start <= size ? start : null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * OneDrive's upload session ("Upload large files with an upload session", driveItem: createUploadSession):
 *
 * 1. POST {item}:/{name}:/createUploadSession with the bearer token and
 *    `{"item": {"@microsoft.graph.conflictBehavior": "rename"}}`: the answer's `uploadUrl` is pre-authenticated.
 * 2. PUT FRAGMENT_BYTES at a time to it with Content-Range, WITHOUT the Authorization header (Graph: sending
 *    it there "may result in an HTTP 401"); 202 with `nextExpectedRanges` says where to go on, the last fragment
 *    answers 200/201 with the driveItem.
 * 3. A fragment that fails with a 5xx (but 507, the quota) or a network error, or a 416 (OneDrive had those bytes already), is
 *    followed by a GET of the session (its `nextExpectedRanges`) and the upload resumes from there.
 * 4. An upload that gives up DELETEs the session, so OneDrive drops the bytes it holds.
 * Only one fragment (10 MiB) is ever in memory.
 */
export async function sessionUpload(graph: GraphApi, accessToken: string, source: DriveUploadSource, target: string, name: string): Promise<GraphItem> {
  const created = await graph.json<{ uploadUrl?: unknown }>(accessToken, graph.url(`${target}:/${nameSegment(name)}:/createUploadSession`), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ item: { '@microsoft.graph.conflictBehavior': 'rename', name } }),
  });
  let uploadUrl: URL;
  try {
    uploadUrl = new URL(String(created.uploadUrl));
    if (uploadUrl.protocol !== 'https:' && uploadUrl.protocol !== 'http:') throw new Error('not http(s)');
  } catch {
    throw new DriveProviderError('OneDrive answered createUploadSession without a usable uploadUrl', null);
  }

  try {
    return await sendFragments(uploadUrl, source);
  } catch (err) {
    // Best effort: OneDrive drops the session's bytes now rather than at its expiry.
    await send(uploadUrl, { method: 'DELETE' }).catch(() => undefined);
    throw err;
  }
}

async function sendFragments(uploadUrl: URL, source: DriveUploadSource): Promise<GraphItem> {
  const size = source.size;
  let offset = 0;
  let resumes = 0;
  for (;;) {
    const end = Math.min(offset + FRAGMENT_BYTES, size) - 1;
    const fragment = await readRange(source, offset, end);
    let res: Response | undefined;
    try {
      res = await send(uploadUrl, {
        method: 'PUT',
        headers: { 'content-range': `bytes ${offset}-${end}/${size}`, 'content-type': 'application/octet-stream' },
        body: fragment,
        timeout: FRAGMENT_TIMEOUT_MS,
      });
    } catch {
      res = undefined;
    }
    if (res && (res.status === 200 || res.status === 201)) return (await res.json()) as GraphItem;
    if (res?.status === 202) {
      offset = nextExpected(await res.json().catch(() => null), size) ?? end + 1;
      resumes = 0;
      continue;
    }
    // 507 Insufficient Storage (the user's quota) will not go away by asking again.
    if (res && res.status !== 416 && (res.status < 500 || res.status === 507)) throw await failureOf(res, false);
    if (res) await res.body?.cancel();
    // A 5xx, a broken connection or a 416: ask OneDrive what it holds, then go on from there.
    if (++resumes > MAX_RESUMES) {
      throw new DriveProviderError(`OneDrive's upload session kept failing (${res ? `HTTP ${res.status}` : 'connection lost'})`, res?.status ?? null);
    }
    if (res?.status !== 416) await sleep(Math.min(1000 * 2 ** (resumes - 1), 16_000));
    const status = await send(uploadUrl).catch(() => undefined);
    if (status?.ok) {
      offset = nextExpected(await status.json().catch(() => null), size) ?? offset;
    } else if (status && status.status < 500) {
      throw await failureOf(status, false);
    } else {
      await status?.body?.cancel();
    }
  }
}
