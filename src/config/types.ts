import type { Plan } from '../payments/plans.js';
import type { MailConfig } from '../mail/types.js';

/**
 * The whole configuration of one process. Read once from the environment by
 * `loadConfig` (src/config/load.ts, each variable declared in src/config/vars.ts), validated, then frozen. Tests build it with `testConfig` style
 * overrides instead of touching process.env.
 */
export interface AppConfig {
  readonly env: 'development' | 'production' | 'test';
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  /** `sqlite:<file>` (default, under dataDir) or a postgres:// URL. */
  readonly databaseUrl: string;
  /** PostgreSQL's timeouts (DAM_DB_CONNECT_TIMEOUT, DAM_DB_STATEMENT_TIMEOUT; issue #37); SQLite ignores them. */
  readonly database: DatabaseConfig;
  /**
   * DAM_JWT_SECRET, or on SQLite the secret generated into the data dir. Undefined on PostgreSQL
   * without DAM_JWT_SECRET: every process reads the one generated in the database at start
   * (src/services/signing-secrets.ts); code signs with AppContext.secrets, never with this.
   */
  readonly jwtSecret: string | undefined;
  /** DAM_JWT_SECRET_PREVIOUS: secrets that still verify (never sign) during a rotation's grace period. */
  readonly jwtSecretPrevious: readonly string[];
  /** DAM_ROLE: `all` (API, job worker and housekeeping), `api` (HTTP only) or `worker` (jobs and housekeeping, /healthz only). */
  readonly role: ProcessRole;
  /** DAM_REDIS_URL: rate-limit counters in Redis (ioredis) instead of the database / this process. */
  readonly redisUrl: string | undefined;
  /** DAM_READY_MIN_FREE_BYTES: free bytes /readyz requires on the data dir's file system (and its tmp/ and storage/); 0: not checked. */
  readonly readyMinFreeBytes: number;
  /** DAM_METRICS_TOKEN: the Bearer token GET /metrics requires; unset, /metrics answers loopback clients only. */
  readonly metricsToken: string | undefined;
  /** Session lifetime in seconds. */
  readonly sessionTtl: number;
  readonly allowRegistration: boolean;
  readonly logLevel: string;
  /**
   * Whose X-Forwarded-For to believe for the client address (rate limits, logs): false (nobody,
   * the default: anyone could forge it), a hop count (`true` is 1), or a comma list of proxy addresses/CIDRs.
   */
  readonly trustProxy: false | number | string;
  /** Attempts per window for the login rate limit, per address and per account. */
  readonly loginRateLimit: number;
  readonly loginRateWindowMs: number;
  /** Requests per window for each authenticated user (routes not marked public), in this process. */
  readonly userRateLimit: number;
  readonly userRateWindowMs: number;
  readonly storage: StorageConfig;
  /** Absolute base URL clients reach this server at; local part-upload URLs are built on it. */
  readonly publicUrl: string;
  /** Seconds an untouched upload session is kept before it is swept with its parts. */
  readonly uploadTtl: number;
  /** Seconds from start-upload after which an unfinished upload takes no more parts and is swept, however active. */
  readonly uploadMaxLifetime: number;
  /** Seconds a presigned part URL from get-upload-url stays valid (DAM_PART_URL_TTL), never past the upload's lifetime. */
  readonly partUrlTtl: number;
  /** Smallest size in bytes of every part but the last (S3's own minimum is 5 MiB). */
  readonly minPartSize: number;
  /** Largest object in bytes. */
  readonly maxFileSize: number;
  /** The job queue's worker in this process (src/jobs/). */
  readonly jobs: JobsConfig;
  /** ffmpeg for video posters (FFMPEG_PATH); undefined: looked up on PATH. */
  readonly ffmpegPath: string | undefined;
  /** poppler-utils' pdftoppm for PDF previews (PDFTOPPM_PATH; its sibling pdfinfo counts pages); undefined: looked up on PATH. */
  readonly pdftoppmPath: string | undefined;
  /** LibreOffice's soffice for office-document previews (DAM_LIBREOFFICE_PATH); undefined: office documents get none. */
  readonly libreofficePath: string | undefined;
  /** Seconds the signed media URLs (thumbnail_url, file_url, previews) stay valid at least. */
  readonly mediaUrlTtl: number;
  /** Social login (seed 4.4); google is null unless DAM_SOCIAL_GOOGLE_CLIENT_ID is set. */
  readonly social: SocialConfig;
  /** Days an item stays in the trash before housekeeping deletes it for good (0: at the next run). */
  readonly trashDays: number;
  /** What housekeeping sweeps may delete per run and without an admin's confirmation (issue #37). */
  readonly sweeps: SweepsConfig;
  /** Search facet counts are exact up to this many matches, beyond that estimated from a sample of about this many (issue #12). */
  readonly searchFacetSample: number;
  /** The most assets one search-based POST /dam/assets/bulk acts on (issue #27); more matches are a 422. */
  readonly bulkSearchMax: number;
  /** AI image generation through an OpenAI-compatible Images API (issue #13); null unless DAM_IMAGE_GEN_API_KEY is set. */
  readonly imageGen: ImageGenConfig | null;
  /** The image proxy and every fetch of an outside URL (src/fetcher/, issue #13). */
  readonly proxy: ProxyConfig;
  /** iOS universal links and Android App Links (issue #13): the apps this instance's links open in. */
  readonly appAssociation: AppAssociationConfig;
  /** Shared links (issue #14): limits of the public share routes, lifetime of share-access tokens. */
  readonly shares: SharesConfig;
  /** ZIP downloads, listing and extraction (issue #14, src/zip/). */
  readonly zip: ZipConfig;
  /** Image and video conversions and video previews (issue #15). */
  readonly convert: ConvertConfig;
  /** External drives (issue #16, src/drives/): each provider null unless its client id is set. */
  readonly drives: DrivesConfig;
  /** Plans and Stripe (issue #17, src/payments/): stripe null unless DAM_STRIPE_SECRET_KEY is set (payments off). */
  readonly payments: PaymentsConfig;
  /** E-mail through SMTP (issue #27, src/mail/): null unless DAM_SMTP_URL is set (no mail is sent). */
  readonly mail: MailConfig | null;
  /** Seconds an invitation and an account-setup link stay valid (DAM_INVITE_TTL). */
  readonly inviteTtl: number;
  /** Workspaces one account may create (DAM_MAX_WORKSPACES_PER_USER, issue #28; 0: no limit); instance admins are not limited. */
  readonly maxWorkspacesPerUser: number;
  /** Milliseconds a request may take to send an ordinary body (DAM_BODY_TIMEOUT seconds, issue #28). */
  readonly bodyTimeoutMs: number;
  /** Milliseconds a file upload's body may go without a byte (DAM_UPLOAD_IDLE_TIMEOUT seconds, issue #28). */
  readonly uploadIdleTimeoutMs: number;
  /** The map view's tiles (issue #27, domain/map-tiles.ts): DAM_MAP_TILE_URL and DAM_MAP_ATTRIBUTION, OpenStreetMap's by default. */
  readonly map: MapConfig;
}

