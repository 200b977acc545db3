import type { AppContext } from '../../context.js';
import { SWEEP_NAMES, type SweepName, type SweepRefusalView } from '../../contracts/sweeps.js';
import { appError } from '../../errors.js';
import * as refusals from '../../repositories/sweep-refusals.js';
import type { Caller } from '../auth-service.js';

/**
 * No mass deletion by accident (issue #37). Every housekeeping sweep that deletes asks the guard before it deletes
 * anything of a workspace, with what it would delete there in all (not one batch). Under DAM_SWEEP_MIN_COUNT items,
 * or up to DAM_SWEEP_MAX_PERCENT of the workspace's items of that kind, it acts (a batch per run). Past that it is
 * refused: recorded in sweep_refusals, logged once with counts and examples, counted for GET /metrics, and done only
 * once an instance admin confirms it (POST /admin/sweeps/{sweep}/confirm), in batches, for no more than was
 * confirmed. A refusal that resolves itself (the trash restored, the store back) is forgotten.
 *
 * Immich once soft-deleted 68,811 assets in seconds because a mount was empty: a sweep cannot tell an empty store or a
 * wrong database from a real mass deletion, so it never decides a large one alone.
 */

export interface SweepPlan {
  sweep: SweepName;
  workspaceId: number;
  /** Items the sweep would delete in the workspace now, all of them (not one batch). */
  count: number;
  /** The workspace's items of that kind, those to delete included: the share is count / total. */
  total: number;
  /** In words, for the log and the admin: "would delete 40 of the workspace's 50 assets (trash older than 30 days)". */
  summary: string;
  /** Up to EXAMPLES of the items. */
  examples: string[];
}

interface SweepLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/** Items a refusal names. */
export const EXAMPLES = 10;
const DAY = 86_400;
/** A confirmed purge of the trash or of stale uploads also confirms removing the files of the rows it deleted. */
const COVERS_FILE_DELETIONS: readonly SweepName[] = ['trash', 'stale-uploads'];

function toView(row: refusals.SweepRefusalRow): SweepRefusalView {
  let examples: string[] = [];
  try {
    examples = JSON.parse(row.examples) as string[];
  } catch {
    // A row written by hand: no examples.
  }
  const state = row.settled_at !== null ? 'settled' : row.confirmed_at !== null ? 'confirmed' : 'refused';
  return { ...row, sweep: row.sweep as SweepName, state, examples };
}

export class SweepGuard {
  /** The app's logger, set by buildApp. */
  log: SweepLog | undefined;
  /** Runs of each sweep this process refused (a workspace each), for dam_sweep_refusals_total. */
  private readonly refused = new Map<SweepName, number>();

  constructor(private readonly ctx: AppContext) {}

  /** The most items a sweep deletes per run (DAM_SWEEP_BATCH). */
  get batch(): number {
    return this.ctx.config.sweeps.batch;
  }

  /** Whether the plan is more than a sweep does unconfirmed: DAM_SWEEP_MIN_COUNT items or more, past DAM_SWEEP_MAX_PERCENT. */
  exceeds(plan: SweepPlan): boolean {
    const { maxPercent, minCount } = this.ctx.config.sweeps;
    return plan.count >= minCount && plan.count * 100 > maxPercent * plan.total;
  }

