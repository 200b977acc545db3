import { ApiError, toApiError, withQuery } from './http';
import type { PublicShare, ShareUnlock } from './shares';

/**
 * The public side of a shared link (issue #14): no account. Every call here leaves the signed-in
 * session alone: no bearer token is sent, and a 401 (a password wanted) never ends the session, as
 * it would through http.ts's hooks. A password-protected link's share-access token goes as the
 * X-Share-Token header; links the browser follows by itself (downloads) carry it as `?st=`.
 */

const base = (key: string) => `/shared/public/${encodeURIComponent(key)}`;

/** 429s say when to come back (Retry-After); it is kept in the error's details as `retry_after` (seconds). */
async function failure(res: Response): Promise<ApiError> {
  const error = await toApiError(res);
  const header = Number(res.headers.get('retry-after'));
  if (Number.isFinite(header) && header > 0 && typeof error.details.retry_after !== 'number') {
    return new ApiError(error.message, error.status, error.code, error.field, { ...error.details, retry_after: header });
  }
  return error;
}

async function call(method: string, url: string, token: string | null, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token) headers['x-share-token'] = token;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    // `credentials: 'omit'`: nothing of a signed-in session goes along (it uses no cookies, but say so).
    res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'omit' });
  } catch {
    throw new ApiError('The server could not be reached. Check your connection.', 0);
  }
  if (!res.ok) throw await failure(res);
  return res;
}

export const publicShareApi = {
  /** One page of the link's items; page 1 counts a visit. */
  view: async (key: string, token: string | null, page = 1, perPage = 60): Promise<PublicShare> => {
    const res = await call('GET', withQuery(base(key), { page, per_page: perPage }), token);
    return ((await res.json()) as { data: PublicShare }).data;
  },
  unlock: async (key: string, password: string): Promise<ShareUnlock> => {
    const res = await call('POST', `${base(key)}/unlock`, null, { password });
    return ((await res.json()) as { data: ShareUnlock }).data;
  },
  /**
   * Whether a download would be answered (HEAD, which the server never counts): throws what the GET
   * would answer (410 limit reached, 403 downloads off, 401 password, 404 gone, 429), else resolves.
   */
  check: async (url: string, token: string | null): Promise<void> => {
    await call('HEAD', url, token);
  },
};
export type PublicShareApi = typeof publicShareApi;

/** A download URL the browser can follow on its own: the token, if any, as `st`. */
export function withShareToken(url: string, token: string | null): string {
  if (!token) return url;
  const u = new URL(url, window.location.origin);
  u.searchParams.set('st', token);
  return u.origin === window.location.origin ? `${u.pathname}${u.search}` : u.toString();
}