export interface SweepsConfig {
  /** DAM_SWEEP_MAX_PERCENT: the largest share (percent) of a workspace a sweep deletes unconfirmed. */
  readonly maxPercent: number;
  /** DAM_SWEEP_MIN_COUNT: below this many items a sweep always acts. */
  readonly minCount: number;
  /** DAM_SWEEP_BATCH: items each sweep deletes per run at most. */
  readonly batch: number;
  /** DAM_ORPHAN_SWEEP_HOURS: hours between orphaned-object sweeps; 0: off. */
  readonly orphanHours: number;
}

export interface MapConfig {
  /** A Leaflet URL template ({s} {z} {x} {y} {r}); the web client's CSP allows images from its origin. */
  readonly tileUrl: string;
  /** HTML the map shows in its corner (links allowed; the client's CSP runs no script or event handler in it). */
  readonly attribution: string;
}

export interface PaymentsConfig {
  /** From DAM_PLANS_FILE (default config/plans.json), validated at start; exactly one has no stripe_price_id (the free plan). */
  readonly plans: readonly Plan[];
  readonly stripe: StripeConfig | null;
  /** DAM_BILLING_GRACE_DAYS (default 7): days a past_due workspace stays writable before it turns read-only. */
  readonly graceDays: number;
}

export interface StripeConfig {
  /** DAM_STRIPE_SECRET_KEY; never answered or logged. */
  readonly secretKey: string;
  /** DAM_STRIPE_WEBHOOK_SECRET: verifies the Stripe-Signature of webhook deliveries; never answered or logged. */
  readonly webhookSecret: string;
  /** DAM_STRIPE_API_URL: base URL of the Stripe API (scheme, host, port), mapped onto the SDK's protocol/host/port. */
  readonly apiUrl: string;
}

