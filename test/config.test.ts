import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { tempDir } from './helpers/databases.js';

const SECRET = 'a-secret-that-is-long-enough-0123456789';

/** An environment that never touches ./data of the working directory. */
function env(vars: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return { DAM_DATA_DIR: tempDir('dam-config-'), DAM_JWT_SECRET: SECRET, ...vars };
}

function configError(vars: Record<string, string | undefined>): ConfigError {
  try {
    loadConfig(vars);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(vars)}`);
}

describe('loadConfig', () => {
  it('applies the defaults', () => {
    // DAM_JWT_SECRET is given so that the default data dir (./data) is not written to.
    const config = loadConfig({ DAM_JWT_SECRET: SECRET });
    expect(config).toMatchObject({
      env: 'production',
      port: 8080,
      host: '0.0.0.0',
      dataDir: path.resolve('data'),
      databaseUrl: `sqlite:${path.join(path.resolve('data'), 'dam.sqlite')}`,
      database: { connectTimeoutMs: 5000, statementTimeoutMs: 30_000 },
      jwtSecret: SECRET,
      sessionTtl: 7 * 24 * 3600,
      allowRegistration: false,
      logLevel: 'info',
      loginRateLimit: 10,
      loginRateWindowMs: 15 * 60 * 1000,
      userRateLimit: 1200,
      userRateWindowMs: 60_000,
      partUrlTtl: 3600,
    });
    expect(path.isAbsolute(config.dataDir)).toBe(true);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('resolves a relative DAM_DATA_DIR and puts the SQLite file in it', () => {
    const config = loadConfig({ DAM_JWT_SECRET: SECRET, DAM_DATA_DIR: 'some/relative/dir' });
    expect(config.dataDir).toBe(path.resolve('some/relative/dir'));
    expect(config.databaseUrl).toBe(`sqlite:${path.resolve('some/relative/dir', 'dam.sqlite')}`);
  });

  it('reads the overrides', () => {
    const config = loadConfig(
      env({
        NODE_ENV: 'development',
        PORT: '3000',
        HOST: '127.0.0.1',
        DAM_SESSION_TTL: '3600',
        DAM_ALLOW_REGISTRATION: 'true',
        LOG_LEVEL: 'debug',
        DAM_LOGIN_RATE_LIMIT: '5',
        DAM_LOGIN_RATE_WINDOW: '60',
        DAM_USER_RATE_LIMIT: '300',
        DAM_USER_RATE_WINDOW: '10',
        DAM_PART_URL_TTL: '5',
      }),
    );
    expect(config).toMatchObject({
      env: 'development',
      port: 3000,
      host: '127.0.0.1',
      sessionTtl: 3600,
      allowRegistration: true,
      logLevel: 'debug',
      loginRateLimit: 5,
      loginRateWindowMs: 60_000,
      userRateLimit: 300,
      userRateWindowMs: 10_000,
      partUrlTtl: 5,
    });
  });

  it('treats empty values as unset', () => {
    const config = loadConfig(env({ PORT: '', DAM_ALLOW_REGISTRATION: '', DATABASE_URL: '' }));
    expect(config.port).toBe(8080);
    expect(config.allowRegistration).toBe(false);
    expect(config.databaseUrl).toMatch(/^sqlite:/);
  });

  it.each([
    ['1', true],
    ['yes', true],
    ['TRUE', true],
    ['0', false],
    ['no', false],
    ['false', false],
  ])('DAM_ALLOW_REGISTRATION=%s is %s', (value, expected) => {
    expect(loadConfig(env({ DAM_ALLOW_REGISTRATION: value })).allowRegistration).toBe(expected);
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '-1'],
    ['PORT', '80.5'],
    ['PORT', '70000'],
    ['DAM_SESSION_TTL', '10'],
    ['DAM_SESSION_TTL', 'forever'],
    ['DAM_ALLOW_REGISTRATION', 'maybe'],
    ['DAM_LOGIN_RATE_LIMIT', '0'],
    ['DAM_LOGIN_RATE_WINDOW', 'soon'],
    ['NODE_ENV', 'staging'],
    ['DATABASE_URL', 'mysql://localhost/dam'],
    ['DATABASE_URL', '/var/lib/dam.sqlite'],
    ['DAM_DB_CONNECT_TIMEOUT', '0'],
    ['DAM_DB_STATEMENT_TIMEOUT', '1.5'],
    ['DAM_TRUST_PROXY', 'the load balancer'],
    ['DAM_TRUST_PROXY', '0'],
    ['DAM_TRUST_PROXY', '11'],
    ['DAM_STORAGE', 'ftp'],
    ['DAM_STORAGE', 's3'],
    ['DAM_PUBLIC_URL', 'localhost:8080'],
    ['DAM_MIN_PART_SIZE', '0'],
    ['DAM_MAX_FILE_SIZE', 'big'],
    ['DAM_UPLOAD_TTL', '5'],
    ['DAM_PART_URL_TTL', '0'],
    ['DAM_PART_URL_TTL', '604801'],
    ['DAM_INVITE_TTL', '59'],
    ['DAM_INVITE_TTL', 'a week'],
    ['DAM_SMTP_URL', 'http://mail.example.com'],
    ['DAM_SMTP_URL', 'mail.example.com:587'],
  ])('refuses %s=%s with a ConfigError naming the variable', (name, value) => {
    const err = configError(env({ [name]: value }));
    expect(err.message).toContain(name);
  });

  it.each([
    [undefined, false],
    ['false', false],
    ['true', 1],
    ['2', 2],
    ['10.0.0.1, 192.168.0.0/16', '10.0.0.1, 192.168.0.0/16'],
  ])('DAM_TRUST_PROXY=%s trusts %s (forwarded addresses are believed only when asked)', (value, expected) => {
    expect(loadConfig(env({ DAM_TRUST_PROXY: value })).trustProxy).toEqual(expected);
  });

  it('reads the S3 settings and builds the public URL from the port', () => {
    const config = loadConfig(
      env({ PORT: '9090', DAM_STORAGE: 's3', DAM_S3_BUCKET: 'b', DAM_S3_ENDPOINT: 'http://127.0.0.1:9000', DAM_S3_FORCE_PATH_STYLE: 'true' }),
    );
    expect(config.publicUrl).toBe('http://localhost:9090');
    expect(config.storage).toEqual({
      kind: 's3',
      bucket: 'b',
      endpoint: 'http://127.0.0.1:9000',
      region: 'us-east-1',
      accessKeyId: undefined,
      secretAccessKey: undefined,
      forcePathStyle: true,
      client: { maxAttempts: 3, retryMode: 'standard', connectTimeoutMs: 5000, requestTimeoutMs: 30_000, maxSockets: 50 },
    });
    expect(loadConfig(env({ DAM_PUBLIC_URL: 'https://dam.example.com/' })).publicUrl).toBe('https://dam.example.com');
  });

  it('reads the S3 client\'s retries, timeouts and sockets, and refuses unbounded ones (issue #37)', () => {
    const s3 = { DAM_STORAGE: 's3', DAM_S3_BUCKET: 'b' };
    const config = loadConfig(
      env({ ...s3, DAM_S3_MAX_ATTEMPTS: '5', DAM_S3_RETRY_MODE: 'adaptive', DAM_S3_CONNECT_TIMEOUT: '2', DAM_S3_REQUEST_TIMEOUT: '10', DAM_S3_MAX_SOCKETS: '8' }),
    );
    expect(config.storage.kind === 's3' && config.storage.client).toEqual({ maxAttempts: 5, retryMode: 'adaptive', connectTimeoutMs: 2000, requestTimeoutMs: 10_000, maxSockets: 8 });
    expect(() => loadConfig(env({ ...s3, DAM_S3_MAX_ATTEMPTS: '0' }))).toThrow(/DAM_S3_MAX_ATTEMPTS/);
    expect(() => loadConfig(env({ ...s3, DAM_S3_REQUEST_TIMEOUT: '0' }))).toThrow(/DAM_S3_REQUEST_TIMEOUT/);
    expect(() => loadConfig(env({ ...s3, DAM_S3_RETRY_MODE: 'legacy' }))).toThrow(/DAM_S3_RETRY_MODE/);
  });

  it('accepts PostgreSQL URLs', () => {
    for (const url of ['postgres://dam:dam@db.example:5432/dam', 'postgresql://dam@localhost/dam']) {
      expect(loadConfig(env({ DATABASE_URL: url })).databaseUrl).toBe(url);
    }
  });

  it('accepts an explicit SQLite URL', () => {
    expect(loadConfig(env({ DATABASE_URL: 'sqlite:/tmp/elsewhere.sqlite' })).databaseUrl).toBe('sqlite:/tmp/elsewhere.sqlite');
  });

  describe('e-mail and invitations', () => {
    it('sends no e-mail without DAM_SMTP_URL; invitations live 7 days', () => {
      const config = loadConfig(env());
      expect(config.mail).toBeNull();
      expect(config.inviteTtl).toBe(7 * 24 * 3600);
    });

    it('reads DAM_INVITE_TTL in seconds, at least 60', () => {
      expect(loadConfig(env({ DAM_INVITE_TTL: '3600' })).inviteTtl).toBe(3600);
      expect(loadConfig(env({ DAM_INVITE_TTL: '60' })).inviteTtl).toBe(60);
    });

    it('takes an smtp:// or smtps:// URL, From defaulting to no-reply at the public host', () => {
      const config = loadConfig(env({ DAM_SMTP_URL: 'smtp://user:pass@mail.example.com:587', DAM_PUBLIC_URL: 'https://dam.example.com/' }));
      expect(config.mail).toEqual({ url: 'smtp://user:pass@mail.example.com:587', from: 'DAM <no-reply@dam.example.com>' });
      expect(Object.isFrozen(config.mail)).toBe(true);

      const secure = loadConfig(env({ DAM_SMTP_URL: 'smtps://mail.example.com', PORT: '9090' }));
      expect(secure.mail).toEqual({ url: 'smtps://mail.example.com', from: 'DAM <no-reply@localhost>' });
    });

    it.each(['Acme Assets <assets@acme.example>', 'assets@acme.example', '"Acme, Inc." <assets@acme.example>'])('takes DAM_SMTP_FROM=%s', (from) => {
      expect(loadConfig(env({ DAM_SMTP_URL: 'smtp://mail.example.com', DAM_SMTP_FROM: from })).mail?.from).toBe(from);
    });

    it.each(['nobody', 'A <a@example.com>\r\nBcc: b@example.com', 'a@example.com, b@example.com'])('refuses DAM_SMTP_FROM=%j', (from) => {
      const err = configError(env({ DAM_SMTP_URL: 'smtp://mail.example.com', DAM_SMTP_FROM: from }));
      expect(err.message).toContain('DAM_SMTP_FROM');
    });

    it.each(['http://user:hunter2-secret@mail.example.com', 'smtp//user:hunter2-secret@mail.example.com', 'user:hunter2-secret@mail'])(
      'refuses DAM_SMTP_URL=%s naming the variable, never the password',
      (url) => {
        const err = configError(env({ DAM_SMTP_URL: url }));
        expect(err.message).toContain('DAM_SMTP_URL');
        expect(err.message).not.toContain('hunter2');
      },
    );
  });

  describe('DAM_JWT_SECRET', () => {
    it('is generated once and persisted in the data dir', () => {
      const dataDir = path.join(tempDir('dam-secret-'), 'not', 'yet', 'created');
      const first = loadConfig({ DAM_DATA_DIR: dataDir });
      expect(first.jwtSecret?.length).toBeGreaterThanOrEqual(32);

      const file = path.join(dataDir, 'jwt-secret');
      expect(readFileSync(file, 'utf8').trim()).toBe(first.jwtSecret);
      if (process.platform !== 'win32') expect(statSync(file).mode & 0o077).toBe(0);

      const second = loadConfig({ DAM_DATA_DIR: dataDir });
      expect(second.jwtSecret).toBe(first.jwtSecret);
    });

    it('differs between data dirs', () => {
      const a = loadConfig({ DAM_DATA_DIR: tempDir('dam-secret-a-') });
      const b = loadConfig({ DAM_DATA_DIR: tempDir('dam-secret-b-') });
      expect(a.jwtSecret).not.toBe(b.jwtSecret);
    });

    it('uses a given secret as is and writes no file', () => {
      const dataDir = tempDir('dam-secret-given-');
      const config = loadConfig({ DAM_DATA_DIR: dataDir, DAM_JWT_SECRET: SECRET });
      expect(config.jwtSecret).toBe(SECRET);
      expect(existsSync(path.join(dataDir, 'jwt-secret'))).toBe(false);
    });

    it('refuses a short secret', () => {
      const err = configError({ DAM_DATA_DIR: tempDir('dam-secret-short-'), DAM_JWT_SECRET: 'too-short' });
      expect(err.message).toContain('DAM_JWT_SECRET');
    });
  });
});
