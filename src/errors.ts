/**
 * The one catalogue of errors the API answers. Each entry has a stable code,
 * an HTTP status and a default message; services throw `appError(code, msg)`
 * and the single error handler (src/http/error-handler.ts) turns it into
 * `{ error, code }`. Anything that is not an AppError is a 500 (seed 7.2).
 */
export const ERRORS = {
  VALIDATION_ERROR: { status: 400, message: 'The request is invalid' },
  MISSING_PARAMETER: { status: 400, message: 'A required parameter is missing' },
  /** issue #13: the image proxy does not fetch this URL (scheme, port, credentials, or a non-public address). */
  PROXY_TARGET_FORBIDDEN: { status: 400, message: 'The image proxy does not fetch this URL' },
  /** issue #17: a webhook delivery whose Stripe-Signature is missing, malformed, wrong or older than 300 seconds. */
  WEBHOOK_SIGNATURE_INVALID: { status: 400, message: 'The webhook signature is missing or does not verify' },
  UNAUTHORIZED: { status: 401, message: 'Authentication is required' },
  INVALID_TOKEN: { status: 401, message: 'The session token is invalid or expired' },
  INVALID_CREDENTIALS: { status: 401, message: 'E-mail or password is wrong' },
  /** seed 4.4, 5.4: an identity-provider token that is invalid, expired, for another client, or already used. */
  SOCIAL_TOKEN_INVALID: { status: 401, message: 'The sign-in token is invalid, expired or already used' },
  /** issue #14: a password-protected shared link without a valid share-access token (POST /shared/public/:key/unlock). */
  SHARE_PASSWORD_REQUIRED: { status: 401, message: 'This shared link is protected by a password' },
  /** issue #14: the password given to unlock a shared link is wrong. */
  SHARE_PASSWORD_WRONG: { status: 401, message: 'The password of this shared link is wrong' },
  FORBIDDEN: { status: 403, message: 'Your role does not allow this action' },
  INVALID_SIGNATURE: { status: 403, message: 'The URL signature is invalid' },
  URL_EXPIRED: { status: 403, message: 'The signed URL has expired' },
  REGISTRATION_CLOSED: { status: 403, message: 'Registration is closed on this instance' },
  /** issue #27: an instance admin disabled this account (answered to a right password only). */
  ACCOUNT_DISABLED: { status: 403, message: 'This account is disabled; ask an administrator' },
  /** issue #27: an admin set a temporary password: POST /auth/password first. */
  PASSWORD_CHANGE_REQUIRED: { status: 403, message: 'Change your temporary password first (POST /auth/password)' },
  /** issue #27: the invitation is for another e-mail than the signed-in account's. */
  INVITATION_EMAIL_MISMATCH: { status: 403, message: 'This invitation is for another e-mail address' },
  /** issue #27: only instance admins may do this. */
  ADMIN_ONLY: { status: 403, message: 'Only an instance administrator may do this' },
  /** issue #14: the shared link does not allow downloads (allow_download false). */
  SHARE_DOWNLOADS_DISABLED: { status: 403, message: 'This shared link does not allow downloads' },
  /** issue #17: the change would pass a limit of the workspace's plan; the body adds limit, used and requested. */
  QUOTA_EXCEEDED: { status: 402, message: "This would exceed a limit of the workspace's plan" },
  /** issue #28: an account may create DAM_MAX_WORKSPACES_PER_USER workspaces (each has its own free quota). */
  WORKSPACE_LIMIT_REACHED: { status: 403, message: 'This account has created as many workspaces as one account may' },
  /** issue #17: the subscription is past_due beyond DAM_BILLING_GRACE_DAYS: the workspace is read-only until paid. */
  SUBSCRIPTION_PAST_DUE: { status: 402, message: 'The subscription is past due: the workspace is read-only until it is paid' },
  NOT_FOUND: { status: 404, message: 'Not found' },
  /** issue #13: no image provider is configured (DAM_IMAGE_GEN_API_KEY). */
  IMAGE_GEN_NOT_CONFIGURED: { status: 404, message: 'Image generation is not configured on this instance' },
  /** issue #16: this external drive's client id is not set on this instance (DAM_GDRIVE_CLIENT_ID, ...). */
  DRIVE_NOT_CONFIGURED: { status: 404, message: 'This external drive is not configured on this instance' },
  /** issue #27: no DAM_SMTP_URL, so no e-mailed password reset (an admin makes a link: npm run admin -- reset-password). */
  PASSWORD_RESET_UNAVAILABLE: { status: 404, message: 'Password reset by e-mail is not available on this instance; ask an administrator' },
  /** issue #17: payments are off on this instance (no DAM_STRIPE_SECRET_KEY). */
  PAYMENTS_DISABLED: { status: 404, message: 'Payments are not enabled on this instance' },
  INVALID_UPLOAD_ID: { status: 404, message: 'Unknown upload id for this asset and workspace' },
  CONFLICT: { status: 409, message: 'The request conflicts with the current state' },
  EMAIL_TAKEN: { status: 409, message: 'An account with this e-mail already exists' },
  LAST_ADMIN: { status: 409, message: 'A workspace must keep at least one admin' },
  /** issue #27: the instance must keep one enabled instance admin. */
  LAST_INSTANCE_ADMIN: { status: 409, message: 'The instance must keep at least one enabled instance administrator' },
  NOT_EMPTY: { status: 409, message: 'The folder is not empty' },
  /** Idempotency-Key: the first request with this key is still running (answered with Retry-After). */
  IDEMPOTENCY_KEY_IN_USE: { status: 409, message: 'A request with this Idempotency-Key is still being processed; retry later' },
  /** issue #30: the key is taken by another field of the workspace, or was (keys are never reused). */
  FIELD_KEY_TAKEN: { status: 409, message: 'A field of this workspace has or had this key' },
  /** issue #30: a field's new type does not fit every stored value; the body adds how many would not convert. */
  FIELD_TYPE_CONFLICT: { status: 409, message: 'Stored values would not convert to the new type' },
  /** issue #30: a deletion that destroys data asks for a confirmation parameter; the body says what would go. */
  CONFIRMATION_REQUIRED: { status: 409, message: 'This deletion needs a confirmation' },
  /** issue #16: the caller has not connected this external drive (GET /{provider}/auth first). */
  DRIVE_NOT_CONNECTED: { status: 409, message: 'Connect this drive first' },
  /** issue #16: the drive refused the stored grant (revoked, expired): the user has to connect it again. */
  DRIVE_REAUTH_REQUIRED: { status: 409, message: 'The drive connection has to be authorised again' },
  /** issue #14: the shared link's max_downloads downloads have been made. */
  /** issue #28: the multipart upload is older than DAM_UPLOAD_MAX_LIFETIME: no more part URLs or parts; start a new upload. */
  UPLOAD_EXPIRED: { status: 410, message: 'The upload has outlived its lifetime; start a new upload' },
  SHARE_DOWNLOAD_LIMIT: { status: 410, message: 'This shared link has reached its download limit' },
  /** issue #27: an invitation or password link that is unknown, used, revoked or expired (one answer for all). */
  LINK_INVALID: { status: 410, message: 'This link is invalid, already used, revoked or expired' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body is too large' },
  /** issue #13: the fetched image is over DAM_PROXY_MAX_BYTES, or over the pixel limit for resizing. */
  PROXY_IMAGE_TOO_LARGE: { status: 413, message: 'The image is too large for the image proxy' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Unsupported content type' },
  /** issue #13: the fetched resource is not a raster image (by its Content-Type and its first bytes); SVG included. */
  PROXY_NOT_AN_IMAGE: { status: 415, message: 'The URL does not point to a raster image' },
  /** Idempotency-Key: the key was first used for another request (operation, path or body). */
  IDEMPOTENCY_KEY_REUSED: { status: 422, message: 'This Idempotency-Key was already used for a different request' },
  /** issue #16: the drive item has no bytes to download (a folder, a Google Form or shortcut). */
  DRIVE_ITEM_UNSUPPORTED: { status: 422, message: 'This drive item cannot be downloaded' },
  /** issue #14: the asset is not a ZIP archive, or a corrupt or truncated one. */
  ZIP_INVALID: { status: 422, message: 'The asset is not a readable ZIP archive' },
  /** issue #14: the ZIP entry is encrypted (listed, never extracted). */
  ZIP_ENTRY_ENCRYPTED: { status: 422, message: 'The ZIP entry is encrypted' },
  /** issue #14: the ZIP entry cannot be extracted: an unsafe name, a symbolic link or special file, a directory, an unsupported compression method. */
  ZIP_ENTRY_UNSUPPORTED: { status: 422, message: 'The ZIP entry cannot be extracted' },
  /** issue #14: the archive is over an extraction limit (entries, bytes, compression ratio: DAM_ZIP_*). */
  ZIP_LIMIT_EXCEEDED: { status: 422, message: 'The ZIP archive exceeds an extraction limit' },
  /** issue #14: a ZIP download would hold more than DAM_ZIP_DOWNLOAD_MAX_ENTRIES files and folders. */
  ZIP_TOO_MANY_ENTRIES: { status: 422, message: 'The selection has too many files for one ZIP download' },
  /** issue #27: a search-based bulk action matches more assets than DAM_BULK_SEARCH_MAX. */
  BULK_TOO_MANY_MATCHES: { status: 422, message: 'The search matches more assets than one bulk action takes' },
  /** issue #15: the asked format cannot be made from this source (video to webp, image to mp4, an SVG, too many pixels). */
  CONVERSION_UNSUPPORTED: { status: 422, message: 'This format cannot be made from this asset' },
  RATE_LIMITED: { status: 429, message: 'Too many requests, try again later' },
  /** issue #13: the workspace asked for DAM_IMAGE_GEN_DAILY_LIMIT images today (UTC). */
  IMAGE_GEN_DAILY_LIMIT: { status: 429, message: 'This workspace has reached its daily limit of generated images' },
  RANGE_NOT_SATISFIABLE: { status: 416, message: 'The requested range is not satisfiable' },
  /** seed 7.1: 400 for a bad parts list; a failure of our own while merging is a 500 with the same code. */
  UPLOAD_FAILED: { status: 400, message: 'The upload could not be completed' },
  INTERNAL_ERROR: { status: 500, message: 'Internal server error' },
  /** seed 7.1: the storage provider failed. */
  /** issue #17: a webhook event could not be processed (nothing of it was applied); Stripe delivers it again. */
  PAYMENT_WEBHOOK_FAILED: { status: 500, message: 'The webhook event could not be processed; it will be retried' },
  S3_ERROR: { status: 502, message: 'The storage provider failed' },
  /**
   * issue #37: the disk (local store, upload spool or SQLite database) is full. Nothing of the request was kept: no
   * partial object, no version, no quota charge. Answered with Retry-After; it works again once space is freed.
   */
  INSUFFICIENT_STORAGE: { status: 507, message: 'There is not enough free disk space to store this; nothing was stored. Try again later' },
  /** issue #37: the database cannot be reached (restarting, failing over) or did not answer within its timeout. Retry-After. */
  DATABASE_UNAVAILABLE: { status: 503, message: 'The database is unavailable for the moment; try again shortly' },
  /** issue #37: the object store failed (5xx), could not be reached or did not answer within its timeout, after the retries. Retry-After. */
  STORAGE_UNAVAILABLE: { status: 503, message: 'The storage provider is unavailable for the moment; try again shortly' },
  /** seed 4.4: the identity provider could not be reached or answered nonsense. */
  PROVIDER_ERROR: { status: 502, message: 'The identity provider could not be reached' },
  /** issue #13: the image's server could not be reached, timed out, answered an error or redirected too often. */
  PROXY_FETCH_FAILED: { status: 502, message: 'The image could not be fetched' },
  /** issue #16: the external drive failed, refused the request or could not be reached; the message is the provider's. */
  DRIVE_PROVIDER_ERROR: { status: 502, message: 'The external drive failed' },
  /** issue #17: Stripe failed, refused the request or could not be reached. */
  PAYMENT_PROVIDER_ERROR: { status: 502, message: 'The payment provider failed' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERRORS;

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message?: string,
    /** Extra members of the error body, e.g. the field that failed. */
    readonly details?: Record<string, unknown>,
  ) {
    super(message ?? ERRORS[code].message);
    this.name = 'AppError';
    this.status = ERRORS[code].status;
  }
}

export function appError(code: ErrorCode, message?: string, details?: Record<string, unknown>): AppError {
  return new AppError(code, message, details);
}

/** 404 for anything the caller may not know exists (other workspaces included). */
export function notFound(what: string): AppError {
  return new AppError('NOT_FOUND', `${what} not found`);
}