  /** Whether the sweep may delete (a batch of) what `plan` says in its workspace now; a refusal is recorded, logged and counted. */
  async allows(plan: SweepPlan): Promise<boolean> {
    const db = this.ctx.db;
    const now = this.ctx.now();
    const row = await refusals.findRefusal(db, plan.sweep, plan.workspaceId);
    if (!this.exceeds(plan)) {
      if (row && row.settled_at === null) await this.close(row, now);
      return true;
    }
    if (row && row.confirmed_at !== null && row.settled_at === null && plan.count <= row.would_delete) return true;
    if (plan.sweep === 'object-deletions' && (await refusals.confirmedSince(db, COVERS_FILE_DELETIONS, plan.workspaceId, now - DAY))) return true;

    const facts = {
      sweep: plan.sweep,
      workspace_id: plan.workspaceId,
      would_delete: plan.count,
      workspace_total: plan.total,
      summary: plan.summary,
      examples: plan.examples.slice(0, EXAMPLES),
    };
    if (row && row.confirmed_at === null) {
      await refusals.refreshRefusal(db, facts, now);
    } else if (await refusals.recordRefusal(db, facts, now, row)) {
      // Once per refusal, not once per run; a confirmation the sweep outgrew (more to delete than was confirmed) is a new one.
      this.log?.warn(
        { sweep: plan.sweep, workspaceId: plan.workspaceId, wouldDelete: plan.count, total: plan.total, examples: facts.examples },
        `sweep refused: ${plan.sweep} ${plan.summary}, more than DAM_SWEEP_MAX_PERCENT=${this.ctx.config.sweeps.maxPercent}% of workspace ${plan.workspaceId}; ` +
          `nothing deleted. If this is meant, an instance admin confirms it (POST /admin/sweeps/${plan.sweep}/confirm with {"workspaceId":${plan.workspaceId}}); ` +
          'if not, find what went missing (npm run admin -- verify)',
      );
    }
    this.refused.set(plan.sweep, (this.refused.get(plan.sweep) ?? 0) + 1);
    return false;
  }

  /**
   * After a run: refusals of the sweep whose workspace has nothing left to delete are closed (a waiting one forgotten,
   * a confirmed one settled); settled ones go a day later.
   */
  async settle(sweep: SweepName, hasWork: (workspaceId: number) => Promise<boolean>): Promise<void> {
    const now = this.ctx.now();
    for (const row of await refusals.openRefusals(this.ctx.db, sweep)) {
      if (!(await hasWork(row.workspace_id))) await this.close(row, now);
    }
    await refusals.forgetSettled(this.ctx.db, now - DAY);
  }

  private async close(row: refusals.SweepRefusalRow, now: number): Promise<void> {
    if (row.confirmed_at !== null) {
      await refusals.settleRefusal(this.ctx.db, row.sweep, row.workspace_id, now);
      this.log?.info({ sweep: row.sweep, workspaceId: row.workspace_id }, `sweep ${row.sweep} of workspace ${row.workspace_id}: the confirmed deletion is done`);
      return;
    }
    await refusals.removeRefusal(this.ctx.db, row.sweep, row.workspace_id);
    this.log?.info({ sweep: row.sweep, workspaceId: row.workspace_id }, `sweep ${row.sweep} of workspace ${row.workspace_id}: no longer refused (nothing large left to delete)`);
  }

  /** Refused runs by sweep in this process (GET /metrics), every sweep named. */
  refusedRuns(): Record<SweepName, number> {
    return Object.fromEntries(SWEEP_NAMES.map((n) => [n, this.refused.get(n) ?? 0])) as Record<SweepName, number>;
  }

  /** Refusals waiting for a confirmation, by sweep (GET /metrics; from the database: every process's). */
  async waiting(): Promise<Record<SweepName, number>> {
    const counts = await refusals.countWaiting(this.ctx.db);
    return Object.fromEntries(SWEEP_NAMES.map((n) => [n, counts[n] ?? 0])) as Record<SweepName, number>;
  }

  async list(caller: Caller): Promise<SweepRefusalView[]> {
    this.requireInstanceAdmin(caller);
    return (await refusals.listRefusals(this.ctx.db)).map(toView);
  }

  /** An instance admin lets a refused sweep act on the workspace, for as much as it last said it would delete. */
  async confirm(caller: Caller, sweep: SweepName, workspaceId: number): Promise<SweepRefusalView> {
    this.requireInstanceAdmin(caller);
    const row = await refusals.confirmRefusal(this.ctx.db, sweep, workspaceId, caller.id, this.ctx.now());
    if (!row) throw appError('NOT_FOUND', `No refusal of sweep ${sweep} for workspace ${workspaceId} is waiting (GET /admin/sweeps lists them)`);
    this.log?.warn(
      { sweep, workspaceId, wouldDelete: row.would_delete, confirmedBy: caller.id },
      `sweep ${sweep} of workspace ${workspaceId} confirmed by user ${caller.id}: ${row.summary}`,
    );
    return toView(row);
  }

  private requireInstanceAdmin(caller: Caller): void {
    if (!caller.isInstanceAdmin) throw appError('ADMIN_ONLY');
  }
}
