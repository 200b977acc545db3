import type { FastifyRateLimitOptions, FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyBaseLogger } from 'fastify';
import { Redis, type Result } from 'ioredis';
import type { AppConfig } from '../config.js';
import type { DatabaseHandle, DB } from '../db/database.js';
import { hitCounter, readCounter, refundCounter } from '../repositories/rate-limit-counters.js';

type Callback = (error: Error | null, result?: { current: number; ttl: number }) => void;
/** The stores of this file: all of them also read without counting (the plugin's `{ increment: false }`). */
export interface CountingStore extends FastifyRateLimitStore {
  read(key: string, callback: Callback): void;
  /**
   * Takes one count back from a live window (never below 0): an attempt counted when it began as a
   * presumed failure turned out not to be one (issue #28, sign-in limits count failures only).
   */
  refund(key: string): Promise<void>;
  child(): CountingStore;
}

/** Fixed windows in memory, as the plugin's own local store; entries past their window are dropped as the map grows. */
class MemoryStore implements CountingStore {
  private readonly windows = new Map<string, { count: number; expiresAt: number }>();

  incr(key: string, callback: Callback, timeWindow: number): void {
    const now = Date.now();
    let window = this.windows.get(key);
    if (!window || window.expiresAt <= now) {
      if (this.windows.size >= 10_000) this.prune(now);
      window = { count: 0, expiresAt: now + timeWindow };
      this.windows.set(key, window);
    }
    window.count += 1;
    callback(null, { current: window.count, ttl: window.expiresAt - now });
  }

  read(key: string, callback: Callback): void {
    const now = Date.now();
    const window = this.windows.get(key);
    callback(null, window && window.expiresAt > now ? { current: window.count, ttl: window.expiresAt - now } : { current: 0, ttl: 0 });
  }

  refund(key: string): Promise<void> {
    const window = this.windows.get(key);
    if (window && window.expiresAt > Date.now() && window.count > 0) window.count -= 1;
    return Promise.resolve();
  }

  child(): CountingStore {
    return new MemoryStore();
  }

  private prune(now: number): void {
    for (const [key, window] of this.windows) if (window.expiresAt <= now) this.windows.delete(key);
  }
}

/**
 * @fastify/rate-limit's custom store interface backed by the `rate_limit_counters` table: one
 * upsert per counted request, so every process on the database shares each window. Fixed windows
 * like the plugin's own stores; `continueExceeding` and `exponentialBackoff` are not used here.
 */
function databaseStore(db: DB): new () => CountingStore {
  class DatabaseRateLimitStore implements CountingStore {
    // The plugin constructs the store with its options; the table needs none of them.
    constructor(_options?: FastifyRateLimitOptions) {}

    incr(key: string, callback: Callback, timeWindow: number): void {
      const now = Date.now();
      hitCounter(db, key, now, timeWindow).then(
        (state) => callback(null, { current: state.count, ttl: state.expiresAt - now }),
        (err: unknown) => callback(err instanceof Error ? err : new Error(String(err))),
      );
    }

    /** The plugin's non-counting peek (`{ increment: false }`). */
    read(key: string, callback: Callback): void {
      const now = Date.now();
      readCounter(db, key, now).then(
        (state) => callback(null, state ? { current: state.count, ttl: state.expiresAt - now } : { current: 0, ttl: 0 }),
        (err: unknown) => callback(err instanceof Error ? err : new Error(String(err))),
      );
    }

    refund(key: string): Promise<void> {
      return refundCounter(db, key, Date.now());
    }

    /** Every limiter shares the table (their keys carry their own prefixes: ip:, share-ip:, proxy-ip:, ...). */
    child(): CountingStore {
      return new DatabaseRateLimitStore();
    }
  }
  return DatabaseRateLimitStore;
}

/** Where each counter lives in Redis: the limiters' own keys (ip:, share-ip:, user:, ...) under one prefix. */
export const REDIS_NAMESPACE = 'dam-rate-limit-';

/** One fixed window per key, atomically: the first hit sets the expiry, later ones read what is left of it. */
const HIT_SCRIPT = `
local current = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if current == 1 or ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {current, ttl}`;