/** One OAuth 2.0 client of an external drive; URLs are base URLs (scheme, host, port, optional path prefix), no trailing slash. */
export interface DriveOAuthClientConfig {
  readonly clientId: string;
  /** Sent to the token endpoint; never answered or logged. Unset: a public client (PKCE only). */
  readonly clientSecret: string | undefined;
  /** Base of the provider's authorization page (the browser is sent there). */
  readonly authorizeUrl: string;
  /** Base of the provider's token (and, where it has one, revocation) endpoint. */
  readonly tokenUrl: string;
  /** Base of the provider's API. */
  readonly apiUrl: string;
}

export interface DrivesConfig {
  /** drive-ext-1: Google Drive (DAM_GDRIVE_*); the API base serves /drive/v3/... and /upload/drive/v3/.... */
  readonly google: DriveOAuthClientConfig | null;
  /** drive-ext-2: Dropbox (DAM_DROPBOX_*); `contentUrl` serves /2/files/download and /2/files/upload.... */
  readonly dropbox: (DriveOAuthClientConfig & { readonly contentUrl: string }) | null;
  /** drive-ext-3: OneDrive through Microsoft Graph (DAM_ONEDRIVE_*); the API base serves /v1.0/me/drive/.... */
  readonly onedrive: DriveOAuthClientConfig | null;
}

export interface ConvertConfig {
  /** Largest image, width x height, a conversion decodes or writes (DAM_CONVERT_MAX_PIXELS): sharp's limitInputPixels. */
  readonly maxPixels: number;
  /** One ffmpeg run of a conversion or video preview may take this long, milliseconds (DAM_CONVERT_TIMEOUT is seconds). */
  readonly timeoutMs: number;
  /** Make web-playable MP4 previews of uploaded videos (DAM_VIDEO_PREVIEWS). */
  readonly videoPreviews: boolean;
}

export interface ZipConfig {
  /** Files (and folders) one ZIP download may hold (DAM_ZIP_DOWNLOAD_MAX_ENTRIES); more is 422 ZIP_TOO_MANY_ENTRIES. */
  readonly downloadMaxEntries: number;
  /** Entries an archive may have to be imported by POST /zip/extract (DAM_ZIP_MAX_ENTRIES). */
  readonly maxEntries: number;
  /** Bytes one import (or one GET /zip/extract) may inflate to in all, counted as they are written (DAM_ZIP_MAX_UNCOMPRESSED). */
  readonly maxUncompressed: number;
  /** Largest ratio of inflated to compressed bytes of one entry, checked past 1 MiB of output (DAM_ZIP_MAX_RATIO). */
  readonly maxRatio: number;
  /** Seconds a signed GET /zip/download URL from POST /zip/link stays valid (DAM_ZIP_LINK_TTL). */
  readonly linkTtl: number;
}

export interface SharesConfig {
  /** Public share requests per minute per client address (DAM_SHARE_RATE_LIMIT), in this process. */
  readonly rateLimit: number;
  /** Public share requests per minute per link, all addresses together (DAM_SHARE_LINK_RATE_LIMIT), in this process. */
  readonly linkRateLimit: number;
  /** Seconds a share-access token from POST /shared/public/:key/unlock stays valid (DAM_SHARE_TOKEN_TTL). */
  readonly tokenTtl: number;
  /** Days a link's access log keeps each entry (DAM_SHARE_LOG_DAYS); 0 keeps them while the link exists. */
  readonly logDays: number;
}

export interface AppAssociationConfig {
  /** DAM_IOS_APP_IDS: `TEAMID.bundle.id` of each iOS app; empty: no apple-app-site-association (404). */
  readonly iosAppIds: readonly string[];
  /** DAM_ANDROID_APP: the package and its signing certificates' SHA-256 fingerprints; null: no assetlinks.json (404). */
  readonly android: { readonly packageName: string; readonly fingerprints: readonly string[] } | null;
}

