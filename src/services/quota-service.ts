import type { AppContext } from '../context.js';
import type { DB } from '../db/database.js';
import { appError } from '../errors.js';
import { planInEffect, type PlanLimits } from '../payments/plans.js';
import { findBilling } from '../repositories/payments.js';
import * as usage from '../repositories/usage.js';
import { writeNowOrLater } from '../faults/retry-later.js';

/**
 * Plan limits and the past_due read-only state (issue #17, step 2): the one module every path that
 * adds files, assets or members asks before it does. Usage itself is kept by the triggers of
 * migration 0020; here it is only read, and storage is reserved so that concurrent uploads cannot
 * together pass the limit. With payments off nothing is limited (usage is still kept).
 */

const DAY = 86_400;

function enabled(ctx: AppContext): boolean {
  return ctx.config.payments.stripe !== null;
}

async function limitsOf(ctx: AppContext, db: DB, workspaceId: number): Promise<PlanLimits | null> {
  if (!enabled(ctx)) return null;
  return planInEffect(ctx.config.payments.plans, await findBilling(db, workspaceId)).limits;
}

function exceeded(limit: 'storage_bytes' | 'members' | 'assets', max: number, used: number, requested: number): never {
  const what = { storage_bytes: 'storage', members: 'members', assets: 'assets' }[limit];
  const unit = limit === 'storage_bytes' ? ' bytes' : '';
  throw appError(
    'QUOTA_EXCEEDED',
    `The workspace's plan allows ${max}${unit} of ${what}; ${used}${unit} are used and ${requested}${unit} more were asked for. Upgrade the plan in the workspace's billing settings, or free some ${what}.`,
    { limit, used, requested },
  );
}

/**
 * Reserves `bytes` of storage for the workspace, refused with 402 QUOTA_EXCEEDED when stored +
 * reserved + bytes would pass the plan's limit. Answers the bytes reserved (0 with payments off).
 */
export async function reserveStorage(ctx: AppContext, workspaceId: number, bytes: number): Promise<number> {
  const limits = await limitsOf(ctx, ctx.db, workspaceId);
  if (!limits) return 0;
  const limit = limits.storage_bytes ?? null;
  if (await usage.reserveStorage(ctx.db, workspaceId, bytes, limit)) return bytes;
  const now = await usage.findUsage(ctx.db, workspaceId);
  return exceeded('storage_bytes', limit ?? 0, now.storage_bytes + now.reserved_bytes, bytes);
}

/**
 * Gives back what reserveStorage reserved. A release a fault refuses (issue #37: the database's disk full, the database
 * restarting) is tried again until it succeeds (faults/retry-later.ts), rather than failing the request (whose own
 * failure, if any, is the one to answer) or leaving the charge reserved until the next reconciliation.
 */
export async function releaseStorage(ctx: AppContext, workspaceId: number, bytes: number): Promise<void> {
  if (bytes <= 0) return;
  await writeNowOrLater('releasing a storage reservation', () => usage.releaseStorage(ctx.db, workspaceId, bytes), ctx.faults.log);
}

/**
 * For files the server stores itself (server upload, version upload, imports, conversions, generated
 * images): `bytes` reserved before `store` runs and released after it, by which time the stored rows
 * count through their triggers.
 */
export async function withStorage<T>(ctx: AppContext, workspaceId: number, bytes: number, store: () => Promise<T>): Promise<T> {
  const reserved = await reserveStorage(ctx, workspaceId, bytes);
  try {
    return await store();
  } finally {
    // The database gone just now (issue #37) must not fail an upload already recorded: releaseStorage gives the
    // reservation back once it is back (and the usage sweep recounts it from the rows in any case).
    await releaseStorage(ctx, workspaceId, reserved);
  }
}

/**
 * Work that will store a file of a size not known yet (a conversion, a generated image): refused up
 * front when the workspace has no storage left at all (`bytes` is a lower bound of what it will
 * add); the real size is reserved through `withStorage` when the file is stored.
 */
export async function assertStorageRoom(ctx: AppContext, workspaceId: number, bytes = 1): Promise<void> {
  await releaseStorage(ctx, workspaceId, await reserveStorage(ctx, workspaceId, bytes));
}

/** start-upload: the declared size reserved for the upload session (released at completion, abort or sweep). */
export async function reserveUpload(ctx: AppContext, workspaceId: number, uploadId: string, declared: number): Promise<void> {
  const reserved = await reserveStorage(ctx, workspaceId, declared);
  if (reserved > 0) await usage.setSessionReservation(ctx.db, uploadId, reserved);
}

/**
 * complete-upload, with the real size known and before the file is recorded: a file larger than
 * declared reserves the difference too (refused with 402 when it does not fit). The session then
 * holds everything it needs, which `settleUpload` releases as the version's size starts to count.
 */
export async function recheckUpload(ctx: AppContext, workspaceId: number, uploadId: string, realSize: number, sessionReserved: number): Promise<void> {
  if (realSize <= sessionReserved) return;
  const extra = await reserveStorage(ctx, workspaceId, realSize - sessionReserved);
  if (extra > 0) await usage.setSessionReservation(ctx.db, uploadId, sessionReserved + extra);
}

