const MAX_DELAY_SECONDS = 3600;

/**
 * Seconds to wait before attempt `attempts + 1` after `attempts` failed runs: base, 2 x base,
 * 4 x base ... capped at an hour, so a broken dependency is not hammered and a transient one
 * is retried soon.
 */
export function retryDelay(attempts: number, baseSeconds: number): number {
  const exponent = Math.max(0, attempts - 1);
  return Math.min(MAX_DELAY_SECONDS, baseSeconds * 2 ** Math.min(exponent, 20));
}
