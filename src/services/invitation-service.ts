import type { Transaction } from 'kysely';
import type { AppContext } from '../context.js';
import type { Database, InvitationRow, Role, UserRow } from '../db/schema.js';
import { appError, notFound } from '../errors.js';
import { addedToWorkspaceMail, invitationMail } from '../mail/messages.js';
import * as invitations from '../repositories/invitations.js';
import { findUserByEmail } from '../repositories/users.js';
import * as workspaces from '../repositories/workspaces.js';
import type { SessionOrigin } from '../repositories/sessions.js';
import { requireRole } from './access.js';
import { ActivityService } from './activity-service.js';
import type { AuthResult, AuthService, Caller } from './auth-service.js';
import { hashLinkToken, newLinkToken } from './link-tokens.js';
import type { Outbox } from './outbox.js';
import { hashPassword } from './passwords.js';
import * as quota from './quota-service.js';
import { readRegistrationPolicy } from './registration-policy.js';
import type { WorkspaceService } from './workspace-service.js';

export type InvitationStatus = 'pending' | 'accepted' | 'revoked' | 'expired';

/** An invitation as workspace admins see it (docs/features/teams.md); never its token. */
export interface InvitationView {
  id: number;
  workspace_id: number;
  email: string;
  role: Role;
  status: InvitationStatus;
  invited_by: { id: number; name: string } | null;
  created_at: number;
  expires_at: number;
  accepted_at: number | null;
  last_sent_at: number;
}

export interface InviteResult {
  added: boolean;
  member: workspaces.MemberRow | null;
  invitation: InvitationView | null;
  url: string | null;
  emailed: boolean;
}

/** What the holder of an invitation link may see before accepting. */
export interface InvitationPreview {
  email: string;
  role: Role;
  workspace: { id: number; name: string };
  invited_by: string | null;
  expires_at: number;
  account_exists: boolean;
}

/** Invitations a user may send per hour: enough for a team's onboarding, too few to probe for accounts. */
export const INVITATIONS_PER_HOUR = 100;

function statusOf(row: InvitationRow, now: number): InvitationStatus {
  if (row.accepted_at !== null) return 'accepted';
  if (row.revoked_at !== null) return 'revoked';
  return row.expires_at <= now ? 'expired' : 'pending';
}

function view(row: InvitationRow, now: number): InvitationView {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    email: row.email,
    role: row.role,
    status: statusOf(row, now),
    invited_by: row.invited_by === null ? null : { id: row.invited_by, name: row.invited_by_name },
    created_at: row.created_at,
    expires_at: row.expires_at,
    accepted_at: row.accepted_at,
    last_sent_at: row.last_sent_at,
  };
}

const invitationSubject = (row: { id: number; email: string }) => ({ kind: 'invitation' as const, id: row.id, name: row.email });
const invalidLink = () => appError('LINK_INVALID', 'This invitation link is invalid, already used, revoked or expired; ask for a new one');

/**
 * Workspace invitations (issue #27, docs/features/teams.md "Invitations"): a workspace admin invites an e-mail with a
 * role; an e-mail that has an account is added at once, any other gets a single-use, expiring link that
 * creates the account and joins. Tokens are kept hashed (services/link-tokens.ts).
 */
export class InvitationService {
  constructor(
    private readonly ctx: AppContext,
    private readonly auth: AuthService,
    private readonly members: WorkspaceService,
    private readonly outbox: Outbox,
  ) {}

  private linkOf(token: string): string {
    return `${this.ctx.config.publicUrl}/invite/${token}`;
  }

