import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPlansFile, PlansFileError, type Plan } from './payments/plans.js';
import type { MailConfig } from './mail/types.js';
import { OSM_ATTRIBUTION, OSM_TILE_URL, tileTemplateProblem } from './domain/map-tiles.js';

/**
 * The whole configuration of one process. Read once from the environment by
 * `loadConfig`, validated, then frozen. Tests build it with `testConfig` style
 * overrides instead of touching process.env.
 */
export interface AppConfig {
  readonly env: 'development' | 'production' | 'test';
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  /** `sqlite:<file>` (default, under dataDir) or a postgres:// URL. */
  readonly databaseUrl: string;
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
    };

export class ConfigError extends Error {}

export type ProcessRole = 'all' | 'api' | 'worker';

type Env = Record<string, string | undefined>;

function intVar(env: Env, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `between ${min} and ${max}`;
    throw new ConfigError(`${name} must be an integer ${range}, got "${raw}"`);
  }
  return value;
}

function boolVar(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

/**
 * DAM_TRUST_PROXY (issue #28): how many proxies stand in front (a hop count), or their addresses. The client
 * address is then the rightmost X-Forwarded-For entry no trusted proxy wrote, never the leftmost, which the
 * client itself may have written. `true` means one proxy (1 hop), the common case.
 */
function trustProxyVar(raw: string | undefined): false | number | string {
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return 1;
  if (/^\d{1,2}$/.test(raw)) {
    const hops = Number(raw);
    if (hops >= 1 && hops <= 10) return hops;
  }
  if (!/^[0-9a-fA-F:./]+(\s*,\s*[0-9a-fA-F:./]+)*$/.test(raw) || /^\d+$/.test(raw)) {
    throw new ConfigError(`DAM_TRUST_PROXY must be false, true (one proxy), a hop count from 1 to 10, or a comma list of proxy addresses/CIDRs, got "${raw}"`);
  }
  return raw;
}

function httpUrlVar(env: Env, name: string, fallback: string): string {
  const value = env[name] || fallback;
  if (!/^https?:\/\//.test(value)) throw new ConfigError(`${name} must be an http(s) URL, got "${value}"`);
  return value;
}

function portsVar(env: Env, name: string, fallback: number[]): number[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  return raw.split(',').map((item) => {
    const port = Number(item.trim());
    if (!/^\d{1,5}$/.test(item.trim()) || port < 1 || port > 65_535) {
      throw new ConfigError(`${name} must be a comma list of ports (1-65535), got "${raw}"`);
    }
    return port;
  });
}

/** `host:port` pairs, lower case; an IPv6 host in brackets (`[::1]:8080`), as URL.host writes it. */
function hostPortsVar(env: Env, name: string): string[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return [];
  return raw.split(',').map((item) => {
    const value = item.trim().toLowerCase();
    if (!/^([a-z0-9.-]+|\[[0-9a-f:.]+\]):\d{1,5}$/.test(value)) {
      throw new ConfigError(`${name} must be a comma list of host:port pairs, got "${item.trim()}"`);
    }
    return value;
  });
}

function proxyConfig(env: Env): ProxyConfig {
  return Object.freeze({
    maxBytes: intVar(env, 'DAM_PROXY_MAX_BYTES', 20 * 1024 * 1024, 1024),
    ports: Object.freeze(portsVar(env, 'DAM_PROXY_PORTS', [80, 443])),
    allowHosts: Object.freeze(hostPortsVar(env, 'DAM_PROXY_ALLOW_HOSTS')),
    timeoutMs: intVar(env, 'DAM_PROXY_TIMEOUT', 10, 1, 600) * 1000,
    urlTtl: intVar(env, 'DAM_PROXY_URL_TTL', 3600, 60, 7 * 24 * 3600),
    rateLimit: intVar(env, 'DAM_PROXY_RATE_LIMIT', 600, 1),
  });
}

function imageGenConfig(env: Env): ImageGenConfig | null {
  const apiKey = env.DAM_IMAGE_GEN_API_KEY;
  if (!apiKey) return null;
  const responseFormat = env.DAM_IMAGE_GEN_RESPONSE_FORMAT || 'b64_json';
  if (responseFormat !== 'b64_json' && responseFormat !== 'url' && responseFormat !== 'omit') {
    throw new ConfigError(`DAM_IMAGE_GEN_RESPONSE_FORMAT must be b64_json, url or omit, got "${responseFormat}"`);
  }
  return Object.freeze({
    url: httpUrlVar(env, 'DAM_IMAGE_GEN_URL', 'https://api.openai.com/v1').replace(/\/+$/, ''),
    apiKey,
    model: env.DAM_IMAGE_GEN_MODEL || 'dall-e-3',
    dailyLimit: intVar(env, 'DAM_IMAGE_GEN_DAILY_LIMIT', 50, 1, 1_000_000),
    timeoutMs: intVar(env, 'DAM_IMAGE_GEN_TIMEOUT', 120, 1, 3600) * 1000,
    responseFormat,
  });
}

/** An Apple app id: the 10-character Team ID, a dot, the bundle id (letters, digits, hyphens, dots). */
const IOS_APP_ID = /^[A-Z0-9]{10}\.[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*$/;
/** An Android application id: two or more dot-separated segments, each starting with a letter. */
const ANDROID_PACKAGE = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/;
/** A SHA-256 fingerprint as keytool prints it (32 colon-separated hex bytes) or as 64 hex digits. */
const SHA256_FINGERPRINT = /^([0-9A-F]{2}(:[0-9A-F]{2}){31}|[0-9A-F]{64})$/;

function iosAppIdsVar(env: Env): string[] {
  const raw = env.DAM_IOS_APP_IDS;
  if (raw === undefined || raw.trim() === '') return [];
  const ids = raw.split(',').map((item) => {
    const id = item.trim();
    if (!IOS_APP_ID.test(id) || id.length > 255) {
      throw new ConfigError(`DAM_IOS_APP_IDS must be a comma list of TEAMID.bundle.id (e.g. ABCDE12345.com.example.dam), got "${id}"`);
    }
    return id;
  });
  return [...new Set(ids)];
}

/** `package:FINGERPRINT[,FINGERPRINT...]`: the package name ends at the first colon (package names have none). */
function androidAppVar(env: Env): AppAssociationConfig['android'] {
  const raw = env.DAM_ANDROID_APP?.trim();
  if (!raw) return null;
  const at = raw.indexOf(':');
  const packageName = at < 0 ? raw : raw.slice(0, at);
  const usage = 'DAM_ANDROID_APP must be package:SHA256[,SHA256...] (e.g. com.example.dam:14:6D:E9:...:B8 with 32 hex bytes per fingerprint)';
  if (at < 0 || !ANDROID_PACKAGE.test(packageName) || packageName.length > 255) throw new ConfigError(`${usage}, got "${raw}"`);
  const fingerprints = raw.slice(at + 1).split(',').map((item) => {
    const fp = item.trim().toUpperCase();
    if (!SHA256_FINGERPRINT.test(fp)) throw new ConfigError(`${usage}; "${item.trim()}" is not a SHA-256 fingerprint`);
    return fp.includes(':') ? fp : (fp.match(/../g) ?? []).join(':');
  });
  return Object.freeze({ packageName, fingerprints: Object.freeze([...new Set(fingerprints)]) });
}

/** A base URL: http(s), no credentials, query or fragment; kept without its trailing slashes so paths are appended to it. */
function baseUrlVar(env: Env, name: string, fallback: string): string {
  const value = env[name] || fallback;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${name} must be an http(s) base URL, got "${value}"`);
  }
  if (!/^https?:$/.test(url.protocol) || url.username || url.password || url.search || url.hash) {
    throw new ConfigError(`${name} must be an http(s) base URL (scheme, host, port, optional path; no query), got "${value}"`);
  }
  return value.replace(/\/+$/, '');
}

/** issue #16: a provider is on when its client id (Dropbox: app key) is set; every URL defaults to the provider's own. */
function drivesConfig(env: Env): DrivesConfig {
  const client = (prefix: string, idVar: string, secretVar: string, defaults: { authorize: string; token: string; api: string }) => {
    const clientId = env[idVar];
    if (!clientId) return null;
    return {
      clientId,
      clientSecret: env[secretVar] || undefined,
      authorizeUrl: baseUrlVar(env, `${prefix}_AUTHORIZE_URL`, defaults.authorize),
      tokenUrl: baseUrlVar(env, `${prefix}_TOKEN_URL`, defaults.token),
      apiUrl: baseUrlVar(env, `${prefix}_API_URL`, defaults.api),
    };
  };
  const google = client('DAM_GDRIVE', 'DAM_GDRIVE_CLIENT_ID', 'DAM_GDRIVE_CLIENT_SECRET', {
    authorize: 'https://accounts.google.com',
    token: 'https://oauth2.googleapis.com',
    api: 'https://www.googleapis.com',
  });
  const dropbox = client('DAM_DROPBOX', 'DAM_DROPBOX_APP_KEY', 'DAM_DROPBOX_APP_SECRET', {
    authorize: 'https://www.dropbox.com',
    token: 'https://api.dropboxapi.com',
    api: 'https://api.dropboxapi.com',
  });
  const onedrive = client('DAM_ONEDRIVE', 'DAM_ONEDRIVE_CLIENT_ID', 'DAM_ONEDRIVE_CLIENT_SECRET', {
    // The tenant is the path prefix: `common` takes personal and work accounts.
    authorize: 'https://login.microsoftonline.com/common',
    token: 'https://login.microsoftonline.com/common',
    api: 'https://graph.microsoft.com',
  });
  return Object.freeze({
    google: google && Object.freeze(google),
    dropbox: dropbox && Object.freeze({ ...dropbox, contentUrl: baseUrlVar(env, 'DAM_DROPBOX_CONTENT_URL', 'https://content.dropboxapi.com') }),
    onedrive: onedrive && Object.freeze(onedrive),
  });
}

/** The plans file shipped with the project: ../config/plans.json from src/ and from dist/ alike. */
const DEFAULT_PLANS_FILE = fileURLToPath(new URL('../config/plans.json', import.meta.url));

function paymentsConfig(env: Env): PaymentsConfig {
  const file = path.resolve(env.DAM_PLANS_FILE || DEFAULT_PLANS_FILE);
  let plans: Plan[];
  try {
    plans = loadPlansFile(file);
  } catch (err) {
    if (err instanceof PlansFileError) throw new ConfigError(`DAM_PLANS_FILE: ${err.message}`);
    throw err;
  }
  const graceDays = intVar(env, 'DAM_BILLING_GRACE_DAYS', 7, 0, 365);
  const secretKey = env.DAM_STRIPE_SECRET_KEY;
  if (!secretKey) return Object.freeze({ plans: Object.freeze(plans), stripe: null, graceDays });
  const webhookSecret = env.DAM_STRIPE_WEBHOOK_SECRET;
  if (!webhookSecret) throw new ConfigError('DAM_STRIPE_WEBHOOK_SECRET is required when DAM_STRIPE_SECRET_KEY is set (webhooks cannot be verified without it)');
  const apiUrl = baseUrlVar(env, 'DAM_STRIPE_API_URL', 'https://api.stripe.com');
  // The SDK takes a protocol, host and port, not a path prefix.
  if (new URL(apiUrl).pathname !== '/') throw new ConfigError(`DAM_STRIPE_API_URL must be scheme, host and port only (no path), got "${apiUrl}"`);
  return Object.freeze({ plans: Object.freeze(plans), stripe: Object.freeze({ secretKey, webhookSecret, apiUrl }), graceDays });
}

function socialConfig(env: Env): SocialConfig {
  const clientId = env.DAM_SOCIAL_GOOGLE_CLIENT_ID;
  if (!clientId) return { google: null };
  return {
    google: {
      clientId,
      authorizeUrl: httpUrlVar(env, 'DAM_SOCIAL_GOOGLE_AUTHORIZE_URL', 'https://accounts.google.com/o/oauth2/v2/auth'),
      tokeninfoUrl: httpUrlVar(env, 'DAM_SOCIAL_GOOGLE_TOKENINFO_URL', 'https://oauth2.googleapis.com/tokeninfo'),
      userinfoUrl: httpUrlVar(env, 'DAM_SOCIAL_GOOGLE_USERINFO_URL', 'https://openidconnect.googleapis.com/v1/userinfo'),
    },
  };
}

function storageConfig(env: Env): StorageConfig {
  const kind = env.DAM_STORAGE ?? 'local';
  if (kind === 'local') return { kind };
  if (kind !== 's3') throw new ConfigError(`DAM_STORAGE must be local or s3, got "${kind}"`);
  const bucket = env.DAM_S3_BUCKET;
  if (!bucket) throw new ConfigError('DAM_S3_BUCKET is required when DAM_STORAGE=s3');
  const endpoint = env.DAM_S3_ENDPOINT || undefined;
  if (endpoint && !/^https?:\/\//.test(endpoint)) throw new ConfigError('DAM_S3_ENDPOINT must be an http(s) URL');
  return {
    kind,
    bucket,
    endpoint,
    region: env.DAM_S3_REGION || 'us-east-1',
    accessKeyId: env.DAM_S3_ACCESS_KEY_ID || undefined,
    secretAccessKey: env.DAM_S3_SECRET_ACCESS_KEY || undefined,
    forcePathStyle: boolVar(env, 'DAM_S3_FORCE_PATH_STYLE', false),
  };
}

/** The URL as an error may show it: scheme, host and port only (an SMTP URL carries credentials, some providers' user name is a token too). */
function schemeAndHost(url: URL): string {
  return `${url.protocol}//${url.host}`;
}

function publicHostname(publicUrl: string): string {
  try {
    return new URL(publicUrl).hostname;
  } catch {
    throw new ConfigError(`DAM_PUBLIC_URL must be an http(s) URL, got "${publicUrl}"`);
  }
}

/**
 * DAM_SMTP_URL (`smtp://user:pass@host:port`, `smtps://…`) and DAM_SMTP_FROM (default
 * `DAM <no-reply@host of the public URL>`); null without DAM_SMTP_URL. The password is never
 * part of an error message.
 */
function mailConfig(env: Env, publicUrl: string): MailConfig | null {
  const raw = env.DAM_SMTP_URL?.trim();
  if (!raw) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('DAM_SMTP_URL must be an smtp:// or smtps:// URL (smtp://user:pass@host:587), got a value that is not a URL');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') {
    throw new ConfigError(`DAM_SMTP_URL must be an smtp:// or smtps:// URL (smtp://user:pass@host:587), got "${schemeAndHost(url)}"`);
  }
  if (url.hostname === '') throw new ConfigError(`DAM_SMTP_URL must name a host, got "${schemeAndHost(url)}"`);
  const from = env.DAM_SMTP_FROM?.trim() || `DAM <no-reply@${publicHostname(publicUrl)}>`;
  // One address, optionally after a display name (`Name <address>`); no line breaks (it becomes a header).
  if (!/^(?:[^<>\r\n]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/.test(from)) {
    throw new ConfigError(`DAM_SMTP_FROM must be an e-mail address, optionally after a name (DAM <no-reply@example.com>), got "${from}"`);
  }
  return Object.freeze({ url: raw, from });
}

function checkSecret(name: string, value: string): string {
  if (value.length < 32) throw new ConfigError(`${name} must be at least 32 characters`);
  return value;
}

/**
 * Reads DAM_JWT_SECRET. Unset on SQLite (one process): generated on first start and kept in the
 * data dir. Unset on PostgreSQL: undefined here, read from the database at start, so that no
 * process of a cluster invents a secret of its own.
 */
function jwtSecret(env: Env, dataDir: string, databaseUrl: string): string | undefined {
  const given = env.DAM_JWT_SECRET;
  if (given) return checkSecret('DAM_JWT_SECRET', given);
  if (!databaseUrl.startsWith('sqlite:')) return undefined;
  const file = path.join(dataDir, 'jwt-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
  return secret;
}

/** DAM_METRICS_TOKEN: at least 16 characters (a scraper's secret, guessed otherwise), no whitespace (it travels in a header). */
function metricsTokenVar(env: Env): string | undefined {
  const token = env.DAM_METRICS_TOKEN;
  if (token === undefined || token === '') return undefined;
  if (token.length < 16 || token.length > 512 || /\s/.test(token)) {
    throw new ConfigError('DAM_METRICS_TOKEN must be 16 to 512 characters without whitespace');
  }
  return token;
}

/** DAM_JWT_SECRET_PREVIOUS: a comma list of retired secrets that still verify during a rotation. */
function previousSecrets(env: Env): string[] {
  const raw = env.DAM_JWT_SECRET_PREVIOUS;
  if (raw === undefined || raw.trim() === '') return [];
  const list = raw.split(',').map((item) => checkSecret('each secret of DAM_JWT_SECRET_PREVIOUS', item.trim()));
  if (list.length > 8) throw new ConfigError('DAM_JWT_SECRET_PREVIOUS takes at most 8 secrets');
  return list;
}

function roleVar(env: Env): ProcessRole {
  const role = env.DAM_ROLE || 'all';
  if (role !== 'all' && role !== 'api' && role !== 'worker') throw new ConfigError(`DAM_ROLE must be all, api or worker, got "${role}"`);
  return role;
}

function mapConfig(env: Env): MapConfig {
  const tileUrl = env.DAM_MAP_TILE_URL?.trim() || OSM_TILE_URL;
  const problem = tileTemplateProblem(tileUrl);
  if (problem) throw new ConfigError(`DAM_MAP_TILE_URL ${problem}, got "${tileUrl}"`);
  // Most tile servers serve OpenStreetMap's data, whose licence asks for this credit: another provider's is configured.
  const attribution = env.DAM_MAP_ATTRIBUTION?.trim() || OSM_ATTRIBUTION;
  if (attribution.length > 1000) throw new ConfigError('DAM_MAP_ATTRIBUTION must be at most 1000 characters');
  return Object.freeze({ tileUrl, attribution });
}

function redisUrlVar(env: Env): string | undefined {
  const url = env.DAM_REDIS_URL;
  if (!url) return undefined;
  if (!/^rediss?:\/\/\S+$/.test(url)) throw new ConfigError('DAM_REDIS_URL must be a redis:// or rediss:// URL');
  return url;
}

export function loadConfig(env: Env = process.env): AppConfig {
  const nodeEnv = env.NODE_ENV ?? 'production';
  if (nodeEnv !== 'development' && nodeEnv !== 'production' && nodeEnv !== 'test') {
    throw new ConfigError(`NODE_ENV must be development, production or test, got "${nodeEnv}"`);
  }
  const dataDir = path.resolve(env.DAM_DATA_DIR ?? './data');
  const databaseUrl = env.DATABASE_URL || `sqlite:${path.join(dataDir, 'dam.sqlite')}`;
  if (!/^(sqlite:|postgres(ql)?:\/\/)/.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with sqlite: or postgres://');
  }
  const port = intVar(env, 'PORT', 8080, 0, 65_535);
  const publicUrl = (env.DAM_PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, '');
  if (!/^https?:\/\//.test(publicUrl)) throw new ConfigError('DAM_PUBLIC_URL must be an http(s) URL');
  return Object.freeze({
    env: nodeEnv,
    port,
    host: env.HOST ?? '0.0.0.0',
    dataDir,
    databaseUrl,
    jwtSecret: jwtSecret(env, dataDir, databaseUrl),
    jwtSecretPrevious: Object.freeze(previousSecrets(env)),
    role: roleVar(env),
    redisUrl: redisUrlVar(env),
    metricsToken: metricsTokenVar(env),
    sessionTtl: intVar(env, 'DAM_SESSION_TTL', 7 * 24 * 3600, 60),
    allowRegistration: boolVar(env, 'DAM_ALLOW_REGISTRATION', false),
    logLevel: env.LOG_LEVEL ?? 'info',
    trustProxy: trustProxyVar(env.DAM_TRUST_PROXY),
    loginRateLimit: intVar(env, 'DAM_LOGIN_RATE_LIMIT', 10, 1),
    loginRateWindowMs: intVar(env, 'DAM_LOGIN_RATE_WINDOW', 15 * 60, 1) * 1000,
    userRateLimit: intVar(env, 'DAM_USER_RATE_LIMIT', 1200, 1),
    userRateWindowMs: intVar(env, 'DAM_USER_RATE_WINDOW', 60, 1) * 1000,
    storage: storageConfig(env),
    publicUrl,
    uploadTtl: intVar(env, 'DAM_UPLOAD_TTL', 24 * 3600, 60),
    uploadMaxLifetime: intVar(env, 'DAM_UPLOAD_MAX_LIFETIME', 7 * 24 * 3600, 60),
    // S3 signs a presigned URL for at most 7 days.
    partUrlTtl: intVar(env, 'DAM_PART_URL_TTL', 3600, 1, 7 * 24 * 3600),
    minPartSize: intVar(env, 'DAM_MIN_PART_SIZE', 5 * 1024 * 1024, 1),
    maxFileSize: intVar(env, 'DAM_MAX_FILE_SIZE', 5 * 1024 ** 3, 1),
    jobs: Object.freeze({
      concurrency: intVar(env, 'DAM_JOB_CONCURRENCY', availableParallelism(), 0, 256),
      pollIntervalMs: intVar(env, 'DAM_JOB_POLL_INTERVAL', 1000, 10),
      leaseSeconds: intVar(env, 'DAM_JOB_LEASE', 300, 10),
      maxAttempts: intVar(env, 'DAM_JOB_MAX_ATTEMPTS', 5, 1, 100),
      retryBaseSeconds: intVar(env, 'DAM_JOB_RETRY_BASE', 10, 1),
    }),
    ffmpegPath: env.FFMPEG_PATH || undefined,
    pdftoppmPath: env.PDFTOPPM_PATH || undefined,
    libreofficePath: env.DAM_LIBREOFFICE_PATH || undefined,
    mediaUrlTtl: intVar(env, 'DAM_MEDIA_URL_TTL', 3600, 60),
    social: socialConfig(env),
    trashDays: intVar(env, 'DAM_TRASH_DAYS', 30, 0, 36_500),
    searchFacetSample: intVar(env, 'DAM_SEARCH_FACET_SAMPLE', 5_000, 1, 10_000_000),
    bulkSearchMax: intVar(env, 'DAM_BULK_SEARCH_MAX', 10_000, 1, 1_000_000),
    imageGen: imageGenConfig(env),
    proxy: proxyConfig(env),
    appAssociation: Object.freeze({ iosAppIds: Object.freeze(iosAppIdsVar(env)), android: androidAppVar(env) }),
    shares: Object.freeze({
      rateLimit: intVar(env, 'DAM_SHARE_RATE_LIMIT', 300, 1),
      linkRateLimit: intVar(env, 'DAM_SHARE_LINK_RATE_LIMIT', 1200, 1),
      tokenTtl: intVar(env, 'DAM_SHARE_TOKEN_TTL', 3600, 60, 7 * 24 * 3600),
      logDays: intVar(env, 'DAM_SHARE_LOG_DAYS', 365, 0, 36_500),
    }),
    zip: Object.freeze({
      downloadMaxEntries: intVar(env, 'DAM_ZIP_DOWNLOAD_MAX_ENTRIES', 100_000, 1, 10_000_000),
      maxEntries: intVar(env, 'DAM_ZIP_MAX_ENTRIES', 10_000, 1, 10_000_000),
      maxUncompressed: intVar(env, 'DAM_ZIP_MAX_UNCOMPRESSED', 10 * 1024 ** 3, 1),
      maxRatio: intVar(env, 'DAM_ZIP_MAX_RATIO', 100, 1, 1_000_000),
      linkTtl: intVar(env, 'DAM_ZIP_LINK_TTL', 300, 10, 24 * 3600),
    }),
    convert: Object.freeze({
      maxPixels: intVar(env, 'DAM_CONVERT_MAX_PIXELS', 100_000_000, 1, 1_000_000_000),
      timeoutMs: intVar(env, 'DAM_CONVERT_TIMEOUT', 3600, 10, 7 * 24 * 3600) * 1000,
      videoPreviews: boolVar(env, 'DAM_VIDEO_PREVIEWS', true),
    }),
    drives: drivesConfig(env),
    payments: paymentsConfig(env),
    mail: mailConfig(env, publicUrl),
    inviteTtl: intVar(env, 'DAM_INVITE_TTL', 7 * 24 * 3600, 60),
    maxWorkspacesPerUser: intVar(env, 'DAM_MAX_WORKSPACES_PER_USER', 10, 0, 1_000_000),
    bodyTimeoutMs: intVar(env, 'DAM_BODY_TIMEOUT', 30, 1, 3600) * 1000,
    uploadIdleTimeoutMs: intVar(env, 'DAM_UPLOAD_IDLE_TIMEOUT', 60, 1, 3600) * 1000,
    map: mapConfig(env),
  });
}
