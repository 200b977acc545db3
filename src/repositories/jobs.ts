import type { DB } from '../db/database.js';
import type { JobRow, JobStatus } from '../db/schema.js';
import type { LockCandidates } from '../db/job-locks.js';

/** SQL for the jobs table (the durable queue of src/jobs/). Times are Unix seconds. */

export async function insertJob(
  db: DB,
  job: { kind: string; payload: string; maxAttempts: number; runAt: number; now: number },
): Promise<number> {
  const row = await db
    .insertInto('jobs')
    .values({
      kind: job.kind,
      payload: job.payload,
      status: 'queued',
      attempts: 0,
      max_attempts: job.maxAttempts,
      run_at: job.runAt,
      created_at: job.now,
      updated_at: job.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/**
 * Claims up to `limit` jobs for `worker`: running ones whose lease ran out (their worker died) first, then
 * queued ones that are due, each in (run_at, id) order; `lock` adds the dialect's row locking. Two statements,
 * not one with an OR of the two conditions: no index serves the OR, so with a large backlog every poll read
 * and sorted every queued job (docs/architecture/capacity.md). Each half is an ordered read of its own index
 * (jobs_status_locked_until_idx; the partial jobs_queued_idx of migration 0023) that stops after `limit`.
 */
export async function claimJobs(
  db: DB,
  lock: LockCandidates,
  c: { worker: string; limit: number; now: number; leaseUntil: number },
): Promise<JobRow[]> {
  const expired = await claimWhere(db, c, lock(
    db.selectFrom('jobs').select('id').where('status', '=', 'running').where('locked_until', '<', c.now).orderBy('run_at').orderBy('id').limit(c.limit),
  ));
  const room = c.limit - expired.length;
  const queued = room <= 0 ? [] : await claimWhere(db, c, lock(
    db.selectFrom('jobs').select('id').where('status', '=', 'queued').where('run_at', '<=', c.now).orderBy('run_at').orderBy('id').limit(room),
  ));
  return [...expired, ...queued].sort((a, b) => a.run_at - b.run_at || a.id - b.id);
}

/** Marks the candidate jobs running for the worker, with a fresh lease. */
async function claimWhere(
  db: DB,
  c: { worker: string; now: number; leaseUntil: number },
  candidates: ReturnType<LockCandidates>,
): Promise<JobRow[]> {
  return db
    .updateTable('jobs')
    .set((eb) => ({
      status: 'running',
      attempts: eb('attempts', '+', 1),
      locked_by: c.worker,
      locked_until: c.leaseUntil,
      updated_at: c.now,
    }))
    .where('id', 'in', candidates)
    .returningAll()
    .execute();
}

/** Extends the lease of a job this worker still holds. */
export async function extendLease(db: DB, id: number, worker: string, leaseUntil: number, now: number): Promise<void> {
  await db.updateTable('jobs').set({ locked_until: leaseUntil, updated_at: now }).where('id', '=', id).where('locked_by', '=', worker).execute();
}

/**
 * Records the outcome of a run, only if this worker still holds the job: a job whose lease
 * ran out may have been claimed by another worker, whose outcome then counts.
 */
export async function finishJob(
  db: DB,
  id: number,
  worker: string,
  outcome: { status: Exclude<JobStatus, 'running'>; runAt?: number; error: string | null; now: number; refundAttempt?: boolean },
): Promise<boolean> {
  const done = outcome.status === 'succeeded' || outcome.status === 'failed';
  const result = await db
    .updateTable('jobs')
    .set({
      status: outcome.status,
      last_error: outcome.error,
      locked_by: null,
      locked_until: null,
      updated_at: outcome.now,
      finished_at: done ? outcome.now : null,
      ...(outcome.runAt !== undefined && { run_at: outcome.runAt }),
      // A run a fault failed (issue #37) does not use up one of the job's attempts.
      ...(outcome.refundAttempt && { attempts: (eb) => eb('attempts', '-', 1) }),
    })
    .where('id', '=', id)
    .where('locked_by', '=', worker)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function listJobs(
  db: DB,
  status: JobStatus | undefined,
  window: { limit: number; offset: number },
): Promise<{ items: JobRow[]; total: number }> {
  let base = db.selectFrom('jobs');
  if (status) base = base.where('status', '=', status);
  const [items, count] = await Promise.all([
    base.selectAll().orderBy('id', 'desc').limit(window.limit).offset(window.offset).execute(),
    base.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items, total: Number(count.n) };
}

export async function countJobsByStatus(db: DB): Promise<Partial<Record<JobStatus, number>>> {
  const rows = await db
    .selectFrom('jobs')
    .select(['status', (eb) => eb.fn.countAll<number | string>().as('n')])
    .groupBy('status')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

/** Forgets succeeded jobs finished before `before` (failed ones stay for admins to see). */
export async function pruneSucceededJobs(db: DB, before: number): Promise<void> {
  await db.deleteFrom('jobs').where('status', '=', 'succeeded').where('finished_at', '<', before).execute();
}

export interface JobQueueStat {
  kind: string;
  status: 'queued' | 'running';
  count: number;
  /** created_at of the oldest job of this kind and status. */
  oldest: number;
}

/** Queued and running jobs by kind: one grouped query (GET /metrics runs it on every scrape; jobs_status_run_at_idx serves the filter). */
export async function jobQueueStats(db: DB): Promise<JobQueueStat[]> {
  const rows = await db
    .selectFrom('jobs')
    .select((eb) => ['kind', 'status', eb.fn.countAll<number | string>().as('count'), eb.fn.min('created_at').as('oldest')])
    .where('status', 'in', ['queued', 'running'])
    .groupBy(['kind', 'status'])
    .execute();
  return rows.map((r) => ({ kind: r.kind, status: r.status as 'queued' | 'running', count: Number(r.count), oldest: Number(r.oldest) }));
}
