/** Bounded exponential backoff of the part uploads and the completion (seconds double, with jitter, up to a cap). */
export interface RetryPolicy {
  /** Attempts in all, the first included (default 5). */
  attempts: number;
  /** Delay before the first retry, in ms (default 500); it doubles each time, up to `maxDelayMs` (default 8000). */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 5, baseDelayMs: 500, maxDelayMs: 8000 };

/** A failure worth another attempt: the network, a timeout, a throttle or a server error (not a refusal, not an abort). */
export class RetryableError extends Error {
  override name = 'RetryableError';
  constructor(
    message: string,
    /** The server's Retry-After (a 429 or 503), in ms: the retry waits at least that long. */
    readonly retryAfterMs?: number,
    /** The failure itself (a DamApiError with the server's code): thrown instead once the attempts are used up. */
    options?: { cause?: Error },
  ) {
    super(message, options);
  }
}

/** Waits the server asked for, at most this long each; a longer one fails the attempt as usual. */
const MAX_RETRY_AFTER_MS = 120_000;
/** Throttled answers (with Retry-After) do not use up attempts, up to this many in a row. */
const MAX_THROTTLED = 30;

/** A response's Retry-After (seconds or an HTTP date) in ms, when it has one. */
export function retryAfterOf(response: Response): number | undefined {
  const value = response.headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - Date.now();
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

/** The error for a failed answer: retryable (keeping its Retry-After) when the status is worth another attempt. */
export function failureOf(response: Response, err: Error, alsoRetry: (status: number) => boolean = () => false): Error {
  return isRetryableStatus(response.status) || alsoRetry(response.status) ? new RetryableError(err.message, retryAfterOf(response), { cause: err }) : err;
}

export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** The delay before retry `n` (1-based): base * 2^(n-1), capped, with up to 25% jitter so that parallel parts spread out. */
export function backoffDelay(policy: RetryPolicy, n: number): number {
  const delay = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (n - 1));
  return Math.round(delay * (0.75 + Math.random() * 0.25));
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Runs `attempt` until it succeeds, fails with an error that is not retryable (a network TypeError from fetch and
 * RetryableError are), or has used up the policy's attempts. An abort stops it at once.
 */
export async function withRetries<T>(policy: RetryPolicy, signal: AbortSignal | undefined, attempt: () => Promise<T>): Promise<T> {
  let throttled = 0;
  for (let n = 1; ; n++) {
    signal?.throwIfAborted();
    try {
      return await attempt();
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      const retryable = err instanceof RetryableError || err instanceof TypeError;
      // A rate limit that says when to come back (a bulk import reaching the per-user limit) is waited out, not
      // counted as a failed attempt: the server is fine, the client is early.
      const wait = err instanceof RetryableError ? err.retryAfterMs : undefined;
      if (retryable && wait !== undefined && wait <= MAX_RETRY_AFTER_MS && throttled < MAX_THROTTLED) {
        throttled += 1;
        n -= 1;
        await sleep(Math.max(wait, backoffDelay(policy, 1)), signal);
        continue;
      }
      // Given up: the failure as the server named it (its code: INSUFFICIENT_STORAGE, STORAGE_UNAVAILABLE...), if known.
      if (!retryable || n >= policy.attempts) throw err instanceof RetryableError && err.cause instanceof Error ? err.cause : err;
      await sleep(backoffDelay(policy, n), signal);
    }
  }
}

/** The longest Retry-After of a 503 that `retryUnavailable` waits out; a longer one is answered as it came. */
const MAX_UNAVAILABLE_WAIT_MS = 30_000;
/** Requests that change nothing, so sending them again is safe whatever became of the first. */
const SAFE_METHODS = new Set(['GET', 'HEAD']);

/**
 * `fetchFn`, sending a GET or HEAD again when it is answered 503 with a Retry-After of at most 30 s: the server says
 * the database or the object store is unavailable for a moment (DATABASE_UNAVAILABLE, STORAGE_UNAVAILABLE: a restart,
 * a failover, a store that stalls), and when to come back. At most `attempts` in all (the first included); other
 * methods, other statuses and a 503 without Retry-After are answered as they came. An abort stops the wait.
 */
export function retryUnavailable(fetchFn: (input: Request) => Promise<Response>, attempts: number): (input: Request) => Promise<Response> {
  if (attempts <= 1) return fetchFn;
  return async (request) => {
    if (!SAFE_METHODS.has(request.method)) return fetchFn(request);
    for (let n = 1; ; n++) {
      const response = await fetchFn(n < attempts ? request.clone() : request);
      if (n >= attempts || response.status !== 503) return response;
      const wait = retryAfterOf(response);
      if (wait === undefined || wait > MAX_UNAVAILABLE_WAIT_MS) return response;
      await response.body?.cancel();
      await sleep(wait, request.signal);
    }
  };
}
