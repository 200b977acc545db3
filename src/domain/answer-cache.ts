/** How many answers, how many bytes in all, and how old (seconds) an answer may be when served again. */
export interface AnswerCacheLimits {
  readonly entries: number;
  readonly bytes: number;
  readonly maxAgeSeconds: number;
}

export const DEFAULT_ANSWER_CACHE_LIMITS: AnswerCacheLimits = { entries: 1000, bytes: 32 * 1024 * 1024, maxAgeSeconds: 30 };

export interface AnswerCacheStats {
  readonly hits: number;
  readonly misses: number;
  readonly entries: number;
  readonly bytes: number;
}

interface Entry<T> {
  readonly token: string;
  readonly at: number;
  readonly value: T;
  readonly size: number;
}

/**
 * Serialized answers of repeated reads (GET /dam/assets, search), served again while the database has not
 * changed (issue #18: reading and serializing a page of 20 assets cost ten times what a request itself costs).
 *
 * `changeToken` is the database's own change counter (DialectSupport.changeToken: on SQLite, commits by other
 * connections and row changes of this one). It is read before the answer is computed, so an answer is never
 * filed under a token older than the data it was read from: any write after the read changes the token and
 * the entry is not served again. Databases without such a counter (PostgreSQL) compute every answer.
 * What an answer depends on beyond the database (the workspace, the query, the caller's workspaces) is in the
 * key the caller gives; who may see it is checked by the caller on every request, before asking here.
 * Answers are at most `maxAgeSeconds` old, so the signed links in them stay valid for nearly their whole TTL.
 * Least recently used answers go first when either bound is reached; an answer (with its key, which may hold a
 * request body) larger than an eighth of the byte bound is not kept.
 */
export class AnswerCache<T = string> {
  private readonly entries = new Map<string, Entry<T>>();
  private bytes = 0;
  private hits = 0;
  private misses = 0;

  constructor(
    private readonly changeToken: (() => string) | undefined,
    private readonly now: () => number,
    private readonly limits: AnswerCacheLimits = DEFAULT_ANSWER_CACHE_LIMITS,
    /** What one value counts toward `limits.bytes` besides its key's length: a string its length, anything else 1 unless told. */
    private readonly sizeOf: (value: T) => number = (value) => (typeof value === 'string' ? value.length : 1),
  ) {}

  /** Whether answers are kept at all (the database has a change token). */
  get active(): boolean {
    return this.changeToken !== undefined;
  }

  stats(): AnswerCacheStats {
    return { hits: this.hits, misses: this.misses, entries: this.entries.size, bytes: this.bytes };
  }

  /** `changes`: the request's change token (DialectSupport.requestChangeToken), when the caller has one. */
  async get(key: string, compute: () => Promise<T>, changes?: () => string): Promise<T> {
    if (!this.changeToken) {
      this.misses += 1;
      return compute();
    }
    const token = (changes ?? this.changeToken)();
    const at = this.now();
    const hit = this.entries.get(key);
    if (hit) {
      this.drop(key, hit);
      if (hit.token === token && at - hit.at <= this.limits.maxAgeSeconds) {
        this.keep(key, hit);
        this.hits += 1;
        return hit.value;
      }
    }
    this.misses += 1;
    const value = await compute();
    const earlier = this.entries.get(key);
    if (earlier) this.drop(key, earlier);
    // The key counts too: a search's key holds its body, which a client chooses (up to the body limit).
    const size = this.sizeOf(value) + key.length;
    if (size <= this.limits.bytes / 8) this.keep(key, { token, at, value, size });
    return value;
  }

  private keep(key: string, entry: Entry<T>): void {
    this.entries.set(key, entry);
    this.bytes += entry.size;
    for (const [oldest, old] of this.entries) {
      if (this.entries.size <= this.limits.entries && this.bytes <= this.limits.bytes) break;
      this.drop(oldest, old);
    }
  }

  private drop(key: string, entry: Entry<T>): void {
    this.entries.delete(key);
    this.bytes -= entry.size;
  }
}
