import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import type { AppConfig } from '../src/config.js';
import { openDatabase, type DatabaseHandle } from '../src/db/database.js';
import type { DialectName } from '../src/db/dialects/types.js';
import { REDIS_NAMESPACE } from '../src/http/rate-limit-store.js';
import { freePort, startTestApp, testConfig, type TestApp } from './helpers/app.js';
import { dialects, pgUrl, tempDir } from './helpers/databases.js';
import { registerUser, type Account } from './helpers/factories.js';

/**
 * Rate limits counted in a real Redis (DAM_REDIS_URL, issue #18): Debian's redis-server, started
 * by this file on a free loopback port. DAM_TEST_REQUIRE_REDIS=1 (set by .ci/run) turns a missing
 * redis-server into a failure, so CI cannot skip this suite silently.
 */
const hasRedis = spawnSync('redis-server', ['--version']).status === 0;
if (!hasRedis && process.env.DAM_TEST_REQUIRE_REDIS === '1') {
  throw new Error('DAM_TEST_REQUIRE_REDIS=1 but there is no redis-server on PATH (apt-get install redis-server)');
}

const PASSWORD = 'redis-password-never-logged';

/** A redis-server of this test on 127.0.0.1: no persistence, its own temp dir, a password. */
class RedisServer {
  private child: ChildProcess | undefined;
  private readonly dir = tempDir('dam-redis-');

  constructor(readonly port: number) {}

  url(db: number): string {
    return `redis://:${PASSWORD}@127.0.0.1:${this.port}/${db}`;
  }

