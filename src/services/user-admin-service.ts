import type { AppContext } from '../context.js';
import type { Role, UserRow } from '../db/schema.js';
import { appError, notFound } from '../errors.js';
import { revokeSessionsOf } from '../repositories/sessions.js';
import * as users from '../repositories/users.js';
import * as workspaces from '../repositories/workspaces.js';
import type { AccountService } from './account-service.js';
import type { AuthService, Caller } from './auth-service.js';
import { hashPassword } from './passwords.js';
import { readRegistrationPolicy, writeRegistrationPolicy, type RegistrationMode, type RegistrationPolicy } from './registration-policy.js';

/** A user as instance admins see it (GET /admin/users). */
export interface AdminUserView {
  id: number;
  email: string;
  name: string;
  is_instance_admin: boolean;
  disabled: boolean;
  created_at: number;
  last_login_at: number | null;
  must_change_password: boolean;
  has_password: boolean;
  workspaces: { id: number; name: string; role: Role }[];
  /** Stored bytes of the workspaces the user administers. */
  storage_bytes: number;
}

export interface AdminSettingsView {
  registration_mode: RegistrationMode;
  registration_domains: string[];
  smtp: boolean;
  public_url: string;
}

type Membership = Awaited<ReturnType<typeof workspaces.listMembershipsOf>>[number];

function adminView(u: UserRow, memberships: Membership[]): AdminUserView {
  const own = memberships.filter((m) => m.user_id === u.id);
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    is_instance_admin: u.is_instance_admin === 1,
    disabled: u.disabled_at !== null,
    created_at: u.created_at,
    last_login_at: u.last_login_at,
    must_change_password: u.must_change_password === 1,
    has_password: u.password_hash !== null,
    workspaces: own.map((m) => ({ id: m.id, name: m.name, role: m.role })),
    storage_bytes: own.filter((m) => m.role === 'admin').reduce((sum, m) => sum + Number(m.storage_bytes ?? 0), 0),
  };
}

/**
 * Instance administration (issue #27, docs/features/teams.md): the accounts of the instance and its registration mode.
 * Every operation is for instance admins only (403 ADMIN_ONLY otherwise).
 */
export class UserAdminService {
  constructor(
    private readonly ctx: AppContext,
    private readonly auth: AuthService,
    private readonly accounts: AccountService,
    private readonly mailEnabled: () => boolean,
  ) {}

  private assertAdmin(caller: Caller): void {
    if (!caller.isInstanceAdmin) throw appError('ADMIN_ONLY');
  }

  async list(caller: Caller, q: { q?: string; page: number; per_page: number }): Promise<{ items: AdminUserView[]; page: number; per_page: number; total: number }> {
    this.assertAdmin(caller);
    const { rows, total } = await users.listUsersPage(this.ctx.db, q.q?.trim() || undefined, q.per_page, (q.page - 1) * q.per_page);
    const memberships = await workspaces.listMembershipsOf(this.ctx.db, rows.map((r) => r.id));
    return { items: rows.map((r) => adminView(r, memberships)), page: q.page, per_page: q.per_page, total };
  }

  private async view(id: number): Promise<AdminUserView> {
    const user = await users.findUserById(this.ctx.db, id);
    if (!user) throw notFound('User');
    return adminView(user, await workspaces.listMembershipsOf(this.ctx.db, [id]));
  }

  /** A new account with its personal workspace: a temporary password to change at first sign-in, or a setup link. */
  async create(caller: Caller, input: { email: string; name: string; password?: string }): Promise<{ user: AdminUserView; url: string | null; emailed: boolean }> {
    this.assertAdmin(caller);
    const passwordHash = input.password === undefined ? null : await hashPassword(input.password);
    const created = await this.ctx.db.transaction().execute(async (trx) => {
      await this.ctx.database.support.lockTableForWrite(trx, 'users');
      if (await users.findUserByEmail(trx, input.email)) throw appError('EMAIL_TAKEN', undefined, { field: 'email' });
      const user = await this.auth.createUserWithWorkspace(trx, { email: input.email, name: input.name, passwordHash, isInstanceAdmin: false });
      if (passwordHash !== null) await users.setUserPassword(trx, user.id, passwordHash, true, this.ctx.now());
      return user;
    });
    if (passwordHash !== null) return { user: await this.view(created.id), url: null, emailed: false };
    const link = await this.accounts.sendSetupLink(created, caller.name || caller.email);
    return { user: await this.view(created.id), ...link };
  }

