import type { Transaction } from 'kysely';
import type { AppContext } from '../context.js';
import type { Database, Role } from '../db/schema.js';
import { diffFields } from '../domain/activity.js';
import { appError, notFound } from '../errors.js';
import { findUserByEmail } from '../repositories/users.js';
import * as repo from '../repositories/workspaces.js';
import type { Caller } from './auth-service.js';
import * as quota from './quota-service.js';
import { requireRole } from './access.js';
import { ActivityService } from './activity-service.js';

const userSubject = (u: { user_id: number; name: string; email: string }) => ({ kind: 'user' as const, id: u.user_id, name: u.name || u.email });

export interface WorkspaceView {
  id: number;
  name: string;
  role: Role;
  created_at: number;
  modified_at: number;
  /** How many days ahead managers may set a shared link's expiry (issue #28). */
  share_max_expiry_days: number;
}

/** What PATCH /workspaces/:id changes: its name, its settings, or both. */
export interface WorkspacePatch {
  name?: string;
  share_max_expiry_days?: number;
}

export class WorkspaceService {
  constructor(private readonly ctx: AppContext) {}

  list(caller: Caller): Promise<repo.WorkspaceWithRole[]> {
    return repo.listWorkspacesOfUser(this.ctx.db, caller.id);
  }

  async create(caller: Caller, name: string): Promise<WorkspaceView> {
    const now = this.ctx.now();
    const limit = this.ctx.config.maxWorkspacesPerUser;
    const ws = await this.ctx.db.transaction().execute(async (trx) => {
      // Each workspace has its own free quota: an account may not multiply it (issue #28). The user's row is
      // locked so that simultaneous creations are counted one after the other.
      if (limit > 0 && !caller.isInstanceAdmin) {
        await this.ctx.database.support.lockRow(trx, 'users', caller.id);
        const owned = await repo.countCreatedBy(trx, caller.id);
        if (owned >= limit) {
          throw appError('WORKSPACE_LIMIT_REACHED', `You have created ${owned} workspaces, the most one account may (DAM_MAX_WORKSPACES_PER_USER ${limit}); delete one or ask an instance admin`, { limit });
        }
      }
      const created = await repo.insertWorkspace(trx, name, now, caller.id);
      await repo.insertMember(trx, created.id, caller.id, 'admin', now);
      return created;
    });
    return { id: ws.id, name: ws.name, created_at: ws.created_at, modified_at: ws.modified_at, share_max_expiry_days: ws.share_max_expiry_days, role: 'admin' };
  }

  async get(caller: Caller, id: number): Promise<WorkspaceView> {
    const role = await requireRole(this.ctx.db, id, caller.id, 'viewer');
    const ws = await repo.findWorkspace(this.ctx.db, id);
    if (!ws) throw notFound('Workspace');
    return { ...ws, role };
  }

  /** Renames it and/or changes its settings (admins); each kind of change is its own activity entry. */
  async update(caller: Caller, id: number, patch: WorkspacePatch): Promise<WorkspaceView> {
    await requireRole(this.ctx.db, id, caller.id, 'admin');
    await this.ctx.db.transaction().execute(async (trx) => {
      await this.ctx.database.support.lockRow(trx, 'workspaces', id);
      const before = await repo.findWorkspace(trx, id);
      if (!before) throw notFound('Workspace');
      const now = this.ctx.now();
      if (patch.name !== undefined) {
        const name = patch.name;
        await repo.updateWorkspaceName(trx, id, name, now);
        await ActivityService.recordChanges(trx, {
          workspaceId: id,
          actor: caller,
          action: 'workspace.rename',
          subject: { kind: 'workspace', id, name },
          changes: diffFields<{ name: string }>(before, { name }, ['name']),
          at: now,
        });
      }
      if (patch.share_max_expiry_days !== undefined) {
        const days = patch.share_max_expiry_days;
        await repo.updateWorkspaceSettings(trx, id, { share_max_expiry_days: days }, now);
        await ActivityService.recordChanges(trx, {
          workspaceId: id,
          actor: caller,
          action: 'workspace.settings',
          subject: { kind: 'workspace', id, name: patch.name ?? before.name },
          changes: diffFields<{ share_max_expiry_days: number }>(before, { share_max_expiry_days: days }, ['share_max_expiry_days']),
          at: now,
        });
      }
    });
    return this.get(caller, id);
  }

