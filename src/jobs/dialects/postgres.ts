import type { LockCandidates } from '../../db/job-locks.js';

/**
 * Several processes may share one PostgreSQL: each claim locks the rows it picks and skips
 * rows another worker has locked, so two claims never wait on or return the same job.
 */
export const lockCandidates: LockCandidates = (candidates) => candidates.forUpdate().skipLocked();
