import type { FastifyRateLimitOptions, FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import { Redis } from 'ioredis';
import type { AppConfig } from '../config.js';
import type { DatabaseHandle, DB } from '../db/database.js';
import { hitCounter, readCounter } from '../repositories/rate-limit-counters.js';

type Callback = (error: Error | null, result?: { current: number; ttl: number }) => void;

/**
 * Spread into `createRateLimit` options: that limit counts in this process's memory even when the
 * others are shared (the per-user limit, checked on every authenticated request, would otherwise
 * cost a database write per request; it bounds one client's pace, not a secret's guessing).
 */
export const PER_PROCESS: object = Object.freeze({ perProcess: true });

/** Fixed windows in memory, as the plugin's own local store; entries past their window are dropped as the map grows. */
class MemoryStore implements FastifyRateLimitStore {
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

  child(): FastifyRateLimitStore {
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
function databaseStore(db: DB): FastifyRateLimitStoreCtor {
  class DatabaseRateLimitStore implements FastifyRateLimitStore {
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

    /** Every limiter shares the table (their keys carry their own prefixes: ip:, share-ip:, proxy-ip:, ...) but PER_PROCESS ones. */
    child(options: object): FastifyRateLimitStore {
      return 'perProcess' in options ? new MemoryStore() : new DatabaseRateLimitStore();
    }
  }
  return DatabaseRateLimitStore;
}

export interface RateLimitBackend {
  kind: 'memory' | 'database' | 'redis';
  /** Merged into the plugin's registration options. */
  options: { store?: FastifyRateLimitStoreCtor; redis?: Redis; nameSpace?: string };
  close(): Promise<void>;
}

/**
 * Where rate-limit windows are counted (issue #18): Redis when DAM_REDIS_URL is set (the plugin's
 * own Redis store through ioredis), else the database on PostgreSQL (shared by every process),
 * else this process's memory (SQLite: one process).
 */
export function rateLimitBackend(config: AppConfig, database: DatabaseHandle): RateLimitBackend {
  if (config.redisUrl) {
    // Settings the plugin recommends for rate limiting: fail fast rather than queue requests behind a lost connection.
    const redis = new Redis(config.redisUrl, { connectTimeout: 500, maxRetriesPerRequest: 1, lazyConnect: true });
    return {
      kind: 'redis',
      options: { redis, nameSpace: 'dam-rate-limit-' },
      close: () => {
        redis.disconnect();
        return Promise.resolve();
      },
    };
  }
  const nothing = () => Promise.resolve();
  if (database.dialect === 'postgres') return { kind: 'database', options: { store: databaseStore(database.db) }, close: nothing };
  return { kind: 'memory', options: {}, close: nothing };
}
