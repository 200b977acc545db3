import type { AppContext } from '../context.js';
import type { JobRow, JobStatus } from '../db/schema.js';
import { appError } from '../errors.js';
import * as jobs from '../repositories/jobs.js';
import type { PageView } from '../contracts/catalog.js';
import type { JobView } from '../contracts/versions.js';
import type { Caller } from './auth-service.js';
import { pageWindow, type PageRequest } from './catalog-access.js';

export type JobCounts = Record<JobStatus, number>;

function toJobView(row: JobRow): JobView {
  let payload: unknown;
  try {
    payload = JSON.parse(row.payload);
  } catch {
    payload = row.payload;
  }
  return { ...row, payload };
}

/** The job queue as instance admins see it (GET /admin/jobs). */
export class JobAdminService {
  constructor(private readonly ctx: AppContext) {}

  async list(caller: Caller, q: PageRequest & { status?: JobStatus }): Promise<PageView<JobView> & { counts: JobCounts }> {
    if (!caller.isInstanceAdmin) throw appError('FORBIDDEN', 'Only instance admins may see the job queue');
    const w = pageWindow(q);
    const [{ items, total }, counts] = await Promise.all([jobs.listJobs(this.ctx.db, q.status, w), jobs.countJobsByStatus(this.ctx.db)]);
    return {
      items: items.map(toJobView),
      page: w.page,
      per_page: w.per_page,
      total,
      counts: { queued: 0, running: 0, succeeded: 0, failed: 0, ...counts },
    };
  }
}
