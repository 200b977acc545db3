import type { DB } from '../db/database.js';
import { faultOf } from '../faults/classify.js';

const RETRY_MS = 5_000;
/** After this many rounds (an hour) what is left goes to the sweeps: the usage reconciliation recounts reservations. */
const ROUNDS = 720;

interface Pending {
  writes: (() => Promise<unknown>)[];
  rounds: number;
  timer: NodeJS.Timeout;
  /** A round is under way: the next tick waits, so that no write is done twice. */
  busy: boolean;
}

/** Per database: the clean-up writes a fault refused, oldest first. */
const pending = new WeakMap<DB, Pending>();

/**
 * Runs `write`, the clean-up after a request or job that failed: giving back the storage it reserved, removing the
 * rows of an upload whose file could not be stored. A fault may refuse the clean-up too (issue #37: the database's
 * own disk full, the database restarting); then it is done again every RETRY_MS, in order with the others refused,
 * until it succeeds, and the request answers its own failure rather than the clean-up's. Other errors are thrown.
 */
export async function cleanUp(db: DB, write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (err) {
    if (!faultOf(err)) throw err;
    let p = pending.get(db);
    if (!p) {
      const timer = setInterval(() => void retry(db), RETRY_MS);
      timer.unref();
      pending.set(db, (p = { writes: [], rounds: 0, timer, busy: false }));
    }
    p.writes.push(write);
  }
}

async function retry(db: DB): Promise<void> {
  const p = pending.get(db);
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
    pending.delete(db);
  } finally {
    p.busy = false;
  }
}
