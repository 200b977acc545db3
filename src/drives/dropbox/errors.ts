import { DriveAuthExpired, DriveItemNotFound, DriveProviderError, DriveRateLimited } from '../types.js';

/**
 * Dropbox's error answers (HTTP API documentation, "Errors"): 400 is plain text (a bad request of ours), 401 and 409
 * are JSON `{error_summary, error: {".tag": ...}, user_message?}`, 429 adds `error.retry_after` and a Retry-After
 * header, 5xx may be anything. `error_summary` is the tag path ("path/not_found/..", the trailing dots vary to
 * defeat caches).
 */
interface ErrorBody {
  error_summary?: unknown;
  error?: unknown;
  user_message?: { text?: unknown };
}

/** A 409 (an endpoint-specific error) that is none of the core's kinds: the parsed `error` stays for the caller (upload offsets). */
export class DropboxEndpointError extends DriveProviderError {
  constructor(
    message: string,
    status: number,
    /** The tag path without its trailing dots, e.g. "incorrect_offset" or "path/conflict/file". */
    readonly summary: string,
    /** The `error` union as Dropbox sent it. */
    readonly error: unknown,
  ) {
    super(message, status);
  }
}

/** Retry-After in seconds (delta-seconds or an HTTP date), null when absent or unreadable. */
function retryAfterSeconds(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\d{1,6}$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

function parse(text: string): ErrorBody {
  try {
    const body = JSON.parse(text) as unknown;
    return body && typeof body === 'object' ? body : {};
  } catch {
    return {};
  }
}

/** Path-lookup tags whose `not_found` means the item itself is missing (not an upload session, say). */
const LOOKUP_TAGS = new Set(['path', 'path_lookup', 'from_lookup']);

/**
 * A failed answer of Dropbox as one of the core's errors: 401 -> refresh, 429/503 and too_many_write_operations ->
 * slow down, a path lookup's not_found -> not found, anything else -> the provider's own words for a 502.
 */
export function dropboxFailure(status: number, text: string, retryAfter: string | null): Error {
  const body = parse(text);
  const summary = typeof body.error_summary === 'string' ? body.error_summary.replace(/\/*\.*$/, '') : '';
  const userText = typeof body.user_message?.text === 'string' ? body.user_message.text : '';
  // 400s and some 5xx are plain text ("Error in call to API function ..."); keep them short.
  const plain = summary || !text.trim() ? '' : text.trim().replace(/\s+/g, ' ').slice(0, 300);
  const message = [userText, summary].filter(Boolean).join(' — ') || plain || `HTTP ${status}`;
  const tags = summary.split('/');
  if (status === 401) return new DriveAuthExpired(`Dropbox refused the access token: ${message}`);
  if (status === 429 || status === 503 || tags.includes('too_many_write_operations')) {
    const error = body.error as { retry_after?: unknown } | undefined;
    const said = retryAfterSeconds(retryAfter) ?? (typeof error?.retry_after === 'number' ? error.retry_after : null);
    return new DriveRateLimited(`Dropbox is rate limiting: ${message}`, said);
  }
  if (status === 409 && LOOKUP_TAGS.has(tags[0] ?? '') && tags[1] === 'not_found') return new DriveItemNotFound(`Dropbox: ${message}`);
  if (status === 409) return new DropboxEndpointError(`Dropbox: ${message}`, status, summary, body.error);
  return new DriveProviderError(`Dropbox: ${message}`, status);
}
