import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPlansFile, PlansFileError, type Plan } from '../payments/plans.js';
import type { MailConfig } from '../mail/types.js';
import { ConfigError, type Env } from './declare.js';
import { mailFrom } from './formats.js';
import type { AppConfig, DriveOAuthClientConfig, DrivesConfig, ImageGenConfig, PaymentsConfig, S3ClientSettings, SocialConfig, StorageConfig } from './types.js';
import { read, type NameOf } from './vars.js';

/**
 * Builds the AppConfig from the environment. Every variable is read through its declaration in vars.ts
 * (parsed, defaulted, refused with a message naming it); what is here is the shape of the result and the
 * rules between variables: computed defaults, features switched on by one variable, required pairs.
 */
export function loadConfig(env: Env = process.env): AppConfig {
  const nodeEnv = read(env, 'NODE_ENV');
  const dataDir = read(env, 'DAM_DATA_DIR');
  const databaseUrl = read(env, 'DATABASE_URL') ?? `sqlite:${path.join(dataDir, 'dam.sqlite')}`;
  const port = read(env, 'PORT');
  const publicUrl = read(env, 'DAM_PUBLIC_URL') ?? `http://localhost:${port}`;
  return Object.freeze({
    env: nodeEnv,
    port,
    host: read(env, 'HOST'),
    dataDir,
    databaseUrl,
    database: Object.freeze({
      connectTimeoutMs: read(env, 'DAM_DB_CONNECT_TIMEOUT') * 1000,
      statementTimeoutMs: read(env, 'DAM_DB_STATEMENT_TIMEOUT') * 1000,
    }),
    jwtSecret: jwtSecret(env, dataDir, databaseUrl),
    jwtSecretPrevious: Object.freeze(read(env, 'DAM_JWT_SECRET_PREVIOUS') ?? []),
    role: read(env, 'DAM_ROLE'),
    redisUrl: read(env, 'DAM_REDIS_URL'),
    readyMinFreeBytes: read(env, 'DAM_READY_MIN_FREE_BYTES'),
    metricsToken: read(env, 'DAM_METRICS_TOKEN'),
    sessionTtl: read(env, 'DAM_SESSION_TTL'),
    allowRegistration: read(env, 'DAM_ALLOW_REGISTRATION'),
    logLevel: read(env, 'LOG_LEVEL'),
    trustProxy: read(env, 'DAM_TRUST_PROXY'),
    loginRateLimit: read(env, 'DAM_LOGIN_RATE_LIMIT'),
    loginRateWindowMs: read(env, 'DAM_LOGIN_RATE_WINDOW') * 1000,
    userRateLimit: read(env, 'DAM_USER_RATE_LIMIT'),
    userRateWindowMs: read(env, 'DAM_USER_RATE_WINDOW') * 1000,
    storage: storageConfig(env),
    publicUrl,
    uploadTtl: read(env, 'DAM_UPLOAD_TTL'),
    uploadMaxLifetime: read(env, 'DAM_UPLOAD_MAX_LIFETIME'),
    partUrlTtl: read(env, 'DAM_PART_URL_TTL'),
    minPartSize: read(env, 'DAM_MIN_PART_SIZE'),
    maxFileSize: read(env, 'DAM_MAX_FILE_SIZE'),
    jobs: Object.freeze({
      concurrency: read(env, 'DAM_JOB_CONCURRENCY'),
      pollIntervalMs: read(env, 'DAM_JOB_POLL_INTERVAL'),
      leaseSeconds: read(env, 'DAM_JOB_LEASE'),
      maxAttempts: read(env, 'DAM_JOB_MAX_ATTEMPTS'),
      retryBaseSeconds: read(env, 'DAM_JOB_RETRY_BASE'),
    }),
    ffmpegPath: read(env, 'FFMPEG_PATH'),
    pdftoppmPath: read(env, 'PDFTOPPM_PATH'),
    libreofficePath: read(env, 'DAM_LIBREOFFICE_PATH'),
    mediaUrlTtl: read(env, 'DAM_MEDIA_URL_TTL'),
    social: socialConfig(env),
    trashDays: read(env, 'DAM_TRASH_DAYS'),
    sweeps: Object.freeze({
      maxPercent: read(env, 'DAM_SWEEP_MAX_PERCENT'),
      minCount: read(env, 'DAM_SWEEP_MIN_COUNT'),
      batch: read(env, 'DAM_SWEEP_BATCH'),
      orphanHours: read(env, 'DAM_ORPHAN_SWEEP_HOURS'),
    }),
    searchFacetSample: read(env, 'DAM_SEARCH_FACET_SAMPLE'),
    bulkSearchMax: read(env, 'DAM_BULK_SEARCH_MAX'),
    imageGen: imageGenConfig(env),
    proxy: Object.freeze({
      maxBytes: read(env, 'DAM_PROXY_MAX_BYTES'),
      ports: Object.freeze(read(env, 'DAM_PROXY_PORTS')),
      allowHosts: Object.freeze(read(env, 'DAM_PROXY_ALLOW_HOSTS') ?? []),
      timeoutMs: read(env, 'DAM_PROXY_TIMEOUT') * 1000,
      urlTtl: read(env, 'DAM_PROXY_URL_TTL'),
      rateLimit: read(env, 'DAM_PROXY_RATE_LIMIT'),
    }),
    appAssociation: Object.freeze({
      iosAppIds: Object.freeze(read(env, 'DAM_IOS_APP_IDS') ?? []),
      android: read(env, 'DAM_ANDROID_APP') ?? null,
    }),
    shares: Object.freeze({
      rateLimit: read(env, 'DAM_SHARE_RATE_LIMIT'),
      linkRateLimit: read(env, 'DAM_SHARE_LINK_RATE_LIMIT'),
      tokenTtl: read(env, 'DAM_SHARE_TOKEN_TTL'),
      logDays: read(env, 'DAM_SHARE_LOG_DAYS'),
    }),
    zip: Object.freeze({
      downloadMaxEntries: read(env, 'DAM_ZIP_DOWNLOAD_MAX_ENTRIES'),
      maxEntries: read(env, 'DAM_ZIP_MAX_ENTRIES'),
      maxUncompressed: read(env, 'DAM_ZIP_MAX_UNCOMPRESSED'),
      maxRatio: read(env, 'DAM_ZIP_MAX_RATIO'),
      linkTtl: read(env, 'DAM_ZIP_LINK_TTL'),
    }),
    convert: Object.freeze({
      maxPixels: read(env, 'DAM_CONVERT_MAX_PIXELS'),
      timeoutMs: read(env, 'DAM_CONVERT_TIMEOUT') * 1000,
      videoPreviews: read(env, 'DAM_VIDEO_PREVIEWS'),
    }),
    drives: drivesConfig(env),
    payments: paymentsConfig(env),
    mail: mailConfig(env, publicUrl),
    inviteTtl: read(env, 'DAM_INVITE_TTL'),
    maxWorkspacesPerUser: read(env, 'DAM_MAX_WORKSPACES_PER_USER'),
    bodyTimeoutMs: read(env, 'DAM_BODY_TIMEOUT') * 1000,
    uploadIdleTimeoutMs: read(env, 'DAM_UPLOAD_IDLE_TIMEOUT') * 1000,
    map: Object.freeze({ tileUrl: read(env, 'DAM_MAP_TILE_URL'), attribution: read(env, 'DAM_MAP_ATTRIBUTION') }),
  });
}

