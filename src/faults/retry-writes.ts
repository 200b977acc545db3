import { faultOf } from './classify.js';

const RETRY_MS = 5_000;
/** After this many rounds (an hour) what is left goes to the sweeps (the usage reconciliation recounts reservations, a job's lease runs out). */
const ROUNDS = 720;

interface Pending {
  writes: (() => Promise<unknown>)[];
  rounds: number;
  timer: NodeJS.Timeout;
  /** A round is under way: the next tick waits, so that no write is done twice. */
  busy: boolean;
}

/** Per owner (a database, a job queue): the writes a fault refused, oldest first. */
const pending = new WeakMap<object, Pending>();

/**
 * Runs `write`, a write that records how something failed: the clean-up after a request (giving back the storage it
 * reserved, removing the rows of an upload whose file could not be stored), a job's postponement. A fault may refuse
 * it too (issue #37: the database's own disk full, the database restarting); then it is done again every RETRY_MS, in
 * order with the others `owner` has waiting, until it succeeds, and the caller answers its own failure rather than
 * this one. Answers whether it was done now. Other errors are thrown.
 */
export async function writeOrRetry(owner: object, write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (err) {
    if (!faultOf(err)) throw err;
    let p = pending.get(owner);
    if (!p) {
      const timer = setInterval(() => void retry(owner), RETRY_MS);
      timer.unref();
      pending.set(owner, (p = { writes: [], rounds: 0, timer, busy: false }));
    }
    p.writes.push(write);
    return false;
  }
}

async function retry(owner: object): Promise<void> {
  const p = pending.get(owner);
  if (!p || p.busy) return;
  p.busy = true;
  p.rounds += 1;
  try {
    while (p.writes.length > 0) {
      try {
        await p.writes[0]!();
      } catch (err) {
        // Still refused: the next round tries again, from the same write. (Another failure would never pass: dropped.)
        if (faultOf(err) && p.rounds < ROUNDS) return;
      }
      p.writes.shift();
    }
    clearInterval(p.timer);
    pending.delete(owner);
  } finally {
    p.busy = false;
  }
}