/**
 * A part about to be stored (local store): the upload's parts would then hold `needed` bytes. Where that is more
 * than the session holds, the difference is reserved first (402 QUOTA_EXCEEDED when it does not fit), so the bytes
 * of an upload in progress always count against the plan, declared at start-upload or not.
 */
export async function growUpload(ctx: AppContext, workspaceId: number, uploadId: string, needed: number, held: number): Promise<void> {
  if (needed <= held) return;
  const extra = await reserveStorage(ctx, workspaceId, needed - held);
  if (extra > 0 && !(await usage.growSessionReservation(ctx.db, uploadId, extra))) await usage.releaseStorage(ctx.db, workspaceId, extra);
}

/** Releases whatever the upload session still holds (completion, abort, failure, sweep); a second call does nothing. */
export async function settleUpload(db: DB, uploadId: string): Promise<void> {
  // Taken from the session and given back to the workspace in one transaction: a write refused between the two (a
  // full disk, issue #37) would otherwise lose the reservation, the session no longer holding it.
  if (!db.isTransaction) return db.transaction().execute((trx) => settleUpload(trx, uploadId));
  const held = await usage.takeSessionReservation(db, uploadId);
  if (held) await usage.releaseStorage(db, held.workspaceId, held.bytes);
}

/** New assets: refused with 402 when `count` more would pass the plan's asset limit. */
export async function assertAssets(ctx: AppContext, workspaceId: number, count = 1): Promise<void> {
  const limits = await limitsOf(ctx, ctx.db, workspaceId);
  if (limits?.assets === undefined) return;
  const now = await usage.findUsage(ctx.db, workspaceId);
  if (now.assets + count > limits.assets) exceeded('assets', limits.assets, now.assets, count);
}

/**
 * A new member: refused with 402 when it would pass the plan's member limit. Call inside the
 * transaction that adds the member: on PostgreSQL the usage row stays locked until it commits.
 */
export async function assertMembers(ctx: AppContext, db: DB, workspaceId: number, count = 1): Promise<void> {
  const limits = await limitsOf(ctx, db, workspaceId);
  if (limits?.members === undefined) return;
  const now = (await usage.lockUsage(db, workspaceId, ctx.database.dialect === 'postgres')) ?? (await usage.findUsage(db, workspaceId));
  if (now.members + count > limits.members) exceeded('members', limits.members, now.members, count);
}

/**
 * When a past_due workspace turns read-only (Unix seconds): DAM_BILLING_GRACE_DAYS after it became
 * past_due. null: not past_due, or payments off.
 */
export async function readOnlyFrom(ctx: AppContext, db: DB, workspaceId: number): Promise<number | null> {
  if (!enabled(ctx)) return null;
  const since = await usage.pastDueSince(db, workspaceId);
  return since === null ? null : since + ctx.config.payments.graceDays * DAY;
}

/** Every write to a workspace asks this (through requireRole): 402 SUBSCRIPTION_PAST_DUE once the grace period is over. */
export async function assertWritable(ctx: AppContext, db: DB, workspaceId: number): Promise<void> {
  const from = await readOnlyFrom(ctx, db, workspaceId);
  if (from === null || ctx.now() < from) return;
  const day = new Date(from * 1000).toISOString().slice(0, 10);
  throw appError(
    'SUBSCRIPTION_PAST_DUE',
    `The workspace's subscription is past due and the workspace has been read-only since ${day}: reading and downloading work, changes do not. ` +
      "An admin can pay the open invoice in the billing portal (the workspace's billing settings) to make it writable again.",
    { read_only_since: from },
  );
}

/**
 * Recounts a bounded batch of workspaces (least recently reconciled first), corrects any counter that
 * drifted from the rows and logs each correction. Each workspace is recounted under a lock on its
 * usage row (PostgreSQL), so a change committing meanwhile is neither lost nor counted twice.
 */
export async function reconcile(ctx: AppContext, log: { warn(obj: object, msg: string): void }, batch = 50): Promise<number> {
  for (const id of await usage.workspacesWithoutUsage(ctx.db, batch)) await usage.insertUsage(ctx.db, id);
  const ids = await usage.workspacesToReconcile(ctx.db, batch);
  for (const workspaceId of ids) {
    await ctx.db.transaction().execute(async (trx) => {
      const held = await usage.lockUsage(trx, workspaceId, ctx.database.dialect === 'postgres');
      if (!held) return;
      const counted = await usage.countUsage(trx, workspaceId);
      for (const field of ['storage_bytes', 'reserved_bytes', 'members', 'assets'] as const) {
        if (held[field] !== counted[field]) {
          log.warn({ workspaceId, field, old: held[field], new: counted[field] }, 'workspace usage drifted; corrected by reconciliation');
        }
      }
      await usage.saveReconciled(trx, workspaceId, counted, ctx.now());
    });
  }
  return ids.length;
}
