import { DriveAuthExpired, DriveItemNotFound, DriveProviderError, DriveRateLimited } from '../types.js';

/** Drive's error envelope: {"error": {"code", "message", "errors": [{"reason", "message"}], "status"}}. */
interface GoogleErrorBody {
  error?: { message?: unknown; errors?: { reason?: unknown }[] } | string;
  error_description?: unknown;
}

/** Reasons Drive uses on a 403 that mean "slow down", not "forbidden" (Drive API: "Resolve errors"). */
const RATE_REASONS = new Set(['rateLimitExceeded', 'userRateLimitExceeded', 'sharingRateLimitExceeded']);

function parseBody(data: unknown): GoogleErrorBody {
  if (typeof data === 'string') {
    try {
      return JSON.parse(data) as GoogleErrorBody;
    } catch {
      return {};
    }
  }
  return data && typeof data === 'object' ? data : {};
}

/** Retry-After in seconds (delta-seconds or an HTTP date), null when absent or unreadable. */
export function retryAfterSeconds(value: string | null | undefined, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\d{1,6}$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * A failed answer of Drive as one of the core's errors: 401 -> refresh, 429/503 and the 403 rate reasons
 * -> slow down, 404 -> not found, anything else -> the provider's own message for a 502.
 */
export function googleFailure(status: number, data: unknown, retryAfter: string | null | undefined): Error {
  const body = parseBody(data);
  const error = typeof body.error === 'object' && body.error !== null ? body.error : undefined;
  const message =
    (typeof error?.message === 'string' && error.message) ||
    (typeof body.error_description === 'string' && body.error_description) ||
    (typeof body.error === 'string' && body.error) ||
    `HTTP ${status}`;
  const reasons = (error?.errors ?? []).map((e) => (typeof e.reason === 'string' ? e.reason : ''));
  if (status === 401) return new DriveAuthExpired(`Google Drive refused the access token: ${message}`);
  if (status === 429 || status === 503 || (status === 403 && reasons.some((r) => RATE_REASONS.has(r)))) {
    return new DriveRateLimited(`Google Drive is rate limiting: ${message}`, retryAfterSeconds(retryAfter));
  }
  if (status === 404) return new DriveItemNotFound(`Google Drive: ${message}`);
  return new DriveProviderError(`Google Drive: ${message}`, status);
}

/** An error thrown by the SDK (a GaxiosError carrying the response, or a network failure without one). */
export function sdkFailure(err: unknown): Error {
  const e = err as { status?: unknown; response?: { status?: number; data?: unknown; headers?: { get?(name: string): string | null } }; message?: string };
  const status = e.response?.status ?? (typeof e.status === 'number' ? e.status : undefined);
  if (status === undefined) return new DriveProviderError(`Google Drive could not be reached: ${e.message ?? String(err)}`, null);
  // For streamed answers (alt=media, export) gaxios reads the error body into the message, not into response.data.
  const data = typeof e.response?.data === 'object' && e.response.data !== null ? e.response.data : e.message;
  return googleFailure(status, data, e.response?.headers?.get?.('retry-after'));
}
