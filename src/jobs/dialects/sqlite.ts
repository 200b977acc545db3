import type { LockCandidates } from '../../db/job-locks.js';

/**
 * SQLite is used by one process over one connection: the claim is a single UPDATE statement,
 * atomic by itself, and SQLite has no row locks (nor FOR UPDATE) to take.
 */
export const lockCandidates: LockCandidates = (candidates) => candidates;
