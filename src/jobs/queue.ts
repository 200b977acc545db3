import { performance } from 'node:perf_hooks';
import type { JobsConfig } from '../config.js';
import type { DB } from '../db/database.js';
import type { JobRow } from '../db/schema.js';
import * as jobs from '../repositories/jobs.js';
import { retryDelay } from './backoff.js';
import type { LockCandidates } from '../db/job-locks.js';
import type { JobKind } from './types.js';

export type JobOutcome = 'succeeded' | 'retrying' | 'failed' | 'lost';

/**
 * The durable queue: jobs are rows in the application database, so they commit with the
 * change that needs them (a version and its thumbnail job in one transaction), survive
 * restarts, and are shared by every process on one PostgreSQL. Claims take a lease; a job
 * whose worker died is claimed again when its lease runs out.
 */
export class JobQueue {
  private readonly listeners = new Set<() => void>();
  private lastUploadAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly db: DB,
    private readonly lock: LockCandidates,
    private readonly config: JobsConfig,
    private readonly now: () => number,
  ) {}

  /** Queues a job in `db` (pass the transaction the job belongs to). Call `notify()` after commit. */
  async enqueue<P>(db: DB, kind: JobKind<P>, payload: P, delaySeconds = 0): Promise<number> {
    const now = this.now();
    return jobs.insertJob(db, {
      kind: kind.name,
      payload: JSON.stringify(payload),
      maxAttempts: this.config.maxAttempts,
      runAt: now + delaySeconds,
      now,
    });
  }

  /** Wakes this process's worker (after a commit that queued jobs); other processes find them by polling. */
  notify(): void {
    for (const listener of this.listeners) listener();
  }

  /**
   * notify() after a file stored through this process's API (an upload answered): the worker then runs fewer jobs
   * while uploads keep coming (JobWorker), so that a bulk import's requests get the cores.
   */
  uploaded(): void {
    this.lastUploadAt = performance.now();
    this.notify();
  }

  /** Whether this process answered an upload within the last `ms` milliseconds. */
  uploadedWithin(ms: number): boolean {
    return performance.now() - this.lastUploadAt < ms;
  }

  onNotify(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  claim(worker: string, limit: number): Promise<JobRow[]> {
    const now = this.now();
    return jobs.claimJobs(this.db, this.lock, { worker, limit, now, leaseUntil: now + this.config.leaseSeconds });
  }

  heartbeat(job: JobRow, worker: string): Promise<void> {
    const now = this.now();
    return jobs.extendLease(this.db, job.id, worker, now + this.config.leaseSeconds, now);
  }

  async succeed(job: JobRow, worker: string): Promise<JobOutcome> {
    const kept = await jobs.finishJob(this.db, job.id, worker, { status: 'succeeded', error: null, now: this.now() });
    return kept ? 'succeeded' : 'lost';
  }

  /** A failed run: queued again after a back-off, or failed for good after the last attempt or a permanent error. */
  async fail(job: JobRow, worker: string, error: string, permanent: boolean): Promise<JobOutcome> {
    const now = this.now();
    const last = permanent || job.attempts >= job.max_attempts;
    const outcome = last
      ? { status: 'failed' as const, error, now }
      : { status: 'queued' as const, error, now, runAt: now + retryDelay(job.attempts, this.config.retryBaseSeconds) };
    const kept = await jobs.finishJob(this.db, job.id, worker, outcome);
    if (!kept) return 'lost';
    return last ? 'failed' : 'retrying';
  }

  /**
   * A run a fault failed (issue #37: the disk full, the database or the object store unavailable): queued again after
   * `delaySeconds`, without using up an attempt, however long the outage lasts.
   */
  async postpone(job: JobRow, worker: string, error: string, delaySeconds: number): Promise<JobOutcome> {
    const now = this.now();
    const kept = await jobs.finishJob(this.db, job.id, worker, { status: 'queued', error, now, runAt: now + delaySeconds, refundAttempt: true });
    return kept ? 'retrying' : 'lost';
  }

  /** Queued and running jobs by kind, for GET /metrics. */
  stats(): Promise<jobs.JobQueueStat[]> {
    return jobs.jobQueueStats(this.db);
  }

  prune(olderThanSeconds: number): Promise<void> {
    return jobs.pruneSucceededJobs(this.db, this.now() - olderThanSeconds);
  }
}
