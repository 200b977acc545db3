import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../src/app.js';
import { ConfigError, loadConfig, s3ClientSettings } from '../src/config.js';
import { openDatabase, type DatabaseHandle } from '../src/db/database.js';
import { runExclusive } from '../src/db/leader-lock.js';
import { runSweeps, type Sweep } from '../src/housekeeping.js';
import { rateLimitBackend } from '../src/http/rate-limit-store.js';
import { SECRET_SETTING } from '../src/services/signing-secrets.js';
import { startHttpTestApp, startTestApp, testConfig, type TestApp } from './helpers/app.js';
import { dialects, openTestDatabase, pgUrl, tempDir } from './helpers/databases.js';
import { registerUser } from './helpers/factories.js';
import { makeJpeg, partUrl, startUpload, uploadFile } from './helpers/uploads.js';
import { s3ErrorFields } from './helpers/s3-errors.js';

const S1 = 'first-secret-first-secret-first-secret-0123';
const S2 = 'second-secret-second-secret-second-secret-99';
const silent = { info() {}, warn() {}, error() {} } as unknown as Parameters<typeof runSweeps>[2];

/** A second connection pool on the same database (same PostgreSQL schema): what another process would open. */
async function anotherProcessDatabase(handle: DatabaseHandle): Promise<DatabaseHandle> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(handle.db);
  return openDatabase(pgUrl!, { schema: rows[0]!.schema });
}

/** Path and query of an absolute URL, for inject. */
const pathOf = (url: string): string => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

describe('configuration of several processes', () => {
  const base = () => ({ DAM_DATA_DIR: tempDir('dam-scale-config-'), DAM_JWT_SECRET: S1 });

  it('validates DAM_ROLE (default all)', () => {
    expect(loadConfig(base()).role).toBe('all');
    expect(loadConfig({ ...base(), DAM_ROLE: 'api' }).role).toBe('api');
    expect(loadConfig({ ...base(), DAM_ROLE: 'worker' }).role).toBe('worker');
    expect(() => loadConfig({ ...base(), DAM_ROLE: 'leader' })).toThrow(/DAM_ROLE must be all, api or worker, got "leader"/);
  });

  it('validates DAM_JWT_SECRET_PREVIOUS and DAM_REDIS_URL', () => {
    expect(loadConfig({ ...base(), DAM_JWT_SECRET_PREVIOUS: ` ${S2} ,${S1}` }).jwtSecretPrevious).toEqual([S2, S1]);
    expect(() => loadConfig({ ...base(), DAM_JWT_SECRET_PREVIOUS: 'short' })).toThrow(ConfigError);
    expect(loadConfig({ ...base(), DAM_REDIS_URL: 'redis://cache:6379/0' }).redisUrl).toBe('redis://cache:6379/0');
    expect(() => loadConfig({ ...base(), DAM_REDIS_URL: 'http://cache' })).toThrow(/DAM_REDIS_URL must be a redis/);
  });

  it('on PostgreSQL without DAM_JWT_SECRET leaves the secret to the database and writes no file', () => {
    const dataDir = tempDir('dam-scale-config-');
    const config = loadConfig({ DAM_DATA_DIR: dataDir, DATABASE_URL: 'postgres://u:p@db/dam' });
    expect(config.jwtSecret).toBeUndefined();
    expect(existsSync(path.join(dataDir, 'jwt-secret'))).toBe(false);
  });

  it('wires the rate-limit counters to Redis when DAM_REDIS_URL is set, and starts when Redis is unreachable (test/rate-limit-redis.test.ts runs a real one)', async () => {
    const database = await openTestDatabase('sqlite');
    const log = { warn: vi.fn(), info: vi.fn() } as unknown as FastifyBaseLogger;
    try {
      const redis = await rateLimitBackend(testConfig({ redisUrl: 'redis://:pw-not-logged@127.0.0.1:1/0' }), database, log);
      expect(redis.kind).toBe('redis');
      expect(redis.redis).toBeInstanceOf(Redis);
      expect(redis.redis!.status).not.toBe('ready');
      expect(vi.mocked(log.warn).mock.calls.flat().join(' ')).toMatch(/Redis rate-limit store at redis:\/\/127\.0\.0\.1:1\/0 fails/);
      expect(vi.mocked(log.warn).mock.calls.flat().join(' ')).not.toContain('pw-not-logged');
      await redis.close();
      expect((await rateLimitBackend(testConfig(), database, log)).kind).toBe('memory');
    } finally {
      await database.close();
    }
  });
});

