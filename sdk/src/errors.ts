/** An answer of the API that is not a success: its HTTP status, the catalogue's code and the message naming the problem. */
export class DamApiError extends Error {
  override name = 'DamApiError';
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
    /** The error body as the server sent it: `error` (its message alone), `code`, and details such as a 402's limit, used, requested. */
    readonly body: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** The error body every failing route answers: `{error, code}` (src/errors.ts on the server). */
export async function apiError(response: Response, what: string, body?: unknown): Promise<DamApiError> {
  let parsed = body;
  if (parsed === undefined) parsed = await response.json().catch(() => undefined);
  const { error, code } = (parsed ?? {}) as { error?: unknown; code?: unknown };
  const message = typeof error === 'string' ? error : response.statusText || 'no message';
  const fields = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  return new DamApiError(response.status, typeof code === 'string' ? code : undefined, `${what}: ${response.status} ${message}`, fields);
}

/** S3 error codes of a part URL's refusal, as the API's catalogue names the same refusal (src/http/s3-errors.ts on the server). */
const S3_CODES: Record<string, string> = {
  AccessDenied: 'URL_EXPIRED',
  SignatureDoesNotMatch: 'INVALID_SIGNATURE',
  NoSuchUpload: 'INVALID_UPLOAD_ID',
  EntityTooLarge: 'PAYLOAD_TOO_LARGE',
  QuotaExceeded: 'QUOTA_EXCEEDED',
  InvalidArgument: 'VALIDATION_ERROR',
  // Issue #37: the local part URL's faults, and S3's (and MinIO's) own words for the same.
  ServiceUnavailable: 'STORAGE_UNAVAILABLE',
  SlowDown: 'STORAGE_UNAVAILABLE',
  XMinioStorageFull: 'INSUFFICIENT_STORAGE',
};

/** One element's text of a small, known XML document (S3's `<Error>`): no XML library in browsers and Node alike. */
function xmlText(xml: string, tag: string): string | undefined {
  const match = new RegExp(`<${tag}>([^<]{0,2000})</${tag}>`).exec(xml);
  return match?.[1]?.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');
}

/**
 * A part PUT the store refused. Stores answer S3's error document (`<Error><Code/><Message/></Error>`, the local
 * store too): its code is kept as `body.s3Code` and mapped to the catalogue's (e.g. QuotaExceeded → QUOTA_EXCEEDED).
 */
export function partError(status: number, statusText: string, text: string, what: string): DamApiError {
  const s3Code = xmlText(text, 'Code');
  const message = xmlText(text, 'Message') ?? (statusText || 'refused by the store');
  const body: Record<string, unknown> = s3Code ? { error: message, s3Code } : {};
  return new DamApiError(status, s3Code ? S3_CODES[s3Code] ?? s3Code : undefined, `${what}: ${status} ${message}`, body);
}
