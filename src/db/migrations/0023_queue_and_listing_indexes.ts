import { sql, type Kysely } from 'kysely';
import type { DialectSupport } from '../dialects/types.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/**
 * Two plans found slow at 1M rows (docs/architecture/capacity.md, issue #18), each served by a partial index:
 * - jobs_queued_idx: the due queued jobs in claim order. The claim used to be one statement with
 *   `(queued AND due) OR (running AND lease expired)`, which no index serves: with a backlog of a million
 *   queued jobs every poll was a sequential scan plus a sort of the whole backlog (about 1 s). The claim now
 *   reads the two kinds separately (src/repositories/jobs.ts) and this index gives the queued ones in
 *   (run_at, id) order, stopping after the first `limit`. Only queued rows are in it, not the week of
 *   finished jobs that are kept.
 * - assets_listed_idx: the assets a listing shows (ready, not in the trash) per workspace in id order, so the
 *   count of GET /dam/assets is an index-only scan instead of a scan of the whole assets table, and the page in
 *   the default order (by id) stops after one page of index entries.
 * Building them locks writes to jobs and assets for the few seconds of the build on a large instance.
 */
export async function up(db: AnyDB, _d: DialectSupport): Promise<void> {
  await db.schema.createIndex('jobs_queued_idx').on('jobs').columns(['run_at', 'id']).where(sql.ref('status'), '=', 'queued').execute();
  await db.schema
    .createIndex('assets_listed_idx')
    .on('assets')
    .columns(['workspace_id', 'id'])
    .where(sql.ref('status'), '=', 'ready')
    .where(sql.ref('deleted_at'), 'is', null)
    .execute();
}
