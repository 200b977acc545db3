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
  /** Attempts per window for the login rate limit, per address and per account. */
  readonly loginRateLimit: number;
  readonly loginRateWindowMs: number;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function intVar(env: Env, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new ConfigError(`${name} must be an integer >= ${min}, got "${raw}"`);
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
  return Object.freeze({
    env: nodeEnv,
    port: intVar(env, 'PORT', 8080, 0),
    host: env.HOST ?? '0.0.0.0',
    dataDir,
    databaseUrl,
    jwtSecret: jwtSecret(env, dataDir),
    sessionTtl: intVar(env, 'DAM_SESSION_TTL', 7 * 24 * 3600, 60),
    allowRegistration: boolVar(env, 'DAM_ALLOW_REGISTRATION', false),
    logLevel: env.LOG_LEVEL ?? 'info',
    loginRateLimit: intVar(env, 'DAM_LOGIN_RATE_LIMIT', 10, 1),
    loginRateWindowMs: intVar(env, 'DAM_LOGIN_RATE_WINDOW', 15 * 60, 1) * 1000,
  });
}
