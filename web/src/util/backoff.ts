/** Waits between tries: the first, doubled each time up to the longest, until the next would pass the limit. */
export interface Backoff {
  firstMs: number;
  maxMs: number;
  /** No try starts later than this after the start. */
  limitMs: number;
}

/** 1, 2, 4, 8, 8, 8 ... s: a fresh thumbnail shows within seconds, and nothing polls past a minute. */
export const THUMBNAIL_BACKOFF: Backoff = { firstMs: 1000, maxMs: 8000, limitMs: 60_000 };

export function backoffDelays({ firstMs, maxMs, limitMs }: Backoff): number[] {
  const delays: number[] = [];
  let elapsed = 0;
  for (let delay = firstMs; elapsed + delay <= limitMs; delay = Math.min(delay * 2, maxMs)) {
    delays.push(delay);
    elapsed += delay;
  }
  return delays;
}

export type PollOutcome = 'done' | 'gave-up' | 'stopped';

/**
 * Calls `check` after each delay of the backoff until it answers true. A check that
 * throws counts as not done. `stop()` cancels the waits (a check in flight finishes).
 */
export function pollWithBackoff(check: () => Promise<boolean>, backoff: Backoff): { stop: () => void; outcome: Promise<PollOutcome> } {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let wake: (() => void) | undefined;
  const outcome = (async (): Promise<PollOutcome> => {
    for (const delay of backoffDelays(backoff)) {
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, delay);
      });
      if (stopped) return 'stopped';
      const done = await check().catch(() => false);
      if (stopped) return 'stopped';
      if (done) return 'done';
    }
    return 'gave-up';
  })();
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
      wake?.();
    },
    outcome,
  };
}
