import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';

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
  readonly jwtSecret: string;
  /** Session lifetime in seconds. */
  readonly sessionTtl: number;
  readonly allowRegistration: boolean;
  readonly logLevel: string;
  /**
   * Whose X-Forwarded-For to believe for the client address (rate limits, logs): false (nobody,
   * the default: anyone could forge it), true (any proxy), or a comma list of proxy addresses/CIDRs.
   */
  readonly trustProxy: boolean | string;
  /** Attempts per window for the login rate limit, per address and per account. */
  readonly loginRateLimit: number;
  readonly loginRateWindowMs: number;
  readonly storage: StorageConfig;
  /** Absolute base URL clients reach this server at; local part-upload URLs are built on it. */
  readonly publicUrl: string;
  /** Seconds an untouched upload session is kept before it is swept with its parts. */
  readonly uploadTtl: number;
  /** Smallest size in bytes of every part but the last (S3's own minimum is 5 MiB). */
  readonly minPartSize: number;
  /** Largest object in bytes. */
  readonly maxFileSize: number;
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

function trustProxyVar(raw: string | undefined): boolean | string {
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  if (!/^[0-9a-fA-F:./]+(\s*,\s*[0-9a-fA-F:./]+)*$/.test(raw)) {
    throw new ConfigError(`DAM_TRUST_PROXY must be true, false or a comma list of addresses, got "${raw}"`);
  }
  return raw;
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

/** Reads DAM_JWT_SECRET, or generates one on first start and keeps it in the data dir. */
function jwtSecret(env: Env, dataDir: string): string {
  const given = env.DAM_JWT_SECRET;
  if (given) {
    if (given.length < 32) throw new ConfigError('DAM_JWT_SECRET must be at least 32 characters');
    return given;
  }
  const file = path.join(dataDir, 'jwt-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
  return secret;
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
    jwtSecret: jwtSecret(env, dataDir),
    sessionTtl: intVar(env, 'DAM_SESSION_TTL', 7 * 24 * 3600, 60),
    allowRegistration: boolVar(env, 'DAM_ALLOW_REGISTRATION', false),
    logLevel: env.LOG_LEVEL ?? 'info',
    trustProxy: trustProxyVar(env.DAM_TRUST_PROXY),
    loginRateLimit: intVar(env, 'DAM_LOGIN_RATE_LIMIT', 10, 1),
    loginRateWindowMs: intVar(env, 'DAM_LOGIN_RATE_WINDOW', 15 * 60, 1) * 1000,
    storage: storageConfig(env),
    publicUrl,
    uploadTtl: intVar(env, 'DAM_UPLOAD_TTL', 24 * 3600, 60),
    minPartSize: intVar(env, 'DAM_MIN_PART_SIZE', 5 * 1024 * 1024, 1),
    maxFileSize: intVar(env, 'DAM_MAX_FILE_SIZE', 5 * 1024 ** 3, 1),
  });
}