const REFUND_SCRIPT = `
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if current > 0 then redis.call('DECR', KEYS[1]) end
return current`;

const READ_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if not current then return {0, 0} end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then ttl = 0 end
return {tonumber(current), ttl}`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    damRateLimitHit(key: string, windowMs: number): Result<[number, number], Context>;
    damRateLimitRead(key: string): Result<[number, number], Context>;
    damRateLimitRefund(key: string): Result<number, Context>;
  }
}

/** Bounds on every wait for Redis: a request never waits longer than this for its count. */
const REDIS_TIMEOUT_MS = 500;
/** While Redis fails, one request per this interval tries it again; the others go straight to the fallback. */
const REDIS_PROBE_MS = 2_000;

/**
 * The connection and its health. While Redis is unreachable or failing, limits are counted where they
 * would be without DAM_REDIS_URL (PostgreSQL: the shared table; SQLite: this process's memory): a
 * request is never refused by a Redis outage nor held more than REDIS_TIMEOUT_MS, and the limits keep holding. One
 * warning when Redis fails, one line when it is back (not one per request).
 */
class RedisLink {
  private failingSince: number | undefined;
  private nextProbe = 0;
  private closing = false;

  constructor(
    readonly redis: Redis,
    private readonly log: FastifyBaseLogger,
    /** The URL without its password, for the log. */
    private readonly where: string,
  ) {
    // Without a listener ioredis prints every connection error itself; reconnecting goes on in the background.
    redis.on('error', (err: Error) => this.failed(err));
    redis.on('close', () => this.failed(new Error('connection closed')));
    redis.on('ready', () => this.recovered());
  }

  /** Whether this request should count in Redis. */
  usable(): boolean {
    if (this.redis.status !== 'ready') return false;
    if (this.failingSince === undefined) return true;
    const now = Date.now();
    if (now < this.nextProbe) return false;
    this.nextProbe = now + REDIS_PROBE_MS;
    return true;
  }

  failed(err: Error): void {
    if (this.closing || this.failingSince !== undefined) return;
    this.failingSince = Date.now();
    this.nextProbe = this.failingSince + REDIS_PROBE_MS;
    this.log.warn(
      `Redis rate-limit store at ${this.where} fails (${err.message}): rate limits are counted without Redis ` +
        '(PostgreSQL: in the database, shared by every process; SQLite: in this process) until it answers again',
    );
  }

  recovered(): void {
    if (this.failingSince === undefined) return;
    const seconds = Math.round((Date.now() - this.failingSince) / 1000);
    this.failingSince = undefined;
    this.log.info(`Redis rate-limit store at ${this.where} answers again after ${seconds} s: rate limits are counted in Redis`);
  }

  close(): void {
    this.closing = true;
    this.redis.disconnect();
  }
}

const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));

/**
 * Counts in Redis (one script call per counted request, so every process shares each window), or in
 * `fallback` while Redis fails. Not the plugin's own Redis store: that one either fails the request
 * (a 500) or, with `skipOnError`, stops limiting altogether while Redis is down, and names the keys of
 * `createRateLimit` limiters after an undefined route. Every limiter counts in Redis, the per-user
 * limit too (a round trip to Redis costs no database write).
 */
class RedisRateLimitStore implements CountingStore {
  constructor(
    private readonly link: RedisLink,
    private readonly fallback: CountingStore,
  ) {}

  incr(key: string, callback: Callback, timeWindow: number, max: number): void {
    if (!this.link.usable()) return this.fallback.incr(key, callback, timeWindow, max);
    this.link.redis.damRateLimitHit(REDIS_NAMESPACE + key, timeWindow).then(
      ([current, ttl]) => {
        this.link.recovered();
        callback(null, { current, ttl });
      },
      (err: unknown) => {
        this.link.failed(asError(err));
        this.fallback.incr(key, callback, timeWindow, max);
      },
    );
  }

  read(key: string, callback: Callback): void {
    if (!this.link.usable()) return this.fallback.read(key, callback);
    this.link.redis.damRateLimitRead(REDIS_NAMESPACE + key).then(
      ([current, ttl]) => callback(null, { current, ttl }),
      (err: unknown) => {
        this.link.failed(asError(err));
        this.fallback.read(key, callback);
      },
    );
  }

  refund(key: string): Promise<void> {
    if (!this.link.usable()) return this.fallback.refund(key);
    return this.link.redis.damRateLimitRefund(REDIS_NAMESPACE + key).then(
      () => undefined,
      (err: unknown) => {
        this.link.failed(asError(err));
        return this.fallback.refund(key);
      },
    );
  }

  child(): CountingStore {
    return new RedisRateLimitStore(this.link, this.fallback.child());
  }
}

/** `redis://host:port/db` without user name or password. */
function redactedUrl(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname}`;
}

export interface RateLimitBackend {
  kind: 'memory' | 'database' | 'redis';
  /** Merged into the plugin's registration options. */
  options: { store?: FastifyRateLimitStoreCtor };
  /**
   * Where the per-user limit counts (http/rate-limits.ts, checked on every authenticated request): this
   * process's memory, which costs no database write per request (it bounds one client's pace, not a
   * secret's guessing), or Redis when DAM_REDIS_URL is set (memory while Redis fails).
   */
  userStore: CountingStore;
  /**
   * Where the sign-in limits count (http/rate-limits.ts: failures, refunded when an attempt succeeds): shared by
   * every process on PostgreSQL or Redis, like the plugin's limiters, since they bound the guessing of secrets.
   */
  signInStore: CountingStore;
  /** The Redis connection (kind 'redis'). */
  redis?: Redis;
  close(): Promise<void>;
}

/**
 * Where rate-limit windows are counted (issue #18): Redis when DAM_REDIS_URL is set (through ioredis),
 * else the database on PostgreSQL (shared by every process), else this process's memory (SQLite: one
 * process). With Redis, the first connection is awaited here (at most REDIS_TIMEOUT_MS): a Redis that
 * is unreachable at start is a warning, not a refusal to start; the process counts without Redis and
 * moves to it as soon as it answers (ioredis keeps reconnecting).
 */
export async function rateLimitBackend(config: AppConfig, database: DatabaseHandle, log: FastifyBaseLogger): Promise<RateLimitBackend> {
  const nothing = () => Promise.resolve();
  const withoutRedis = database.dialect === 'postgres' ? databaseStore(database.db) : MemoryStore;
  if (!config.redisUrl) {
    return database.dialect === 'postgres'
      ? { kind: 'database', options: { store: withoutRedis }, userStore: new MemoryStore(), signInStore: new withoutRedis(), close: nothing }
      : { kind: 'memory', options: {}, userStore: new MemoryStore(), signInStore: new MemoryStore(), close: nothing };
  }
  const redis = new Redis(config.redisUrl, {
    lazyConnect: true,
    connectTimeout: REDIS_TIMEOUT_MS,
    commandTimeout: REDIS_TIMEOUT_MS,
    // Fail at once rather than queue requests behind a lost connection: they are counted in the fallback meanwhile.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
  });
  redis.defineCommand('damRateLimitHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
  redis.defineCommand('damRateLimitRead', { numberOfKeys: 1, lua: READ_SCRIPT });
  redis.defineCommand('damRateLimitRefund', { numberOfKeys: 1, lua: REFUND_SCRIPT });
  const link = new RedisLink(redis, log, redactedUrl(config.redisUrl));
  // The warning, if any, was logged by the link.
  await redis.connect().catch(() => undefined);
  const fallback = new withoutRedis();
  class SharedRedisStore extends RedisRateLimitStore {
    // The plugin constructs the store with its options; the link and fallback are this process's.
    constructor(_options?: FastifyRateLimitOptions) {
      super(link, fallback);
    }
  }
  return {
    kind: 'redis',
    options: { store: SharedRedisStore },
    userStore: new RedisRateLimitStore(link, new MemoryStore()),
    signInStore: new SharedRedisStore(),
    redis,
    close: () => {
      link.close();
      return Promise.resolve();
    },
  };
}
