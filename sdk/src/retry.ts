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
  for (let n = 1; ; n++) {
    signal?.throwIfAborted();
    try {
      return await attempt();
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      const retryable = err instanceof RetryableError || err instanceof TypeError;
      if (!retryable || n >= policy.attempts) throw err;
      await sleep(backoffDelay(policy, n), signal);
    }
  }
}
