import type { Insertable, Selectable } from 'kysely';
import type { DB } from '../db/database.js';
import type { ConversionStatus, ConversionsTable } from '../db/schema.js';
import { visibleAssetsSql, type AssetSight } from '../domain/asset-visibility.js';

/** SQL for conversions (migration 0017, issue #15). Status changes name the statuses they may leave, so a late writer changes nothing. */

export type ConversionRecord = Selectable<ConversionsTable>;
export type NewConversion = Omit<Insertable<ConversionsTable>, 'id' | 'status' | 'progress' | 'error' | 'result_asset_id' | 'result_version_id' | 'updated_at' | 'started_at' | 'finished_at'>;

const ACTIVE: ConversionStatus[] = ['queued', 'running'];

/**
 * Inserts a queued conversion unless one with the same dedup key holds the key (queued, running
 * or succeeded): the unique index decides, so two identical requests at once make one conversion.
 * Undefined when the key was taken.
 */
export async function insertConversion(db: DB, values: NewConversion): Promise<ConversionRecord | undefined> {
  return db
    .insertInto('conversions')
    .values({ ...values, status: 'queued', progress: 0, updated_at: values.created_at })
    .onConflict((oc) => oc.column('dedup_key').doNothing())
    .returningAll()
    .executeTakeFirst();
}

export function findConversion(db: DB, id: number): Promise<ConversionRecord | undefined> {
  return db.selectFrom('conversions').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findByDedupKey(db: DB, key: string): Promise<ConversionRecord | undefined> {
  return db.selectFrom('conversions').selectAll().where('dedup_key', '=', key).executeTakeFirst();
}

/** Frees a key whose conversion no longer answers for it (its result is gone). */
export async function releaseDedupKey(db: DB, id: number): Promise<void> {
  await db.updateTable('conversions').set({ dedup_key: null }).where('id', '=', id).execute();
}

/**
 * A workspace's conversions, newest first, optionally of one source asset or in one status; `before` is an id cursor.
 * Only those whose source and result (when there is one) `sight` sees (domain/asset-visibility.ts).
 */
export async function listConversions(
  db: DB,
  q: { workspaceId: number; assetId?: number; status?: ConversionStatus; before?: number; limit: number; sight: AssetSight },
): Promise<ConversionRecord[]> {
  let query = db.selectFrom('conversions').selectAll().where('workspace_id', '=', q.workspaceId);
  const visible = visibleAssetsSql(q.sight, 'a');
  if (visible) {
    query = query.where((eb) => {
      const seen = eb.selectFrom('assets as a').select('a.id').where('a.workspace_id', '=', q.workspaceId).where(visible);
      return eb.and([eb('asset_id', 'in', seen), eb.or([eb('result_asset_id', 'is', null), eb('result_asset_id', 'in', seen)])]);
    });
  }
  if (q.assetId !== undefined) query = query.where('asset_id', '=', q.assetId);
  if (q.status !== undefined) query = query.where('status', '=', q.status);
  if (q.before !== undefined) query = query.where('id', '<', q.before);
  return query.orderBy('id', 'desc').limit(q.limit).execute();
}

/** queued -> running (also running -> running: a job whose lease ran out is run again). False when it was canceled or finished. */
export async function markRunning(db: DB, id: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('conversions')
    .set((eb) => ({ status: 'running', progress: 0, updated_at: now, started_at: eb.fn.coalesce('started_at', eb.val(now)) }))
    .where('id', '=', id)
    .where('status', 'in', ACTIVE)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The progress of a running conversion; answers its status (null when the row is gone), which is how a runner learns of a cancel. */
export async function reportProgress(db: DB, id: number, progress: number, now: number): Promise<ConversionStatus | null> {
  await db.updateTable('conversions').set({ progress, updated_at: now }).where('id', '=', id).where('status', '=', 'running').where('progress', '<', progress).execute();
  const row = await db.selectFrom('conversions').select('status').where('id', '=', id).executeTakeFirst();
  return row?.status ?? null;
}

/** Records the result's asset and version before its file is stored (the claim that makes a result exist once); false when the conversion is no longer running. */
export async function claimResult(db: DB, id: number, result: { assetId: number; versionId: number }, now: number): Promise<boolean> {
  const updated = await db
    .updateTable('conversions')
    .set({ result_asset_id: result.assetId, result_version_id: result.versionId, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'running')
    .where('result_version_id', 'is', null)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

export async function markSucceeded(db: DB, id: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('conversions')
    .set({ status: 'succeeded', progress: 100, error: null, updated_at: now, finished_at: now })
    .where('id', '=', id)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** A failed attempt that will be retried: queued again, with that attempt's error. */
export async function markRetrying(db: DB, id: number, error: string, now: number): Promise<void> {
  await db.updateTable('conversions').set({ status: 'queued', error, updated_at: now }).where('id', '=', id).where('status', '=', 'running').execute();
}

/** Failed for good: the key is freed, so the same request may be made again. */
export async function markFailed(db: DB, id: number, error: string, now: number): Promise<void> {
  await db
    .updateTable('conversions')
    .set({ status: 'failed', error, dedup_key: null, updated_at: now, finished_at: now })
    .where('id', '=', id)
    .where('status', 'in', ACTIVE)
    .execute();
}

/** queued or running -> canceled, the key freed; false when it was neither. */
export async function markCanceled(db: DB, id: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('conversions')
    .set({ status: 'canceled', dedup_key: null, updated_at: now, finished_at: now })
    .where('id', '=', id)
    .where('status', 'in', ACTIVE)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Forgets a claimed result that was discarded (the conversion failed or was canceled before its file was stored). */
export async function forgetResult(db: DB, id: number): Promise<void> {
  await db.updateTable('conversions').set({ result_asset_id: null, result_version_id: null }).where('id', '=', id).where('status', '!=', 'succeeded').execute();
}