  async invite(caller: Caller, workspaceId: number, rawEmail: string, role: Role): Promise<InviteResult> {
    await requireRole(this.ctx.db, workspaceId, caller.id, 'admin');
    const email = rawEmail.toLowerCase();
    const now = this.ctx.now();
    if ((await invitations.countInvitationsBy(this.ctx.db, caller.id, now - 3600)) >= INVITATIONS_PER_HOUR) {
      throw appError('RATE_LIMITED', `At most ${INVITATIONS_PER_HOUR} invitations per hour; try again later`);
    }
    const workspace = await workspaces.findWorkspace(this.ctx.db, workspaceId);
    if (!workspace) throw notFound('Workspace');

    const existing = await findUserByEmail(this.ctx.db, email);
    if (existing) {
      const member = await this.members.addMember(caller, workspaceId, email, role);
      const emailed = await this.outbox.send(
        'added-to-workspace',
        addedToWorkspaceMail({ to: email, workspaceName: workspace.name, inviterName: caller.name || caller.email, role, libraryUrl: `${this.ctx.config.publicUrl}/library` }),
      );
      return { added: true, member, invitation: null, url: null, emailed };
    }

    const policy = await readRegistrationPolicy(this.ctx);
    if (policy.mode === 'closed' && !caller.isInstanceAdmin) {
      throw appError('REGISTRATION_CLOSED', `${email} has no account, and registration is closed: only an instance administrator can invite new people`, { field: 'email' });
    }
    const { token, hash } = newLinkToken();
    const row = await this.ctx.db.transaction().execute(async (trx) => {
      await this.ctx.database.support.lockRow(trx, 'workspaces', workspaceId);
      if (await invitations.findPendingInvitationTo(trx, workspaceId, email, now)) {
        throw appError('CONFLICT', `An invitation to ${email} is already pending in this workspace; resend it instead`, { field: 'email' });
      }
      // Pending invitations count as members against the plan: accepting them all must fit.
      await quota.assertMembers(this.ctx, trx, workspaceId, (await invitations.countPendingInvitations(trx, workspaceId, now)) + 1);
      const inserted = await invitations.insertInvitation(trx, {
        workspaceId,
        email,
        role,
        tokenHash: hash,
        invitedBy: caller.id,
        invitedByName: caller.name || caller.email,
        now,
        expiresAt: now + this.ctx.config.inviteTtl,
      });
      await ActivityService.record(trx, { workspaceId, actor: caller, action: 'member.invite', subject: invitationSubject(inserted), changes: { role: { before: null, after: role } }, at: now });
      return inserted;
    });
    const url = this.linkOf(token);
    const emailed = await this.sendInvitation(row, workspace.name, url);
    return { added: false, member: null, invitation: view(row, now), url, emailed };
  }

  private sendInvitation(row: InvitationRow, workspaceName: string, url: string): Promise<boolean> {
    return this.outbox.send('invitation', invitationMail({ to: row.email, workspaceName, inviterName: row.invited_by_name, role: row.role, url, expiresAt: row.expires_at }));
  }

  async list(caller: Caller, workspaceId: number, status: 'pending' | 'all'): Promise<InvitationView[]> {
    await requireRole(this.ctx.db, workspaceId, caller.id, 'admin');
    const now = this.ctx.now();
    const rows = await invitations.listInvitations(this.ctx.db, workspaceId, status === 'pending' ? now : undefined);
    return rows.map((r) => view(r, now));
  }

  /** A new link and expiry, mailed again; the old link stops working. Accepted and revoked invitations are final. */
  async resend(caller: Caller, workspaceId: number, id: number): Promise<{ invitation: InvitationView; url: string; emailed: boolean }> {
    await requireRole(this.ctx.db, workspaceId, caller.id, 'admin');
    const now = this.ctx.now();
    const found = await invitations.findInvitation(this.ctx.db, workspaceId, id);
    if (!found) throw notFound('Invitation');
    const status = statusOf(found, now);
    if (status === 'accepted' || status === 'revoked') throw appError('CONFLICT', `This invitation was ${status}; invite again instead`);
    const { token, hash } = newLinkToken();
    const renewed = await invitations.renewInvitation(this.ctx.db, workspaceId, id, hash, now, now + this.ctx.config.inviteTtl);
    if (!renewed) throw notFound('Invitation');
    const workspace = await workspaces.findWorkspace(this.ctx.db, workspaceId);
    const url = this.linkOf(token);
    const emailed = await this.sendInvitation(renewed, workspace?.name ?? '', url);
    return { invitation: view(renewed, now), url, emailed };
  }

  async revoke(caller: Caller, workspaceId: number, id: number): Promise<void> {
    await requireRole(this.ctx.db, workspaceId, caller.id, 'admin');
    const now = this.ctx.now();
    await this.ctx.db.transaction().execute(async (trx) => {
      const found = await invitations.findInvitation(trx, workspaceId, id);
      if (!found) throw notFound('Invitation');
      if (found.accepted_at !== null) throw appError('CONFLICT', 'This invitation was accepted already; remove the member instead');
      if (found.revoked_at !== null) return;
      await invitations.revokeInvitation(trx, workspaceId, id, now);
      await ActivityService.record(trx, { workspaceId, actor: caller, action: 'member.uninvite', subject: invitationSubject(found), changes: { role: { before: found.role, after: null } }, at: now });
    });
  }