  /** Name, disabled, instance admin. Disabling ends every session at once. Nobody changes their own standing. */
  async update(caller: Caller, id: number, input: { name?: string; disabled?: boolean; is_instance_admin?: boolean }): Promise<AdminUserView> {
    this.assertAdmin(caller);
    if (id === caller.id && (input.disabled === true || input.is_instance_admin === false)) {
      throw appError('CONFLICT', 'You cannot disable your own account or remove your own admin rights; ask another instance administrator');
    }
    const now = this.ctx.now();
    await this.ctx.db.transaction().execute(async (trx) => {
      await this.ctx.database.support.lockTableForWrite(trx, 'users');
      const user = await users.findUserById(trx, id);
      if (!user) throw notFound('User');
      const losesAdmin = user.is_instance_admin === 1 && user.disabled_at === null && (input.disabled === true || input.is_instance_admin === false);
      if (losesAdmin && (await users.countActiveInstanceAdmins(trx)) <= 1) throw appError('LAST_INSTANCE_ADMIN');
      const changes: { name?: string; disabled_at?: number | null; is_instance_admin?: number } = {};
      if (input.name !== undefined) changes.name = input.name;
      if (input.is_instance_admin !== undefined) changes.is_instance_admin = input.is_instance_admin ? 1 : 0;
      if (input.disabled !== undefined && input.disabled !== (user.disabled_at !== null)) changes.disabled_at = input.disabled ? now : null;
      await users.updateUserAdminFields(trx, id, changes, now);
      if (input.disabled === true) await revokeSessionsOf(trx, id, now);
    });
    return this.view(id);
  }

  async passwordLink(caller: Caller, id: number): Promise<{ url: string; emailed: boolean }> {
    this.assertAdmin(caller);
    const user = await users.findUserById(this.ctx.db, id);
    if (!user) throw notFound('User');
    return this.accounts.sendSetupLink(user, caller.name || caller.email);
  }

  /**
   * Deletes an account. The workspaces it alone administers go to `transferTo` (made admin), or, without
   * one, are deleted when the user was their only member; others with members refuse the deletion.
   */
  async remove(caller: Caller, id: number, transferTo?: number): Promise<{ id: number; transferred_workspaces: number[]; deleted_workspaces: number[] }> {
    this.assertAdmin(caller);
    if (id === caller.id) throw appError('CONFLICT', 'You cannot delete your own account here; ask another instance administrator');
    if (transferTo === id) throw appError('VALIDATION_ERROR', 'transfer_to must be another user', { field: 'transfer_to' });
    const now = this.ctx.now();
    return this.ctx.db.transaction().execute(async (trx) => {
      await this.ctx.database.support.lockTableForWrite(trx, 'users');
      const user = await users.findUserById(trx, id);
      if (!user) throw notFound('User');
      if (transferTo !== undefined) {
        const heir = await users.findUserById(trx, transferTo);
        if (!heir || heir.disabled_at !== null) throw appError('VALIDATION_ERROR', 'transfer_to is not an enabled user', { field: 'transfer_to' });
      }
      if (user.is_instance_admin === 1 && user.disabled_at === null && (await users.countActiveInstanceAdmins(trx)) <= 1) throw appError('LAST_INSTANCE_ADMIN');
      const sole = await workspaces.workspacesSolelyAdministeredBy(trx, id);
      const transferred: number[] = [];
      const deleted: number[] = [];
      const blocked: string[] = [];
      for (const ws of sole) {
        if (transferTo !== undefined) {
          const role = await workspaces.findRole(trx, ws.id, transferTo);
          if (role) await workspaces.updateMemberRole(trx, ws.id, transferTo, 'admin');
          else await workspaces.insertMember(trx, ws.id, transferTo, 'admin', now);
          transferred.push(ws.id);
        } else if (ws.members <= 1) deleted.push(ws.id);
        else blocked.push(`"${ws.name}" (${ws.id})`);
      }
      if (blocked.length > 0) {
        throw appError('CONFLICT', `The user is the only admin of ${blocked.join(', ')}, which have other members: choose who takes them over (transfer_to)`, {
          field: 'transfer_to',
        });
      }
      for (const wsId of deleted) await workspaces.deleteWorkspace(trx, wsId);
      await users.deleteUser(trx, id);
      return { id, transferred_workspaces: transferred, deleted_workspaces: deleted };
    });
  }

  async settings(caller: Caller): Promise<AdminSettingsView> {
    this.assertAdmin(caller);
    const policy = await readRegistrationPolicy(this.ctx);
    return { registration_mode: policy.mode, registration_domains: policy.domains, smtp: this.mailEnabled(), public_url: this.ctx.config.publicUrl };
  }

  async updateSettings(caller: Caller, input: { registration_mode?: RegistrationMode; registration_domains?: string[] }): Promise<AdminSettingsView> {
    this.assertAdmin(caller);
    const current = await readRegistrationPolicy(this.ctx);
    const next: RegistrationPolicy = {
      mode: input.registration_mode ?? current.mode,
      domains: input.registration_domains ? [...new Set(input.registration_domains.map((d) => d.toLowerCase()))] : current.domains,
    };
    if (next.mode === 'domains' && next.domains.length === 0) {
      throw appError('VALIDATION_ERROR', 'body.registration_domains must name at least one domain in the domains mode', { field: 'registration_domains' });
    }
    await this.ctx.db.transaction().execute((trx) => writeRegistrationPolicy(trx, next));
    return this.settings(caller);
  }
}
