import { DriveAuthExpired, DriveItemNotFound, DriveProviderError, DriveRateLimited } from '../types.js';

/** Metadata calls may take this long; media streams have no overall timeout (the caller watches for stalls). */
const METADATA_TIMEOUT_MS = 30_000;

/** Graph's error envelope: {"error": {"code": "itemNotFound", "message": "...", "innerError": {...}}}. */
interface GraphErrorBody {
  error?: { code?: unknown; message?: unknown } | string;
  error_description?: unknown;
}

/** Retry-After in seconds (delta-seconds or an HTTP date), null when absent or unreadable. */
export function retryAfterSeconds(value: string | null | undefined, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\d{1,6}$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * A failed Graph answer as one of the core's errors: 401 -> refresh, 429/503/509 and `activityLimitReached`
 * -> slow down ("Microsoft Graph throttling guidance"), 404 -> not found, anything else -> the provider's own
 * message for a 502. `bearer` is false for the pre-authenticated download and upload URLs: a 401 there is
 * not about our access token, so it must not make the core refresh it.
 */
export function graphFailure(status: number, text: string, retryAfter: string | null, bearer = true): Error {
  let body: GraphErrorBody = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object') body = parsed;
  } catch {
    // Not JSON (a proxy's page, an empty body): the status says it all.
  }
  const error = typeof body.error === 'object' && body.error !== null ? body.error : undefined;
  const code = typeof error?.code === 'string' ? error.code : null;
  const message =
    (typeof error?.message === 'string' && error.message) ||
    (typeof body.error_description === 'string' && body.error_description) ||
    (typeof body.error === 'string' && body.error) ||
    code ||
    `HTTP ${status}`;
  if (status === 401 && bearer) return new DriveAuthExpired(`OneDrive refused the access token: ${message}`);
  if (status === 429 || status === 503 || status === 509 || code === 'activityLimitReached') {
    return new DriveRateLimited(`OneDrive is rate limiting: ${message}`, retryAfterSeconds(retryAfter));
  }
  if (status === 404 && bearer) return new DriveItemNotFound(`OneDrive: ${message}`);
  return new DriveProviderError(`OneDrive: ${message}`, status);
}

export async function failureOf(res: Response, bearer = true): Promise<Error> {
  const text = await res.text().catch(() => '');
  return graphFailure(res.status, text, res.headers.get('retry-after'), bearer);
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Milliseconds until the answer's headers; the body (a download) may take longer. 0: none. */
  timeout?: number;
  /** Follow redirects (default: no, a 302 is answered as it is). */
  follow?: boolean;
}

/**
 * Microsoft Graph v1.0 over fetch, under the configured API base (path prefix included). Not the official
 * @microsoft/microsoft-graph-client: its AuthenticationHandler attaches the token only to https URLs of Graph's
 * hosts (or of `customHosts`, which are https too) and strips it from every other request, and it strips the
 * base only from https nextLinks, so it cannot talk to a server on http://127.0.0.1 at all; see
 * docs/architecture/drives.md, "OneDrive".
 *
 * OData's `$` parameters are written as they are (`$top`, not `%24top`), as Graph's documentation shows them.
 */
export class GraphApi {
  constructor(private readonly apiUrl: string) {}

  /** `{api}/v1.0{path}` with OData parameters; `path` is built from validated ids and encoded names only. */
  url(path: string, params: Record<string, string> = {}): URL {
    const query = Object.entries(params)
      .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
      .join('&');
    return new URL(`${this.apiUrl}/v1.0${path}${query ? `?${query}` : ''}`);
  }

  /**
   * A nextLink Graph gave us, to follow with the bearer token: only when it points under the configured API
   * base (a sealed cursor cannot be forged, but the token still never goes anywhere else).
   */
  nextLink(link: string): URL {
    let url: URL;
    try {
      url = new URL(link);
    } catch {
      throw new DriveProviderError('OneDrive answered a malformed @odata.nextLink', null);
    }
    const base = new URL(`${this.apiUrl}/v1.0/`);
    if (url.origin !== base.origin || !url.pathname.startsWith(base.pathname)) {
      throw new DriveProviderError(`OneDrive's @odata.nextLink points outside ${base.origin}${base.pathname}`, null);
    }
    return url;
  }

  /** A Graph call with the bearer token; a failed answer is thrown as the core's error. */
  async call(accessToken: string, url: URL, options: RequestOptions = {}): Promise<Response> {
    const res = await send(url, { ...options, headers: { ...options.headers, authorization: `Bearer ${accessToken}` } });
    if (res.status >= 400) throw await failureOf(res);
    return res;
  }

  async json<T>(accessToken: string, url: URL, options: RequestOptions = {}): Promise<T> {
    const res = await this.call(accessToken, url, { ...options, headers: { accept: 'application/json', ...options.headers } });
    try {
      return (await res.json()) as T;
    } catch {
      throw new DriveProviderError(`OneDrive answered ${url.pathname} with something other than JSON`, res.status);
    }
  }
}

/**
 * One HTTP request (with or without a token). Network failures become DriveProviderError without status (a
 * transient failure for the import's retries). The timeout covers the answer's headers only: it is cleared as
 * soon as they arrive, so a long download is not cut off.
 */
export async function send(url: URL, options: RequestOptions = {}): Promise<Response> {
  const controller = new AbortController();
  const timeout = options.timeout ?? METADATA_TIMEOUT_MS;
  const timer = timeout > 0 ? setTimeout(() => controller.abort(new Error(`no answer within ${timeout / 1000} s`)), timeout) : undefined;
  try {
    return await fetch(url, {
      method: options.method ?? 'GET',
      headers: options.headers ?? {},
      ...(options.body !== undefined ? { body: options.body } : {}),
      redirect: options.follow ? 'follow' : 'manual',
      signal: controller.signal,
    });
  } catch (err) {
    const reason = controller.signal.aborted ? (controller.signal.reason as Error).message : (err as Error).message;
    throw new DriveProviderError(`OneDrive could not be reached: ${reason}`, null);
  } finally {
    clearTimeout(timer);
  }
}