/**
 * DAM_JWT_SECRET. Unset on SQLite (one process): generated on first start and kept in the data dir.
 * Unset on PostgreSQL: undefined here, read from the database at start, so that no process of a
 * cluster invents a secret of its own.
 */
function jwtSecret(env: Env, dataDir: string, databaseUrl: string): string | undefined {
  const given = read(env, 'DAM_JWT_SECRET');
  if (given !== undefined) return given;
  if (!databaseUrl.startsWith('sqlite:')) return undefined;
  const file = path.join(dataDir, 'jwt-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
  return secret;
}

function storageConfig(env: Env): StorageConfig {
  const kind = read(env, 'DAM_STORAGE');
  if (kind === 'local') return { kind };
  const bucket = read(env, 'DAM_S3_BUCKET');
  if (bucket === undefined) throw new ConfigError('DAM_S3_BUCKET is required when DAM_STORAGE=s3');
  return {
    kind,
    bucket,
    endpoint: read(env, 'DAM_S3_ENDPOINT'),
    region: read(env, 'DAM_S3_REGION'),
    accessKeyId: read(env, 'DAM_S3_ACCESS_KEY_ID'),
    secretAccessKey: read(env, 'DAM_S3_SECRET_ACCESS_KEY'),
    forcePathStyle: read(env, 'DAM_S3_FORCE_PATH_STYLE'),
    client: s3ClientSettings(env),
  };
}

/** The S3 client's retries, timeouts and connections (issue #37); `s3ClientSettings({})` gives the defaults. */
export function s3ClientSettings(env: Env): S3ClientSettings {
  return Object.freeze({
    maxAttempts: read(env, 'DAM_S3_MAX_ATTEMPTS'),
    retryMode: read(env, 'DAM_S3_RETRY_MODE'),
    connectTimeoutMs: read(env, 'DAM_S3_CONNECT_TIMEOUT') * 1000,
    requestTimeoutMs: read(env, 'DAM_S3_REQUEST_TIMEOUT') * 1000,
    maxSockets: read(env, 'DAM_S3_MAX_SOCKETS'),
  });
}

function imageGenConfig(env: Env): ImageGenConfig | null {
  const apiKey = read(env, 'DAM_IMAGE_GEN_API_KEY');
  if (apiKey === undefined) return null;
  const responseFormat = read(env, 'DAM_IMAGE_GEN_RESPONSE_FORMAT');
  return Object.freeze({
    url: read(env, 'DAM_IMAGE_GEN_URL'),
    apiKey,
    model: read(env, 'DAM_IMAGE_GEN_MODEL'),
    dailyLimit: read(env, 'DAM_IMAGE_GEN_DAILY_LIMIT'),
    timeoutMs: read(env, 'DAM_IMAGE_GEN_TIMEOUT') * 1000,
    responseFormat,
  });
}

function socialConfig(env: Env): SocialConfig {
  const clientId = read(env, 'DAM_SOCIAL_GOOGLE_CLIENT_ID');
  if (clientId === undefined) return { google: null };
  return {
    google: {
      clientId,
      authorizeUrl: read(env, 'DAM_SOCIAL_GOOGLE_AUTHORIZE_URL'),
      tokeninfoUrl: read(env, 'DAM_SOCIAL_GOOGLE_TOKENINFO_URL'),
      userinfoUrl: read(env, 'DAM_SOCIAL_GOOGLE_USERINFO_URL'),
    },
  };
}

/** One provider's client: on when its client id is set (and only then are its other variables read). */
function driveClient(
  env: Env,
  names: { id: NameOf<string | undefined>; secret: NameOf<string | undefined>; authorize: NameOf<string>; token: NameOf<string>; api: NameOf<string> },
): DriveOAuthClientConfig | null {
  const clientId = read(env, names.id);
  if (clientId === undefined) return null;
  return {
    clientId,
    clientSecret: read(env, names.secret),
    authorizeUrl: read(env, names.authorize),
    tokenUrl: read(env, names.token),
    apiUrl: read(env, names.api),
  };
}

/** issue #16: a provider is on when its client id (Dropbox: app key) is set; every URL defaults to the provider's own. */
function drivesConfig(env: Env): DrivesConfig {
  const google = driveClient(env, {
    id: 'DAM_GDRIVE_CLIENT_ID',
    secret: 'DAM_GDRIVE_CLIENT_SECRET',
    authorize: 'DAM_GDRIVE_AUTHORIZE_URL',
    token: 'DAM_GDRIVE_TOKEN_URL',
    api: 'DAM_GDRIVE_API_URL',
  });
  const dropbox = driveClient(env, {
    id: 'DAM_DROPBOX_APP_KEY',
    secret: 'DAM_DROPBOX_APP_SECRET',
    authorize: 'DAM_DROPBOX_AUTHORIZE_URL',
    token: 'DAM_DROPBOX_TOKEN_URL',
    api: 'DAM_DROPBOX_API_URL',
  });
  const onedrive = driveClient(env, {
    id: 'DAM_ONEDRIVE_CLIENT_ID',
    secret: 'DAM_ONEDRIVE_CLIENT_SECRET',
    authorize: 'DAM_ONEDRIVE_AUTHORIZE_URL',
    token: 'DAM_ONEDRIVE_TOKEN_URL',
    api: 'DAM_ONEDRIVE_API_URL',
  });
  return Object.freeze({
    google: google && Object.freeze(google),
    dropbox: dropbox && Object.freeze({ ...dropbox, contentUrl: read(env, 'DAM_DROPBOX_CONTENT_URL') }),
    onedrive: onedrive && Object.freeze(onedrive),
  });
}

/** The plans file shipped with the project: config/plans.json, two levels up from src/config/ and dist/config/ alike. */
const DEFAULT_PLANS_FILE = fileURLToPath(new URL('../../config/plans.json', import.meta.url));

function paymentsConfig(env: Env): PaymentsConfig {
  const file = path.resolve(read(env, 'DAM_PLANS_FILE') ?? DEFAULT_PLANS_FILE);
  let plans: Plan[];
  try {
    plans = loadPlansFile(file);
  } catch (err) {
    if (err instanceof PlansFileError) throw new ConfigError(`DAM_PLANS_FILE: ${err.message}`);
    throw err;
  }
  const graceDays = read(env, 'DAM_BILLING_GRACE_DAYS');
  const secretKey = read(env, 'DAM_STRIPE_SECRET_KEY');
  if (secretKey === undefined) return Object.freeze({ plans: Object.freeze(plans), stripe: null, graceDays });
  const webhookSecret = read(env, 'DAM_STRIPE_WEBHOOK_SECRET');
  if (webhookSecret === undefined) {
    throw new ConfigError('DAM_STRIPE_WEBHOOK_SECRET is required when DAM_STRIPE_SECRET_KEY is set (webhooks cannot be verified without it)');
  }
  const apiUrl = read(env, 'DAM_STRIPE_API_URL');
  // The SDK takes a protocol, host and port, not a path prefix.
  if (new URL(apiUrl).pathname !== '/') throw new ConfigError(`DAM_STRIPE_API_URL must be scheme, host and port only (no path), got "${apiUrl}"`);
  return Object.freeze({ plans: Object.freeze(plans), stripe: Object.freeze({ secretKey, webhookSecret, apiUrl }), graceDays });
}

function publicHostname(publicUrl: string): string {
  try {
    return new URL(publicUrl).hostname;
  } catch {
    throw new ConfigError(`DAM_PUBLIC_URL must be an http(s) URL, got "${publicUrl}"`);
  }
}

/** DAM_SMTP_URL and DAM_SMTP_FROM (default `DAM <no-reply@host of the public URL>`); null without DAM_SMTP_URL. */
function mailConfig(env: Env, publicUrl: string): MailConfig | null {
  const url = read(env, 'DAM_SMTP_URL');
  if (url === undefined) return null;
  const from = read(env, 'DAM_SMTP_FROM') ?? mailFrom(`DAM <no-reply@${publicHostname(publicUrl)}>`, 'DAM_SMTP_FROM');
  return Object.freeze({ url, from });
}
