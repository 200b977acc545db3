import { sql } from 'kysely';
import type { DB } from '../db/database.js';
import type { BillingRecord } from './payments.js';

/**
 * SQL for workspace_usage (migration 0020): the counters its triggers keep, the storage
 * reservations of uploads, and the recount that reconciliation compares them with.
 */

export interface Usage {
  storage_bytes: number;
  reserved_bytes: number;
  members: number;
  assets: number;
}

export type UsageField = 'storage_bytes' | 'members' | 'assets';

export async function findUsage(db: DB, workspaceId: number): Promise<Usage> {
  const row = await db
    .selectFrom('workspace_usage')
    .select(['storage_bytes', 'reserved_bytes', 'members', 'assets'])
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
  return row ? { storage_bytes: Number(row.storage_bytes), reserved_bytes: Number(row.reserved_bytes), members: Number(row.members), assets: Number(row.assets) } : { storage_bytes: 0, reserved_bytes: 0, members: 0, assets: 0 };
}

/**
 * Adds `bytes` to the workspace's reservation only while stored + reserved + bytes stays within
 * `limit` (null: no limit): one conditional UPDATE, so two uploads racing for the last free bytes
 * cannot both pass. Answers whether it was reserved.
 */
export async function reserveStorage(db: DB, workspaceId: number, bytes: number, limit: number | null): Promise<boolean> {
  let query = db
    .updateTable('workspace_usage')
    .set((eb) => ({ reserved_bytes: eb('reserved_bytes', '+', bytes) }))
    .where('workspace_id', '=', workspaceId);
  if (limit !== null) query = query.where(sql<number>`storage_bytes + reserved_bytes + ${bytes}`, '<=', limit);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function releaseStorage(db: DB, workspaceId: number, bytes: number): Promise<void> {
  if (bytes <= 0) return;
  await db
    .updateTable('workspace_usage')
    .set((eb) => ({ reserved_bytes: eb('reserved_bytes', '-', bytes) }))
    .where('workspace_id', '=', workspaceId)
    .execute();
}

export async function setSessionReservation(db: DB, uploadId: string, bytes: number): Promise<void> {
  await db.updateTable('upload_sessions').set({ reserved_bytes: bytes }).where('id', '=', uploadId).execute();
}

/**
 * Adds `bytes` to an open session's reservation (parts arriving beyond what it holds). Answers false when the
 * session is completed or gone meanwhile: the caller then gives the bytes back to the workspace.
 */
export async function growSessionReservation(db: DB, uploadId: string, bytes: number): Promise<boolean> {
  const result = await db
    .updateTable('upload_sessions')
    .set((eb) => ({ reserved_bytes: eb('reserved_bytes', '+', bytes) }))
    .where('id', '=', uploadId)
    .where('completed_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Takes the session's reservation away from it, to release or convert it: a compare-and-set on the
 * value read, so of two callers (a completion and a sweep) only one gets it; the other answers 0.
 */
export async function takeSessionReservation(db: DB, uploadId: string): Promise<{ workspaceId: number; bytes: number } | null> {
  const row = await db.selectFrom('upload_sessions').select(['workspace_id', 'reserved_bytes']).where('id', '=', uploadId).executeTakeFirst();
  const bytes = Number(row?.reserved_bytes ?? 0);
  if (!row || bytes <= 0) return null;
  const result = await db
    .updateTable('upload_sessions')
    .set({ reserved_bytes: 0 })
    .where('id', '=', uploadId)
    .where('reserved_bytes', '=', bytes)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0 ? { workspaceId: row.workspace_id, bytes } : null;
}

/** A PostgreSQL row lock on the workspace's usage row, so a recount is not overtaken by a concurrent change (SQLite: serialised anyway). */
export async function lockUsage(db: DB, workspaceId: number, forUpdate: boolean): Promise<Usage | undefined> {
  let query = db.selectFrom('workspace_usage').select(['storage_bytes', 'reserved_bytes', 'members', 'assets']).where('workspace_id', '=', workspaceId);
  if (forUpdate) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row && { storage_bytes: Number(row.storage_bytes), reserved_bytes: Number(row.reserved_bytes), members: Number(row.members), assets: Number(row.assets) };
}

/** Workspaces least recently reconciled first (never reconciled: 0), at most `limit`. */
export async function workspacesToReconcile(db: DB, limit: number): Promise<number[]> {
  const rows = await db.selectFrom('workspace_usage').select('workspace_id').orderBy('reconciled_at').orderBy('workspace_id').limit(limit).execute();
  return rows.map((r) => r.workspace_id);
}

/** Workspaces that have no usage row (created before the trigger, or a row lost): reconciliation adds them. */
export async function workspacesWithoutUsage(db: DB, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom('workspaces as w')
    .leftJoin('workspace_usage as u', 'u.workspace_id', 'w.id')
    .select('w.id')
    .where('u.workspace_id', 'is', null)
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

export async function insertUsage(db: DB, workspaceId: number): Promise<void> {
  await db.insertInto('workspace_usage').values({ workspace_id: workspaceId }).onConflict((oc) => oc.column('workspace_id').doNothing()).execute();
}

/** Sets the counted values and the reconciliation time (reserved_bytes is recounted from open upload sessions). */
export async function saveReconciled(db: DB, workspaceId: number, counted: Usage, now: number): Promise<void> {
  await db
    .updateTable('workspace_usage')
    .set({ ...counted, reconciled_at: now })
    .where('workspace_id', '=', workspaceId)
    .execute();
}

/** Usage by counting the rows: what reconciliation compares the counters with. */
export async function countUsage(db: DB, workspaceId: number): Promise<Usage> {
  const [versions, renditions, members, assets, reserved] = await Promise.all([
    db
      .selectFrom('asset_versions')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('file_size'), eb.lit(0)).as('n'))
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirst(),
    db
      .selectFrom('version_renditions as r')
      .innerJoin('asset_versions as v', 'v.id', 'r.version_id')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('r.file_size'), eb.lit(0)).as('n'))
      .where('v.workspace_id', '=', workspaceId)
      .executeTakeFirst(),
    db.selectFrom('workspace_members').select((eb) => eb.fn.countAll<number | string>().as('n')).where('workspace_id', '=', workspaceId).executeTakeFirst(),
    db.selectFrom('assets').select((eb) => eb.fn.countAll<number | string>().as('n')).where('workspace_id', '=', workspaceId).executeTakeFirst(),
    db
      .selectFrom('upload_sessions')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('reserved_bytes'), eb.lit(0)).as('n'))
      .where('workspace_id', '=', workspaceId)
      .where('completed_at', 'is', null)
      .executeTakeFirst(),
  ]);
  // PostgreSQL answers sums and counts as bigint strings.
  return {
    storage_bytes: Number(versions?.n ?? 0) + Number(renditions?.n ?? 0),
    reserved_bytes: Number(reserved?.n ?? 0),
    members: Number(members?.n ?? 0),
    assets: Number(assets?.n ?? 0),
  };
}

/** The billing row's past-due start, for the read-only check of every write. */
export async function pastDueSince(db: DB, workspaceId: number): Promise<number | null> {
  const row: Pick<BillingRecord, 'status' | 'past_due_since'> | undefined = await db
    .selectFrom('workspace_billing')
    .select(['status', 'past_due_since'])
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
  return row?.status === 'past_due' && row.past_due_since !== null ? Number(row.past_due_since) : null;
}
