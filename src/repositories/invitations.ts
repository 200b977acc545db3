import type { DB } from '../db/database.js';
import type { InvitationRow, Role } from '../db/schema.js';

/** SQL of workspace invitations (migration 0024, issue #27). Every query of a workspace's invitations names the workspace. */

export async function insertInvitation(
  db: DB,
  i: { workspaceId: number; email: string; role: Role; tokenHash: string; invitedBy: number; invitedByName: string; now: number; expiresAt: number },
): Promise<InvitationRow> {
  return db
    .insertInto('invitations')
    .values({
      workspace_id: i.workspaceId,
      email: i.email,
      role: i.role,
      token_hash: i.tokenHash,
      invited_by: i.invitedBy,
      invited_by_name: i.invitedByName,
      created_at: i.now,
      expires_at: i.expiresAt,
      last_sent_at: i.now,
      accepted_at: null,
      accepted_by: null,
      revoked_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Newest first; `pendingAt`: only those neither accepted, revoked nor expired at that time. */
export function listInvitations(db: DB, workspaceId: number, pendingAt?: number): Promise<InvitationRow[]> {
  let q = db.selectFrom('invitations').selectAll().where('workspace_id', '=', workspaceId);
  if (pendingAt !== undefined) q = q.where('accepted_at', 'is', null).where('revoked_at', 'is', null).where('expires_at', '>', pendingAt);
  return q.orderBy('id', 'desc').limit(1000).execute();
}

export function findInvitation(db: DB, workspaceId: number, id: number): Promise<InvitationRow | undefined> {
  return db.selectFrom('invitations').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

export function findInvitationByToken(db: DB, tokenHash: string): Promise<InvitationRow | undefined> {
  return db.selectFrom('invitations').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

export async function findPendingInvitationTo(db: DB, workspaceId: number, email: string, now: number): Promise<InvitationRow | undefined> {
  return db
    .selectFrom('invitations')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('email', '=', email)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/** Every pending invitation of an e-mail, in any workspace (a first Google sign-in accepts them all). */
export function listPendingInvitationsOf(db: DB, email: string, now: number): Promise<InvitationRow[]> {
  return db
    .selectFrom('invitations')
    .selectAll()
    .where('email', '=', email)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('id')
    .limit(1000)
    .execute();
}

export async function countPendingInvitations(db: DB, workspaceId: number, now: number): Promise<number> {
  const row = await db
    .selectFrom('invitations')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A new token and expiry (resend): the old link stops working. */
export async function renewInvitation(db: DB, workspaceId: number, id: number, tokenHash: string, now: number, expiresAt: number): Promise<InvitationRow | undefined> {
  return db
    .updateTable('invitations')
    .set({ token_hash: tokenHash, last_sent_at: now, expires_at: expiresAt })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function revokeInvitation(db: DB, workspaceId: number, id: number, now: number): Promise<void> {
  await db.updateTable('invitations').set({ revoked_at: now }).where('workspace_id', '=', workspaceId).where('id', '=', id).where('revoked_at', 'is', null).execute();
}

/** Marks it accepted only while it is still pending; false when another request took it first (single use). */
export async function markInvitationAccepted(db: DB, id: number, userId: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('invitations')
    .set({ accepted_at: now, accepted_by: userId })
    .where('id', '=', id)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Invitations made by a user in the last `sinceSeconds` (the per-user hourly limit). */
export async function countInvitationsBy(db: DB, userId: number, since: number): Promise<number> {
  const row = await db
    .selectFrom('invitations')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('invited_by', '=', userId)
    .where('last_sent_at', '>=', since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
