import type { Selectable } from 'kysely';
import type { DB } from '../db/database.js';
import type { SweepRefusalsTable } from '../db/schema.js';

/** SQL of sweep refusals (migration 0032, issue #37): what a housekeeping sweep refused to delete, per workspace. */

export type SweepRefusalRow = Selectable<SweepRefusalsTable>;

export interface RefusalFacts {
  sweep: string;
  workspace_id: number;
  would_delete: number;
  workspace_total: number;
  summary: string;
  examples: string[];
}

export function findRefusal(db: DB, sweep: string, workspaceId: number): Promise<SweepRefusalRow | undefined> {
  return db.selectFrom('sweep_refusals').selectAll().where('sweep', '=', sweep).where('workspace_id', '=', workspaceId).executeTakeFirst();
}

/**
 * Records a refusal anew (a first one, or one that replaces a confirmation the sweep outgrew or a settled one):
 * unconfirmed, refused now. Answers whether this call made it (of two processes racing, one logs it).
 */
export async function recordRefusal(db: DB, facts: RefusalFacts, now: number, replacing: SweepRefusalRow | undefined): Promise<boolean> {
  const values = { ...facts, examples: JSON.stringify(facts.examples), refused_at: now, seen_at: now, confirmed_at: null, confirmed_by: null, settled_at: null };
  if (!replacing) {
    const inserted = await db
      .insertInto('sweep_refusals')
      .values(values)
      .onConflict((oc) => oc.columns(['sweep', 'workspace_id']).doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
  }
  // Only the row as it was read: a confirmation given meanwhile is not overwritten.
  const updated = await db
    .updateTable('sweep_refusals')
    .set(values)
    .where('sweep', '=', facts.sweep)
    .where('workspace_id', '=', facts.workspace_id)
    .where('refused_at', '=', replacing.refused_at)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

/** A refusal still waiting: what the latest run found. */
export async function refreshRefusal(db: DB, facts: RefusalFacts, now: number): Promise<void> {
  await db
    .updateTable('sweep_refusals')
    .set({ would_delete: facts.would_delete, workspace_total: facts.workspace_total, summary: facts.summary, examples: JSON.stringify(facts.examples), seen_at: now })
    .where('sweep', '=', facts.sweep)
    .where('workspace_id', '=', facts.workspace_id)
    .where('confirmed_at', 'is', null)
    .execute();
}

/** Confirms a refusal waiting for it; undefined when there is none (none recorded, or already settled). */
export async function confirmRefusal(db: DB, sweep: string, workspaceId: number, userId: number, now: number): Promise<SweepRefusalRow | undefined> {
  await db
    .updateTable('sweep_refusals')
    .set({ confirmed_at: now, confirmed_by: userId })
    .where('sweep', '=', sweep)
    .where('workspace_id', '=', workspaceId)
    .where('confirmed_at', 'is', null)
    .execute();
  const row = await findRefusal(db, sweep, workspaceId);
  return row && row.settled_at === null ? row : undefined;
}

export async function settleRefusal(db: DB, sweep: string, workspaceId: number, now: number): Promise<void> {
  await db
    .updateTable('sweep_refusals')
    .set({ settled_at: now })
    .where('sweep', '=', sweep)
    .where('workspace_id', '=', workspaceId)
    .where('confirmed_at', 'is not', null)
    .where('settled_at', 'is', null)
    .execute();
}

export async function removeRefusal(db: DB, sweep: string, workspaceId: number): Promise<void> {
  await db.deleteFrom('sweep_refusals').where('sweep', '=', sweep).where('workspace_id', '=', workspaceId).execute();
}

/** Refusals of the sweep that are open (waiting or confirmed, not settled). */
export function openRefusals(db: DB, sweep: string): Promise<SweepRefusalRow[]> {
  return db.selectFrom('sweep_refusals').selectAll().where('sweep', '=', sweep).where('settled_at', 'is', null).execute();
}

/** Settled rows older than `before` go. */
export async function forgetSettled(db: DB, before: number): Promise<void> {
  await db.deleteFrom('sweep_refusals').where('settled_at', '<', before).execute();
}

/** Whether a confirmation of any of the sweeps for the workspace was given since `since` (settled or not). */
export async function confirmedSince(db: DB, sweeps: readonly string[], workspaceId: number, since: number): Promise<boolean> {
  const row = await db
    .selectFrom('sweep_refusals')
    .select('sweep')
    .where('sweep', 'in', sweeps)
    .where('workspace_id', '=', workspaceId)
    .where('confirmed_at', '>=', since)
    .executeTakeFirst();
  return row !== undefined;
}

/** Every refusal, newest first (GET /admin/sweeps). */
export function listRefusals(db: DB): Promise<SweepRefusalRow[]> {
  return db.selectFrom('sweep_refusals').selectAll().orderBy('refused_at', 'desc').orderBy('sweep').orderBy('workspace_id').execute();
}

/** Refusals waiting for a confirmation, by sweep (GET /metrics). */
export async function countWaiting(db: DB): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('sweep_refusals')
    .select(['sweep', (eb) => eb.fn.countAll<number | string>().as('n')])
    .where('confirmed_at', 'is', null)
    .groupBy('sweep')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.sweep, Number(r.n)]));
}
