import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { UserRow } from '../db/schema.js';
import { appError } from '../errors.js';
import { countUsers, findUserByEmail, insertUser } from '../repositories/users.js';
import { findActiveSessionUser, insertSession, revokeSession } from '../repositories/sessions.js';
import { insertMember, insertWorkspace, listWorkspacesOfUser, type WorkspaceWithRole } from '../repositories/workspaces.js';
import { DUMMY_HASH_PROMISE, hashPassword, verifyPassword } from './passwords.js';

/** seed 2.4: user is {id: number, email, name}. */
export interface PublicUser {
  id: number;
  email: string;
  name: string;
}

export interface AuthResult {
  user: PublicUser;
  token: string;
  workspaces: WorkspaceWithRole[];
}

/** The authenticated caller, attached to each request by the auth hook. */
export interface Caller {
  id: number;
  email: string;
  name: string;
  isInstanceAdmin: boolean;
  sessionId: string;
}

export function publicUser(u: UserRow): PublicUser {
  return { id: u.id, email: u.email, name: u.name };
}

export class AuthService {
  constructor(private readonly ctx: AppContext) {}

  /**
   * Open while the instance has no user (that first user becomes instance admin)
   * or when DAM_ALLOW_REGISTRATION is true. Every user gets a personal workspace.
   */
  async register(input: { email: string; password: string; name: string }): Promise<AuthResult> {
    const passwordHash = await hashPassword(input.password);
    const user = await this.ctx.db.transaction().execute(async (trx) => {
      // Serialise registrations: otherwise two simultaneous ones could both see "no user yet"
      // (two instance admins on a closed instance), or both miss each other's e-mail (a 500
      // from the unique index instead of 409).
      await this.ctx.database.support.lockTableForWrite(trx, 'users');
      const isFirst = (await countUsers(trx)) === 0;
      if (!isFirst && !this.ctx.config.allowRegistration) throw appError('REGISTRATION_CLOSED');
      if (await findUserByEmail(trx, input.email)) throw appError('EMAIL_TAKEN');
      return this.createUserWithWorkspace(trx, { ...input, passwordHash, isInstanceAdmin: isFirst });
    });
    return this.startSession(user);
  }

  /** Used by register and by social login: a user and their personal workspace, in one transaction. */
  async createUserWithWorkspace(
    trx: AppContext['db'],
    input: { email: string; name: string; passwordHash: string | null; isInstanceAdmin: boolean },
  ): Promise<UserRow> {
    const now = this.ctx.now();
    const user = await insertUser(trx, { ...input, now });
    const workspace = await insertWorkspace(trx, `${input.name}'s workspace`, now);
    await insertMember(trx, workspace.id, user.id, 'admin', now);
    return user;
  }

  async login(email: string, password: string): Promise<AuthResult> {
    const user = await findUserByEmail(this.ctx.db, email);
    // Verify against a dummy hash when the account is unknown so timing does not reveal it.
    const ok = await verifyPassword(password, user?.password_hash ?? (await DUMMY_HASH_PROMISE));
    if (!user || !user.password_hash || !ok) throw appError('INVALID_CREDENTIALS');
    return this.startSession(user);
  }

  async startSession(user: UserRow): Promise<AuthResult> {
    const now = this.ctx.now();
    const expiresAt = now + this.ctx.config.sessionTtl;
    const sessionId = randomUUID();
    await insertSession(this.ctx.db, { id: sessionId, userId: user.id, now, expiresAt });
    const token = await this.ctx.tokens.sign({ userId: user.id, sessionId }, expiresAt);
    return { user: publicUser(user), token, workspaces: await listWorkspacesOfUser(this.ctx.db, user.id) };
  }

  /** Resolves a bearer token to the caller, or throws 401. */
  async authenticate(token: string): Promise<Caller> {
    const claims = await this.ctx.tokens.verify(token);
    if (!claims) throw appError('INVALID_TOKEN');
    const user = await findActiveSessionUser(this.ctx.db, claims.sessionId, claims.userId, this.ctx.now());
    if (!user) throw appError('INVALID_TOKEN');
    return {
      id: user.id,
      email: user.email,
      name: user.name,
      isInstanceAdmin: user.is_instance_admin === 1,
      sessionId: claims.sessionId,
    };
  }

  async logout(caller: Caller): Promise<void> {
    await revokeSession(this.ctx.db, caller.sessionId, this.ctx.now());
  }

  async me(caller: Caller): Promise<{ user: PublicUser; workspaces: WorkspaceWithRole[] }> {
    return {
      user: { id: caller.id, email: caller.email, name: caller.name },
      workspaces: await listWorkspacesOfUser(this.ctx.db, caller.id),
    };
  }
}
