import type { AppContext } from '../../context.js';
import * as deletions from '../../repositories/object-deletions.js';
import { openRefusals } from '../../repositories/sweep-refusals.js';
import * as uploads from '../../repositories/uploads.js';
import type { ObjectStore } from '../../storage/object-store.js';
import * as quota from '../quota-service.js';
import type { VersionLifecycle } from '../version-lifecycle.js';
import { EXAMPLES, type SweepGuard, type SweepPlan } from './sweep-guard.js';

/** The workspace a storage key belongs to ({workspaceId}/...); undefined for a key of no workspace. */
const workspaceOfKey = (key: string): number | undefined => {
  const match = /^(\d+)\//.exec(key);
  return match ? Number(match[1]) : undefined;
};

/** Workspaces whose refusal of `sweep` still waits for an admin: left out of a run's batch, asked about once per run. */
async function waitingWorkspaces(ctx: AppContext, sweep: 'stale-uploads' | 'object-deletions'): Promise<number[]> {
  return (await openRefusals(ctx.db, sweep)).filter((r) => r.confirmed_at === null).map((r) => r.workspace_id);
}

/**
 * The housekeeping sweeps of the object store's side (issue #37: bounded per run, refused past DAM_SWEEP_MAX_PERCENT
 * of a workspace unless confirmed; see SweepGuard): stale uploads, and the files of deleted rows.
 */
export class StorageSweeps {
  constructor(
    private readonly ctx: AppContext,
    private readonly store: ObjectStore,
    private readonly versions: VersionLifecycle,
    private readonly guard: SweepGuard,
  ) {}

  /**
   * Aborts uploads untouched for DAM_UPLOAD_TTL or started more than DAM_UPLOAD_MAX_LIFETIME ago, and forgets
   * completed ones untouched for DAM_UPLOAD_TTL; at most DAM_SWEEP_BATCH sessions a run. Safe to run in several processes.
   */
  async sweepStaleUploads(): Promise<number> {
    const now = this.ctx.now();
    const before = now - this.ctx.config.uploadTtl;
    const startedBefore = now - this.ctx.config.uploadMaxLifetime;
    const plan = async (ws: number): Promise<SweepPlan> => {
      const stale = await uploads.staleOpenUploads(this.ctx.db, ws, before, startedBefore, EXAMPLES);
      const total = await uploads.countAssetsAndOpenUploads(this.ctx.db, ws);
      return {
        sweep: 'stale-uploads',
        workspaceId: ws,
        count: stale.count,
        total,
        summary: `would abort ${stale.count} uploads of the workspace's ${total} assets and uploads in progress (stale for DAM_UPLOAD_TTL or DAM_UPLOAD_MAX_LIFETIME)`,
        examples: stale.first.map((u) => `upload ${u.id} ${u.file_name}`),
      };
    };
    const refused = new Set<number>();
    for (const ws of await waitingWorkspaces(this.ctx, 'stale-uploads')) if (!(await this.guard.allows(await plan(ws)))) refused.add(ws);
    const stale = await uploads.listStaleUploadSessions(this.ctx.db, before, startedBefore, this.guard.batch, [...refused]);
    const decided = new Map<number, boolean>();
    let swept = 0;
    for (const session of stale) {
      if (session.completed_at === null) {
        // An upload in progress holds the user's parts: aborting it deletes them.
        if (!decided.has(session.workspace_id)) decided.set(session.workspace_id, await this.guard.allows(await plan(session.workspace_id)));
        if (!decided.get(session.workspace_id)) continue;
        await this.store.abortMultipartUpload(session.storage_key, session.id).catch(() => undefined);
        await quota.settleUpload(this.ctx.db, session.id);
        await this.versions.discard(this.ctx.db, session.asset_id, session.version_id);
      }
      await uploads.deleteUploadSession(this.ctx.db, session.id);
      swept += 1;
    }
    await this.guard.settle('stale-uploads', async (ws) => (await uploads.staleOpenUploads(this.ctx.db, ws, before, startedBefore, 0)).count > 0);
    return swept;
  }

  /**
   * Deletes the objects of rows deleted by any path (asset, folder or workspace deletion, aborted uploads), at most
   * DAM_SWEEP_BATCH a run. Idempotent; a failing key is retried on the next run. The rows are gone already, so the
   * files are their last copy (a database restored from a backup finds them): a workspace losing more than
   * DAM_SWEEP_MAX_PERCENT of its objects at once waits for an admin, unless an admin confirmed the purge that deleted them.
   */
  async drainObjectDeletions(): Promise<number> {
    const plan = async (ws: number): Promise<SweepPlan> => {
      const queued = await deletions.queuedOfWorkspace(this.ctx.db, ws, EXAMPLES);
      const total = queued.count + (await deletions.countReferencedObjects(this.ctx.db, ws));
      return {
        sweep: 'object-deletions',
        workspaceId: ws,
        count: queued.count,
        total,
        summary: `would delete ${queued.count} of the workspace's ${total} stored files (their rows are deleted)`,
        examples: queued.first,
      };
    };
    const refused = new Set<number>();
    for (const ws of await waitingWorkspaces(this.ctx, 'object-deletions')) if (!(await this.guard.allows(await plan(ws)))) refused.add(ws);
    const queued = await deletions.nextObjectDeletions(this.ctx.db, this.guard.batch, [...refused]);
    const decided = new Map<number, boolean>();
    let deleted = 0;
    for (const item of queued) {
      const ws = workspaceOfKey(item.storage_key);
      if (ws !== undefined) {
        if (!decided.has(ws)) decided.set(ws, await this.guard.allows(await plan(ws)));
        if (!decided.get(ws)) continue;
      }
      try {
        await this.store.delete(item.storage_key);
        await deletions.forgetObjectDeletion(this.ctx.db, item.id);
        deleted += 1;
      } catch {
        await deletions.countFailedObjectDeletion(this.ctx.db, item.id);
      }
    }
    await this.guard.settle('object-deletions', async (ws) => (await deletions.queuedOfWorkspace(this.ctx.db, ws, 0)).count > 0);
    return deleted;
  }
}
