import type { Readable } from 'node:stream';
import type { DrivesConfig } from '../config.js';

/**
 * External drives (issue #16): what the core (services/drives/, routes/drives.ts) needs of a
 * provider. One folder per provider implements it (src/drives/google/ is the first); the core never
 * sees a provider's SDK, URLs or wire format, only these shapes and the errors below. Adding a
 * provider is one folder plus one line in src/drives/registry.ts.
 */

/** The route segment of a provider: its routes are `/{id}/auth`, `/{id}/files`, ... (seed 4.6). */
export type DriveProviderId = 'drive-ext-1' | 'drive-ext-2' | 'drive-ext-3';

/** What a token endpoint answered, normalised. Never leaves the server, and is stored encrypted only. */
export interface DriveTokens {
  accessToken: string;
  /** Null when the provider issued none (then an expired access token means connecting again). */
  refreshToken: string | null;
  /** Seconds the access token lives from now, or null when the provider did not say. */
  expiresIn: number | null;
  /** Scopes granted (may be fewer than asked). */
  scopes: string[];
}

export interface DriveAccount {
  /** The provider's stable id of the account (Google: permissionId). */
  id: string;
  email: string | null;
  name: string | null;
}

/** A provider document (Google Docs, Sheets, ...) has no bytes of its own: it is exported in this format. */
export interface ExportFormat {
  mimeType: string;
  /** Without the dot: docx, xlsx, pdf. */
  extension: string;
}

/** One file or folder of a drive, normalised. */
export interface DriveItem {
  id: string;
  name: string;
  isFolder: boolean;
  /** The provider's type; for a provider document its own (application/vnd.google-apps.document). */
  mimeType: string | null;
  /** Bytes; null for folders and provider documents (their export's size is known only once exported). */
  size: number | null;
  /** ISO 8601. */
  modifiedAt: string | null;
  /** A link the provider serves a small preview at (short-lived on some providers). */
  thumbnailUrl: string | null;
  /**
   * Changes whenever the file's content changes, and only then where the provider allows it (Google:
   * headRevisionId; a document's version). Kept on imported assets to skip unchanged files on re-import.
   */
  revision: string | null;
  /** Set for provider documents: what a download or an import makes of them. */
  exportAs: ExportFormat | null;
  /** Set when the item has no bytes and no export format (Google Forms, shortcuts): why it cannot be downloaded. */
  unsupported: string | null;
}

export interface DriveListing {
  items: DriveItem[];
  /** The provider's own paging token (the core wraps it into an opaque cursor), null on the last page. */
  nextPageToken: string | null;
}

export interface ListRequest {
  /** A folder id, null for the drive's root. */
  folder: string | null;
  /** Name search; providers without it ignore it (see `supportsSearch`). */
  query: string | null;
  pageToken: string | null;
  /** Items per page asked for (the provider may answer fewer). */
  pageSize: number;
}

export interface DriveDownload {
  stream: Readable;
  mimeType: string;
  /** Content-Length when the provider sent one (an export is often chunked). */
  size: number | null;
  /** The name to save under (an export's extension added). */
  fileName: string;
}

/** A file to send to the drive, read from our store; `open` is called once per request body (a resumed chunk reads its range again). */
export interface DriveUploadSource {
  name: string;
  mimeType: string;
  size: number;
  /** The bytes, or the inclusive range of them. */
  open(range?: { start: number; end: number }): Promise<Readable>;
}

/** One provider, configured. Every API method takes a live access token; the core refreshes and retries on DriveAuthExpired. */
export interface DriveProvider {
  readonly id: DriveProviderId;
  /** Shown to people: "Google Drive". */
  readonly name: string;
  /** Whether `list` honours `query`. */
  readonly supportsSearch: boolean;
  /** Largest file sent in one request; larger ones go through the provider's resumable upload. */
  readonly simpleUploadLimit: number;

  /** The provider's authorization-code URL (PKCE S256, offline access so a refresh token is issued). */
  authorizationUrl(params: { state: string; codeChallenge: string; redirectUri: string }): string;
  /** `iss`: the callback's issuer parameter (RFC 9207) when the provider sent one. */
  exchangeCode(params: { code: string; iss: string | undefined; codeVerifier: string; redirectUri: string }): Promise<DriveTokens>;
  /** A refresh that the provider refuses (revoked, expired grant) is DriveGrantRefused. */
  refresh(refreshToken: string): Promise<DriveTokens>;
  /** Revokes the grant where the provider can (best effort: the connection is deleted whatever this answers). */
  revoke(tokens: { accessToken: string; refreshToken: string | null }): Promise<void>;

  account(accessToken: string): Promise<DriveAccount>;
  list(accessToken: string, request: ListRequest): Promise<DriveListing>;
  item(accessToken: string, id: string): Promise<DriveItem>;
  /** Streams the file's bytes, or the export of a provider document; never buffered whole. */
  download(accessToken: string, item: DriveItem): Promise<DriveDownload>;
  /** Creates a file in `folder` (null: the root) and answers it; large files through the resumable API. */
  upload(accessToken: string, source: DriveUploadSource, folder: string | null): Promise<DriveItem>;
}

/** An entry of src/drives/registry.ts: a provider's id and name, and how to build it from config (null: not configured). */
export interface DriveModule {
  readonly id: DriveProviderId;
  readonly name: string;
  create(config: DrivesConfig): DriveProvider | null;
}

/** The provider refused the access token (HTTP 401): the core refreshes it once and tries again. */
export class DriveAuthExpired extends Error {
  override readonly name = 'DriveAuthExpired';
}

/** The token endpoint refused the grant (invalid_grant, revoked, a wrong client): the user has to connect again. */
export class DriveGrantRefused extends Error {
  override readonly name = 'DriveGrantRefused';
}

/** The provider asks us to slow down (429, 503, or its own rate-limit answers); `retryAfter` in seconds when it said. */
export class DriveRateLimited extends Error {
  override readonly name = 'DriveRateLimited';
  constructor(
    message: string,
    readonly retryAfter: number | null,
  ) {
    super(message);
  }
}

/** No such file or folder (or not visible to this account). */
export class DriveItemNotFound extends Error {
  override readonly name = 'DriveItemNotFound';
}

/** Input the provider cannot take, caught before asking it (an id of the wrong shape): a 400 naming `field`. */
export class DriveBadInput extends Error {
  override readonly name = 'DriveBadInput';
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
  }
}

/** Any other failure of the provider: `message` is the provider's own (for the 502), `status` its HTTP status when it answered. */
export class DriveProviderError extends Error {
  override readonly name = 'DriveProviderError';
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
  }
}