  async start(): Promise<void> {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', this.dir, '--requirepass', PASSWORD];
    const child = spawn('redis-server', args, { stdio: 'ignore' });
    this.child = child;
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode} (port ${this.port} taken?)`);
      const probe = new Redis({ port: this.port, host: '127.0.0.1', password: PASSWORD, lazyConnect: true, retryStrategy: () => null, enableOfflineQueue: false });
      probe.on('error', () => {});
      try {
        await probe.connect();
        if ((await probe.ping()) === 'PONG') return;
      } catch {
        if (Date.now() > deadline) throw new Error(`redis-server on port ${this.port} did not answer PING`);
        await sleep(50);
      } finally {
        probe.disconnect();
      }
    }
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGCONT');
    child.kill('SIGTERM');
    await exited;
  }

  /** Alive but unresponsive: its connections stay open and nothing is answered. */
  pause(): void {
    this.child?.kill('SIGSTOP');
  }

  resume(): void {
    this.child?.kill('SIGCONT');
  }
}

/** A second connection pool on the same PostgreSQL schema: what another process would open. */
async function anotherProcessDatabase(handle: DatabaseHandle): Promise<DatabaseHandle> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(handle.db);
  return openDatabase(pgUrl!, { schema: rows[0]!.schema });
}

type LoggedApp = TestApp & { logs: string[] };

/** An app whose log lines (info and up) are kept, on `database` or a new one. */
async function startLoggedApp(dialect: DialectName, config: Partial<AppConfig>, on?: LoggedApp): Promise<LoggedApp> {
  const logs: string[] = [];
  const logStream = { write: (line: string) => void logs.push(line) };
  const withLogs = { ...config, logLevel: 'info' };
  if (!on) return { ...(await startTestApp({ dialect, config: withLogs, logStream })), logs };
  // Another process on the same database: SQLite shares the handle (one file), PostgreSQL opens its own pool.
  const database = dialect === 'postgres' ? await anotherProcessDatabase(on.database) : on.database;
  const appConfig = testConfig({ dataDir: on.config.dataDir, ...withLogs });
  const app = await buildApp(appConfig, { database, logger: true, logStream });
  await app.ready();
  return {
    app,
    database,
    config: appConfig,
    logs,
    advanceClock: () => {},
    request: ({ token, headers, ...rest }) => app.inject({ ...rest, headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) } }),
    close: async () => {
      await app.close();
      if (database !== on.database) await database.close();
    },
  };
}

const messages = (t: LoggedApp, pattern: RegExp): string[] =>
  t.logs.map((line) => (JSON.parse(line) as { msg: string }).msg).filter((msg) => pattern.test(msg));

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 8_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(50);
  }
}

const LIMITS = { loginRateLimit: 3, loginRateWindowMs: 60_000 };

describe.runIf(hasRedis).each(dialects)('rate limits in Redis (DAM_REDIS_URL) on %s', (dialect) => {
  let server: RedisServer;
  let client: Redis;
  let a: LoggedApp;
  let b: LoggedApp;
  let owner: Account;
  // One Redis database per dialect: the two suites may run at once on one server of their own each, but stay apart anyway.
  const db = dialect === 'sqlite' ? 1 : 2;

  /** A failed login from `address` on `t`: its status, Retry-After, code, and how long it took. */
  const login = async (t: TestApp, address: string) => {
    const started = Date.now();
    const res = await t.request({
      method: 'POST',
      url: '/auth/login',
      headers: { 'x-forwarded-for': address },
      // One e-mail per address: the per-account limit counts apart from the per-address one measured here.
      payload: { email: `nobody-${address}@example.test`, password: 'wrong password' },
    });
    return { status: res.statusCode, retryAfter: Number(res.headers['retry-after']), code: res.json<{ code?: string }>().code, ms: Date.now() - started };
  };

  /** Five failed logins alternating a, b, a, b, a with a limit of 3: counted together, the last two are refused. */
  const exhaustTogether = async (address: string) => {
    for (const t of [a, b, a]) expect((await login(t, address)).status).toBe(401);
    for (const t of [b, a]) {
      const res = await login(t, address);
      expect(res.status).toBe(429);
      expect(res.code).toBe('RATE_LIMITED');
      expect(res.retryAfter).toBeGreaterThan(0);
      expect(res.retryAfter).toBeLessThanOrEqual(60);
    }
  };

  const databaseCounter = async (key: string) =>
    dialect === 'postgres' ? a.database.db.selectFrom('rate_limit_counters').select('count').where('key', '=', key).executeTakeFirst() : undefined;

  beforeAll(async () => {
    server = new RedisServer(await freePort());
    await server.start();
    client = new Redis(server.url(db), { enableOfflineQueue: true, maxRetriesPerRequest: null });
    client.on('error', () => {});
    a = await startLoggedApp(dialect, { ...LIMITS, redisUrl: server.url(db) });
    b = await startLoggedApp(dialect, { ...LIMITS, redisUrl: server.url(db) }, a);
    owner = await registerUser(a);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    client?.disconnect();
    await server?.stop();
  });

  it('counts the login limit once across two processes, in Redis under dam-rate-limit-, with 429 and Retry-After', async () => {
    await exhaustTogether('10.8.0.1');

    const key = `${REDIS_NAMESPACE}ip-all:10.8.0.1`;
    expect(await client.keys(`${REDIS_NAMESPACE}*`)).toContain(key);
    // Every attempt (ip-all), and the failures (ip-fail: the two refused attempts were refunded, issue #28).
    expect(await client.get(key)).toBe('5');
    expect(await client.get(`${REDIS_NAMESPACE}ip-fail:10.8.0.1`)).toBe('3');
    const ttl = await client.pttl(key);
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    // Not in the database as well.
    expect(await databaseCounter('ip-all:10.8.0.1')).toBeUndefined();

    // The per-user limit of authenticated requests is counted in Redis too, across both processes.
    for (const t of [a, b]) expect((await t.request({ method: 'GET', url: '/auth/me', token: owner.token })).statusCode).toBe(200);
    expect(await client.get(`${REDIS_NAMESPACE}user:${owner.user.id}`)).toBe('2');
    expect([...a.logs, ...b.logs].join('\n')).not.toMatch(/Redis rate-limit store .* fails/);
  });

  it('when Redis stops mid-run, answers at once and keeps limiting without it (PostgreSQL: shared; SQLite: per process), with one warning', async () => {
    await server.stop();

    if (dialect === 'postgres') {
      // Counted in the database, still once across both processes.
      await exhaustTogether('10.8.0.2');
      expect(Number((await databaseCounter('ip-all:10.8.0.2'))?.count)).toBe(5);
    } else {
      // One process: each counts its own window in memory.
      for (const t of [a, b]) {
        for (let i = 0; i < 3; i++) expect((await login(t, '10.8.0.2')).status).toBe(401);
        const refused = await login(t, '10.8.0.2');
        expect(refused.status).toBe(429);
        expect(refused.retryAfter).toBeGreaterThan(0);
      }
    }
    for (let i = 0; i < 5; i++) {
      const res = await login(a, `10.8.1.${i}`);
      expect(res.status).toBe(401);
      expect(res.ms).toBeLessThan(1_000);
    }
    for (const t of [a, b]) expect((await t.request({ method: 'GET', url: '/auth/me', token: owner.token })).statusCode).toBe(200);

    for (const t of [a, b]) {
      const warnings = messages(t, /Redis rate-limit store .* fails/);
      // Once per outage, not once per request or reconnection attempt; the URL without its password.
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(`redis://127.0.0.1:${server.port}/${db}`);
      expect(t.logs.join('\n')).not.toContain(PASSWORD);
    }
  });

  it('when Redis answers again, counts there again', async () => {
    await server.start();
    // ioredis reconnects on its own (backing off up to 2 s between attempts).
    await until('both processes reconnected', () => [a, b].every((t) => messages(t, /answers again after/).length === 1));
    await exhaustTogether('10.8.0.3');
    expect(await client.get(`${REDIS_NAMESPACE}ip-all:10.8.0.3`)).toBe('5');
    expect(await databaseCounter('ip-all:10.8.0.3')).toBeUndefined();
  });

  it('when Redis hangs (alive, answering nothing), requests wait at most 0.5 s for it, then are counted without it', async () => {
    server.pause();
    try {
      const first = await login(a, '10.8.0.4');
      expect(first.status).toBe(401);
      expect(first.ms).toBeLessThan(1_500);
      // The next ones do not wait for Redis at all until its next probe.
      for (let i = 0; i < 2; i++) {
        const res = await login(a, '10.8.0.4');
        expect(res.status).toBe(401);
        expect(res.ms).toBeLessThan(300);
      }
      expect((await login(a, '10.8.0.4')).status).toBe(429);
      expect(messages(a, /Redis rate-limit store .* fails \(Command timed out\)/)).toHaveLength(1);
    } finally {
      server.resume();
    }
    // A request after the probe interval finds Redis well again.
    await sleep(2_100);
    expect((await login(a, '10.8.0.5')).status).toBe(401);
    expect(await client.get(`${REDIS_NAMESPACE}ip-all:10.8.0.5`)).toBe('1');
    expect(messages(a, /answers again after/)).toHaveLength(2);
  });

  it('starts when Redis is unreachable, limits without it, and moves to Redis once it answers', async () => {
    const later = new RedisServer(await freePort());
    const started = Date.now();
    const c = await startLoggedApp(dialect, { ...LIMITS, redisUrl: later.url(db) });
    const laterClient = new Redis(later.url(db), { lazyConnect: true });
    try {
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(messages(c, /Redis rate-limit store .* fails/)).toHaveLength(1);
      for (let i = 0; i < 3; i++) expect((await login(c, '10.8.0.6')).status).toBe(401);
      expect((await login(c, '10.8.0.6')).status).toBe(429);

      await later.start();
      await until('the process connected', () => messages(c, /answers again after/).length === 1);
      expect((await login(c, '10.8.0.7')).status).toBe(401);
      expect(await laterClient.get(`${REDIS_NAMESPACE}ip-all:10.8.0.7`)).toBe('1');
    } finally {
      laterClient.disconnect();
      await c.close();
      await later.stop();
    }
  });
});