  /** The pending invitation a token opens, or 410 LINK_INVALID (unknown, used, revoked and expired look the same). */
  private async pending(db: AppContext['db'], token: string): Promise<InvitationRow> {
    const row = await invitations.findInvitationByToken(db, hashLinkToken(token));
    if (!row || statusOf(row, this.ctx.now()) !== 'pending') throw invalidLink();
    return row;
  }

  async preview(token: string): Promise<InvitationPreview> {
    const row = await this.pending(this.ctx.db, token);
    const workspace = await workspaces.findWorkspace(this.ctx.db, row.workspace_id);
    if (!workspace) throw invalidLink();
    return {
      email: row.email,
      role: row.role,
      workspace: { id: workspace.id, name: workspace.name },
      invited_by: row.invited_by_name,
      expires_at: row.expires_at,
      account_exists: (await findUserByEmail(this.ctx.db, row.email)) !== undefined,
    };
  }

  /** Creates the invitee's account (with a personal workspace, as every account has), joins, signs in. */
  async accept(token: string, input: { name: string; password: string }, origin?: SessionOrigin): Promise<AuthResult> {
    const passwordHash = await hashPassword(input.password);
    const user = await this.ctx.db.transaction().execute(async (trx) => {
      await this.ctx.database.support.lockTableForWrite(trx, 'users');
      const row = await this.pending(trx, token);
      if (await findUserByEmail(trx, row.email)) {
        throw appError('EMAIL_TAKEN', `An account with ${row.email} exists already: sign in, then accept the invitation`);
      }
      const created = await this.auth.createUserWithWorkspace(trx, { email: row.email, name: input.name, passwordHash, isInstanceAdmin: false });
      await InvitationService.join(this.ctx, trx, row, created);
      return created;
    });
    return this.auth.startSession(user, origin);
  }

  /** The signed-in caller accepts an invitation to their own e-mail. */
  async joinAs(caller: Caller, token: string): Promise<workspaces.WorkspaceWithRole> {
    const row = await this.pending(this.ctx.db, token);
    if (row.email !== caller.email.toLowerCase()) {
      throw appError('INVITATION_EMAIL_MISMATCH', `This invitation is for ${row.email}; you are signed in as ${caller.email}`);
    }
    const user = { id: caller.id, email: caller.email, name: caller.name };
    await this.ctx.db.transaction().execute((trx) => InvitationService.join(this.ctx, trx, row, user));
    const joined = (await workspaces.listWorkspacesOfUser(this.ctx.db, caller.id)).find((w) => w.id === row.workspace_id);
    if (!joined) throw invalidLink();
    return joined;
  }

  /**
   * Uses the invitation up and makes the user a member with its role; a membership the user already has is
   * left as it is. Single use: a second acceptance racing this one finds it accepted and gets 410.
   */
  static async join(ctx: AppContext, trx: Transaction<Database>, row: InvitationRow, user: Pick<UserRow, 'id' | 'email' | 'name'>): Promise<void> {
    const now = ctx.now();
    if (!(await invitations.markInvitationAccepted(trx, row.id, user.id, now))) throw invalidLink();
    if (await workspaces.findRole(trx, row.workspace_id, user.id)) return;
    await quota.assertMembers(ctx, trx, row.workspace_id);
    await workspaces.insertMember(trx, row.workspace_id, user.id, row.role, now);
    await ActivityService.record(trx, {
      workspaceId: row.workspace_id,
      actor: user,
      action: 'member.join',
      subject: { kind: 'user', id: user.id, name: user.name || user.email },
      changes: { role: { before: null, after: row.role } },
      at: now,
    });
  }

  /** A first sign-in whose e-mail a provider verified (Google): every pending invitation of that e-mail is accepted. */
  static async joinAllPending(ctx: AppContext, trx: Transaction<Database>, user: Pick<UserRow, 'id' | 'email' | 'name'>): Promise<void> {
    for (const row of await invitations.listPendingInvitationsOf(trx, user.email.toLowerCase(), ctx.now())) {
      await InvitationService.join(ctx, trx, row, user);
    }
  }
}