  /** Deletes the workspace and, through foreign keys, everything in it. */
  async remove(caller: Caller, id: number): Promise<void> {
    await requireRole(this.ctx.db, id, caller.id, 'admin');
    await repo.deleteWorkspace(this.ctx.db, id);
  }

  async members(caller: Caller, id: number): Promise<repo.MemberRow[]> {
    await requireRole(this.ctx.db, id, caller.id, 'viewer');
    return repo.listMembers(this.ctx.db, id);
  }

  async addMember(caller: Caller, id: number, email: string, role: Role): Promise<repo.MemberRow> {
    await requireRole(this.ctx.db, id, caller.id, 'admin');
    const user = await findUserByEmail(this.ctx.db, email);
    if (!user) throw appError('NOT_FOUND', `No user with e-mail ${email}; they must register first`, { field: 'email' });
    if (await repo.findRole(this.ctx.db, id, user.id)) throw appError('CONFLICT', `${email} is already a member of this workspace`);
    await this.ctx.db.transaction().execute(async (trx) => {
      await quota.assertMembers(this.ctx, trx, id);
      await repo.insertMember(trx, id, user.id, role, this.ctx.now());
      const subject = userSubject({ ...user, user_id: user.id });
      const changes = { role: { before: null, after: role } };
      await ActivityService.record(trx, { workspaceId: id, actor: caller, action: 'member.add', subject, changes, at: this.ctx.now() });
    });
    return this.member(id, user.id);
  }

  /** Role changes and removals run under a workspace lock so that two of them cannot together remove the last admin. */
  async changeRole(caller: Caller, id: number, userId: number, role: Role): Promise<repo.MemberRow> {
    await requireRole(this.ctx.db, id, caller.id, 'admin');
    await this.ctx.db.transaction().execute(async (trx) => {
      const member = await this.lockedMember(trx, id, userId);
      if (member.role === 'admin' && role !== 'admin') await this.assertNotLastAdmin(trx, id);
      await repo.updateMemberRole(trx, id, userId, role);
      const changes = diffFields<{ role: Role }>(member, { role }, ['role']);
      await ActivityService.recordChanges(trx, { workspaceId: id, actor: caller, action: 'member.role', subject: userSubject(member), changes, at: this.ctx.now() });
    });
    return this.member(id, userId);
  }

  /** Admins remove anyone; any member may leave (remove themselves). */
  async removeMember(caller: Caller, id: number, userId: number): Promise<void> {
    await requireRole(this.ctx.db, id, caller.id, userId === caller.id ? 'viewer' : 'admin');
    await this.ctx.db.transaction().execute(async (trx) => {
      const member = await this.lockedMember(trx, id, userId);
      if (member.role === 'admin') await this.assertNotLastAdmin(trx, id);
      await repo.deleteMember(trx, id, userId);
      const changes = { role: { before: member.role, after: null } };
      await ActivityService.record(trx, { workspaceId: id, actor: caller, action: 'member.remove', subject: userSubject(member), changes, at: this.ctx.now() });
    });
  }

  private async lockedMember(trx: Transaction<Database>, workspaceId: number, userId: number): Promise<repo.MemberRow> {
    await this.ctx.database.support.lockRow(trx, 'workspaces', workspaceId);
    const member = await repo.findMember(trx, workspaceId, userId);
    if (!member) throw notFound('Member');
    return member;
  }

  private async assertNotLastAdmin(trx: Transaction<Database>, workspaceId: number): Promise<void> {
    if ((await repo.countAdmins(trx, workspaceId)) <= 1) throw appError('LAST_ADMIN');
  }

  private async member(workspaceId: number, userId: number): Promise<repo.MemberRow> {
    const found = await repo.findMember(this.ctx.db, workspaceId, userId);
    if (!found) throw notFound('Member');
    return found;
  }
}