export interface ProxyConfig {
  /** Largest fetched body in bytes (DAM_PROXY_MAX_BYTES), counted while it streams. */
  readonly maxBytes: number;
  /** Ports an outside URL may name (DAM_PROXY_PORTS, default 80 and 443). */
  readonly ports: readonly number[];
  /** Exact `host:port` pairs let through whatever they resolve to (DAM_PROXY_ALLOW_HOSTS; tests, intranets). */
  readonly allowHosts: readonly string[];
  /** Connect + whole-answer timeout of one fetch, all redirects included (DAM_PROXY_TIMEOUT, seconds; kept in ms). */
  readonly timeoutMs: number;
  /** Seconds a signed image-proxy URL stays valid (DAM_PROXY_URL_TTL). */
  readonly urlTtl: number;
  /** Signed image-proxy fetches per minute per client address (DAM_PROXY_RATE_LIMIT). */
  readonly rateLimit: number;
}

export interface ImageGenConfig {
  /** Base URL of the OpenAI-compatible API, up to and including its version (`https://api.openai.com/v1`). */
  readonly url: string;
  /** Sent as `Authorization: Bearer`; never answered or logged. */
  readonly apiKey: string;
  readonly model: string;
  /** Images a workspace may ask for per UTC day (DAM_IMAGE_GEN_DAILY_LIMIT). */
  readonly dailyLimit: number;
  /** One provider request's timeout, milliseconds (DAM_IMAGE_GEN_TIMEOUT is seconds). */
  readonly timeoutMs: number;
  /** `response_format` sent: b64_json or url; `omit` for models that refuse the parameter (the GPT image models answer b64_json). */
  readonly responseFormat: 'b64_json' | 'url' | 'omit';
}

export interface SocialConfig {
  readonly google: {
    readonly clientId: string;
    /** Where the browser starts the provider's sign-in (OAuth 2.0 implicit flow, response_type=token). */
    readonly authorizeUrl: string;
    /** Validates an access token: `?access_token=` -> aud/azp, sub, exp. */
    readonly tokeninfoUrl: string;
    /** The profile of a bearer access token: sub, email, email_verified, name. */
    readonly userinfoUrl: string;
  } | null;
}

export interface JobsConfig {
  /** Jobs run at once by this process; 0: this process runs none (API-only, when workers run elsewhere). */
  readonly concurrency: number;
  /** How often an idle worker looks for due jobs (milliseconds); jobs queued in-process wake it at once. */
  readonly pollIntervalMs: number;
  /** Seconds a claimed job stays reserved without a heartbeat before another worker may take it. */
  readonly leaseSeconds: number;
  /** Runs of a job before it is marked failed. */
  readonly maxAttempts: number;
  /** First retry delay in seconds; doubled after each failure (capped at an hour). */
  readonly retryBaseSeconds: number;
}

export type StorageConfig =
  | { readonly kind: 'local' }
  | {
      readonly kind: 's3';
      readonly bucket: string;
      readonly endpoint: string | undefined;
      readonly region: string;
      readonly accessKeyId: string | undefined;
      readonly secretAccessKey: string | undefined;
      readonly forcePathStyle: boolean;
      readonly client: S3ClientSettings;
    };

/** How the S3 client retries and when it gives up on a store that errs or stalls (issue #37). */
export interface S3ClientSettings {
  /** Attempts per request, the first included (DAM_S3_MAX_ATTEMPTS). */
  readonly maxAttempts: number;
  /** The AWS SDK's retry mode (DAM_S3_RETRY_MODE). */
  readonly retryMode: 'standard' | 'adaptive';
  /** Milliseconds to open a connection (DAM_S3_CONNECT_TIMEOUT). */
  readonly connectTimeoutMs: number;
  /** Milliseconds a request or a streamed body may go without a byte (DAM_S3_REQUEST_TIMEOUT). */
  readonly requestTimeoutMs: number;
  /** Connections to the store at most (DAM_S3_MAX_SOCKETS). */
  readonly maxSockets: number;
}

export type ProcessRole = 'all' | 'api' | 'worker';

export interface DatabaseConfig {
  /** Longest wait for a connection, new or pooled. */
  readonly connectTimeoutMs: number;
  /** statement_timeout of every connection (0: none); migrations run without it. */
  readonly statementTimeoutMs: number;
}
