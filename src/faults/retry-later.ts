import { faultOf } from './classify.js';

/** First retry after this long, doubling up to RETRY_MAX_MS: a restart is over in seconds, a failover in a minute. */
const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 30_000;
/** Given up after this long (an hour: when an unanswered Idempotency-Key counts as abandoned anyway). */
const GIVE_UP_AFTER_MS = 3600_000;
/** At most this many waiting at once in a process; more are dropped (and logged): memory stays bounded in a long outage. */
const MAX_PENDING = 10_000;

let pending = 0;

export interface RetryLog {
  warn(obj: object, msg: string): void;
}

/**
 * A write that must still happen after the request that needed it failed because of a fault (issue #37): freeing or
 * answering an Idempotency-Key, discarding an upload that was stored but could not be recorded. `write` has just
 * failed; when `err` is a fault it is tried again in the background (1 s, 2 s, 4 s ... 30 s apart, for up to an hour)
 * until it succeeds or fails for another reason, and answers true; any other error answers false (the caller decides).
 * In this process only: writes still waiting when it ends are lost, as they were before (each has its own sweep or expiry).
 */
export function retryAfterFault(err: unknown, what: string, write: () => Promise<unknown>, log?: RetryLog): boolean {
  if (!faultOf(err)) return false;
  if (pending >= MAX_PENDING) {
    log?.warn({ what }, 'too many writes waiting for the database or store to return: this one is dropped');
    return true;
  }
  pending += 1;
  const started = Date.now();
  let delay = RETRY_FIRST_MS;
  const attempt = (): void => {
    write().then(
      () => {
        pending -= 1;
      },
      (again: unknown) => {
        if (!faultOf(again) || Date.now() - started > GIVE_UP_AFTER_MS) {
          pending -= 1;
          log?.warn({ what, err: again }, 'a write that waited for the database or store to return failed for good');
          return;
        }
        delay = Math.min(RETRY_MAX_MS, delay * 2);
        setTimeout(attempt, delay).unref();
      },
    );
  };
  setTimeout(attempt, delay).unref();
  return true;
}

/**
 * Runs `write` now; should a fault refuse it too (issue #37: the clean-up of a failed upload when the database is on
 * the full disk), it is tried again in the background as retryAfterFault does, and the caller goes on to answer its
 * own failure. Other errors are thrown.
 */
export async function writeNowOrLater(what: string, write: () => Promise<unknown>, log?: RetryLog): Promise<void> {
  try {
    await write();
  } catch (err) {
    if (!retryAfterFault(err, what, write, log)) throw err;
  }
}