describe.each(dialects)('process roles on %s', (dialect) => {
  it('api serves the API and runs no job; worker answers only /healthz and /readyz and runs the jobs', async () => {
    const api = await startHttpTestApp({ dialect, config: { role: 'api', minPartSize: 5, jobs: { ...testConfig().jobs, pollIntervalMs: 50 } } });
    let worker: Awaited<ReturnType<typeof buildApp>> | undefined;
    try {
      const owner = await registerUser(api);
      await uploadFile(api, owner, await makeJpeg(64, 48), { fileType: 'image/jpeg', fileName: 'photo.jpg' });
      await sleep(400);
      const queued = await api.database.db.selectFrom('jobs').select(['status']).execute();
      expect(queued.length).toBeGreaterThan(0);
      expect(queued.map((j) => j.status)).toEqual(queued.map(() => 'queued'));

      worker = await buildApp(testConfig({ role: 'worker', dataDir: api.config.dataDir }), { database: api.database, logger: false });

      expect((await worker.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      expect((await worker.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
      expect((await worker.inject({ method: 'GET', url: '/auth/me', headers: { authorization: `Bearer ${owner.token}` } })).statusCode).toBe(404);
      expect((await worker.inject({ method: 'POST', url: '/auth/login', payload: { email: owner.user.email, password: owner.password } })).statusCode).toBe(404);

      await worker.jobs.drain();
      const done = await api.database.db.selectFrom('jobs').select(['status']).execute();
      expect(done.map((j) => j.status)).toEqual(done.map(() => 'succeeded'));
    } finally {
      await worker?.close();
      await api.close();
    }
  });
});

describe.each(dialects)('signing-secret rotation on %s', (dialect) => {
  it('DAM_JWT_SECRET_PREVIOUS keeps session tokens and signed URLs of the old secret valid; without it they are refused', async () => {
    const old = await startTestApp({ dialect, config: { jwtSecret: S1 } });
    const start = (config: Parameters<typeof testConfig>[0]) =>
      buildApp(testConfig({ dataDir: old.config.dataDir, ...config }), { database: old.database, logger: false });
    const rotated = await start({ jwtSecret: S2, jwtSecretPrevious: [S1] });
    const after = await start({ jwtSecret: S2 });
    try {
      const owner = await registerUser(old);
      const ref = await startUpload(old, owner);
      const url = pathOf(await partUrl(old, owner, ref, 1));
      const me = (app: typeof rotated, token: string) => app.inject({ method: 'GET', url: '/auth/me', headers: { authorization: `Bearer ${token}` } });

      expect((await me(rotated, owner.token)).statusCode).toBe(200);
      expect((await rotated.inject({ method: 'PUT', url, payload: Buffer.from('part one') })).statusCode).toBe(200);

      // A token the rotated process signs is under the new secret: the old-only process refuses it.
      const login = await rotated.inject({ method: 'POST', url: '/auth/login', payload: { email: owner.user.email, password: owner.password } });
      const fresh = login.json<{ token: string }>().token;
      expect((await me(rotated, fresh)).statusCode).toBe(200);
      expect((await me(after, fresh)).statusCode).toBe(200);
      expect((await old.request({ method: 'GET', url: '/auth/me', token: fresh })).statusCode).toBe(401);

      // Grace period over (DAM_JWT_SECRET_PREVIOUS removed): the old secret's token and URL are refused.
      expect((await me(after, owner.token)).statusCode).toBe(401);
      const refused = await after.inject({ method: 'PUT', url, payload: Buffer.from('part one') });
      expect(refused.statusCode).toBe(403);
      // The part URL answers S3's error document (issue #38): a signature of another secret does not match.
      expect(s3ErrorFields(refused.body).Code).toBe('SignatureDoesNotMatch');
    } finally {
      await after.close();
      await rotated.close();
      await old.close();
    }
  });
});

describe.each(dialects)('the local store data dir on %s', (dialect) => {
  it('refuses a process whose DAM_DATA_DIR is not the one the database knows; S3 processes are not checked', async () => {
    const first = await startTestApp({ dialect });
    try {
      const elsewhere = tempDir('dam-other-data-');
      const refused = buildApp(testConfig({ dataDir: elsewhere }), { database: first.database, logger: false });
      await expect(refused).rejects.toThrow(ConfigError);
      await expect(buildApp(testConfig({ dataDir: elsewhere }), { database: first.database, logger: false })).rejects.toThrow(
        /must share one DAM_DATA_DIR .*use DAM_STORAGE=s3/,
      );

      const same = await buildApp(testConfig({ dataDir: first.config.dataDir }), { database: first.database, logger: false });
      await same.close();

      const storage = { kind: 's3', bucket: 'b', endpoint: 'http://127.0.0.1:1', region: 'us-east-1', accessKeyId: 'k', secretAccessKey: 's', forcePathStyle: true, client: s3ClientSettings({}) } as const;
      const onS3 = await buildApp(testConfig({ dataDir: tempDir('dam-s3-data-'), storage, jobs: { ...testConfig().jobs, concurrency: 0 } }), {
        database: first.database,
        logger: false,
      });
      await onS3.close();
    } finally {
      await first.close();
    }
  });
});

describe.each(dialects)('leader locks of housekeeping on %s', (dialect) => {
  let database: DatabaseHandle;
  beforeAll(async () => {
    database = await openTestDatabase(dialect);
  });
  afterAll(async () => {
    await database.close();
  });

  it(dialect === 'postgres' ? 'runs a sweep once when two runs overlap, then frees it' : 'runs every sweep (one process)', async () => {
    let runs = 0;
    const body = async () => {
      runs += 1;
      await sleep(300);
    };
    const ran = await Promise.all([runExclusive(database, 'test-sweep', body), runExclusive(database, 'test-sweep', body)]);
    if (dialect === 'postgres') {
      expect(runs).toBe(1);
      expect(ran.sort()).toEqual([false, true]);
    } else {
      expect(runs).toBe(2);
    }
    expect(await runExclusive(database, 'test-sweep', async () => {})).toBe(true);
    // A failing body frees its lock too.
    await expect(runExclusive(database, 'test-sweep', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await runExclusive(database, 'test-sweep', async () => {})).toBe(true);
  });
});

describe.runIf(pgUrl)('the generated secret on PostgreSQL', () => {
  it("starts from the data dir's jwt-secret of an earlier version, so an upgrade keeps sessions valid", async () => {
    const dataDir = tempDir('dam-upgrade-');
    writeFileSync(path.join(dataDir, 'jwt-secret'), S2);
    const t = await startTestApp({ dialect: 'postgres', config: { jwtSecret: undefined, dataDir } });
    try {
      const stored = await t.database.db.selectFrom('settings').select('value').where('name', '=', SECRET_SETTING).executeTakeFirstOrThrow();
      expect(stored.value).toBe(S2);
    } finally {
      await t.close();
    }
  });
});

describe.runIf(pgUrl)('several processes on one PostgreSQL database', () => {
  let a: TestApp & { baseUrl: string };
  let b: TestApp & { baseUrl: string };

  beforeAll(async () => {
    const limits = {
      loginRateLimit: 3,
      shares: { rateLimit: 3, linkRateLimit: 100, tokenTtl: 3600, logDays: 365 },
      proxy: { ...testConfig().proxy, rateLimit: 3 },
    };
    // No DAM_JWT_SECRET: both read the database's.
    a = await startHttpTestApp({ dialect: 'postgres', config: { jwtSecret: undefined, ...limits } });
    b = await startHttpTestApp({ database: await anotherProcessDatabase(a.database), config: { jwtSecret: undefined, dataDir: a.config.dataDir, ...limits } });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('share one generated secret: tokens and signed URLs of one process work on the other', async () => {
    const stored = await a.database.db.selectFrom('settings').select('value').where('name', '=', SECRET_SETTING).executeTakeFirstOrThrow();
    expect(stored.value.length).toBeGreaterThanOrEqual(32);
    expect(existsSync(path.join(a.config.dataDir, 'jwt-secret'))).toBe(false);

    const owner = await registerUser(a);
    expect((await b.request({ method: 'GET', url: '/auth/me', token: owner.token })).statusCode).toBe(200);
    const ref = await startUpload(a, owner);
    const url = new URL(await partUrl(a, owner, ref, 1));
    const put = await fetch(`${b.baseUrl}${url.pathname}${url.search}`, { method: 'PUT', body: Buffer.from('one part') });
    expect(put.status).toBe(200);
    // Logout on one process is refused at once on the other.
    expect((await b.request({ method: 'POST', url: '/auth/logout', token: owner.token })).statusCode).toBeLessThan(300);
    expect((await a.request({ method: 'GET', url: '/auth/me', token: owner.token })).statusCode).toBe(401);
    // The per-user limit of authenticated requests stays in each process: no database write per request.
    const userCounters = await a.database.db.selectFrom('rate_limit_counters').select('key').where('key', 'like', 'user:%').execute();
    expect(userCounters).toEqual([]);
  });

  it('count the login limit together', async () => {
    const from = { 'x-forwarded-for': '10.9.0.1' };
    const login = (t: TestApp) => t.request({ method: 'POST', url: '/auth/login', headers: from, payload: { email: 'nobody@example.test', password: 'wrong password' } });
    for (const t of [a, b, a]) expect((await login(t)).statusCode).toBe(401);
    for (const t of [b, a]) {
      const res = await login(t);
      expect(res.statusCode).toBe(429);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
    const counter = async (key: string) => Number((await a.database.db.selectFrom('rate_limit_counters').selectAll().where('key', '=', key).executeTakeFirstOrThrow()).count);
    // Every attempt, and the failures: the two refused attempts were refunded once answered (issue #28).
    expect(await counter('ip-all:10.9.0.1')).toBe(5);
    await expect.poll(() => counter('ip-fail:10.9.0.1')).toBe(3);
  });

  it('count the public share limit together', async () => {
    const get = (t: TestApp) => t.request({ method: 'GET', url: '/shared/public/no-such-link', headers: { 'x-forwarded-for': '10.9.0.2' } });
    for (const t of [a, b, a]) expect((await get(t)).statusCode).toBe(404);
    for (const t of [b, a]) expect((await get(t)).statusCode).toBe(429);
  });

  it('count the signed image-proxy limit together', async () => {
    const get = (t: TestApp) =>
      t.request({ method: 'GET', url: '/api/image-proxy?url=http%3A%2F%2Fexample.com%2Fa.png&expires=1&signature=x', headers: { 'x-forwarded-for': '10.9.0.3' } });
    for (const t of [a, b, a]) expect((await get(t)).statusCode).not.toBe(429);
    for (const t of [b, a]) expect((await get(t)).statusCode).toBe(429);
  });

  it('run each housekeeping sweep once when both run at the same minute', async () => {
    const counts = { one: 0, two: 0 };
    let twoStarted!: () => void;
    let releaseTwo!: () => void;
    const started = new Promise<void>((resolve) => (twoStarted = resolve));
    const released = new Promise<void>((resolve) => (releaseTwo = resolve));
    // The process that takes 'one' holds it until the other has skipped it and taken 'two'; then it finds 'two' taken.
    const sweeps: Sweep[] = [
      ['one', async () => {
        counts.one += 1;
        await started;
      }],
      ['two', async () => {
        counts.two += 1;
        twoStarted();
        await released;
      }],
    ];
    const runs = [runSweeps(a.database, sweeps, silent), runSweeps(b.database, sweeps, silent)];
    await Promise.race(runs);
    releaseTwo();
    await Promise.all(runs);
    expect(counts).toEqual({ one: 1, two: 1 });
  });
});
