import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { UserRow } from '../db/schema.js';
import { appError } from '../errors.js';
import { checkPhoneNumber, REASON_TEXT } from '../domain/phone-numbers.js';
import { countUsers, findUserByEmail, findUserById, insertUser, updateUserProfile } from '../repositories/users.js';
import { insertSession, revokeSession } from '../repositories/sessions.js';
import { insertMember, insertWorkspace, listWorkspacesOfUser, type WorkspaceWithRole } from '../repositories/workspaces.js';
import type { FreshReads } from './fresh-reads.js';
import { DUMMY_HASH_PROMISE, hashPassword, verifyPassword } from './passwords.js';
import { VerifiedTokens } from './verified-tokens.js';

/** seed 2.4: user is {id: number, email, name}. */
export interface PublicUser {
  id: number;
  email: string;
  name: string;
}

/** The signed-in user's own account (GET/PATCH /auth/me): the seed 2.4 user plus the phone number (issue #13). */
export interface Account extends PublicUser {
  /** E.164, or null. */
  phone: string | null;
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
  /** The change token of this request's cached reads (services/fresh-reads.ts); absent on PostgreSQL. */
  changes?: () => string;
}

export function publicUser(u: UserRow): PublicUser {
  return { id: u.id, email: u.email, name: u.name };
}

function account(u: UserRow): Account {
  return { ...publicUser(u), phone: u.phone ?? null };
}

/** The E.164 form of an account's phone number, or a 400 naming body.phone with the reason. */
function accountPhone(phone: string): string {
  const check = checkPhoneNumber(phone);
  if (!check.valid || !check.e164) {
    const reason = check.reason ?? 'INVALID_NUMBER';
    throw appError('VALIDATION_ERROR', `body.phone ${REASON_TEXT[reason]}`, { field: 'phone', reason });
  }
  if (check.extension) {
    throw appError('VALIDATION_ERROR', 'body.phone must not have an extension (an account number is stored in E.164)', {
      field: 'phone',
      reason: 'HAS_EXTENSION',
    });
  }
  return check.e164;
}

export class AuthService {
  /** Signature checks remembered per token; the session row is still read on every request. */
  private readonly verified: VerifiedTokens;
  /** The user row authenticate() read with the session, for GET /auth/me of the same request (one query fewer). */
  private readonly sessionUsers = new WeakMap<Caller, UserRow>();

  constructor(
    private readonly ctx: AppContext,
    private readonly reads: FreshReads,
  ) {
    this.verified = new VerifiedTokens(ctx.tokens);
  }

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
    const claims = await this.verified.verify(token);
    if (!claims) throw appError('INVALID_TOKEN');
    const changes = this.reads.requestToken();
    const user = await this.reads.sessionUser(claims.sessionId, claims.userId, changes);
    if (!user) throw appError('INVALID_TOKEN');
    const caller: Caller = {
      id: user.id,
      email: user.email,
      name: user.name,
      isInstanceAdmin: user.is_instance_admin === 1,
      sessionId: claims.sessionId,
      ...(changes ? { changes } : {}),
    };
    this.sessionUsers.set(caller, user);
    return caller;
  }

  async logout(caller: Caller): Promise<void> {
    await revokeSession(this.ctx.db, caller.sessionId, this.ctx.now());
  }

  async me(caller: Caller): Promise<{ user: Account; workspaces: WorkspaceWithRole[] }> {
    return this.accountOf(caller, this.sessionUsers.get(caller));
  }

  /** `user`: the row read with the session in this request, if any; read afresh otherwise (and after a change). */
  private async accountOf(caller: Caller, known?: UserRow): Promise<{ user: Account; workspaces: WorkspaceWithRole[] }> {
    const user = known ?? (await findUserById(this.ctx.db, caller.id));
    // The session was found a moment ago; a user deleted since is a signed-out one.
    if (!user) throw appError('INVALID_TOKEN');
    return { user: account(user), workspaces: await this.reads.workspacesOf(caller) };
  }

  /**
   * PATCH /auth/me: the caller's name and phone. A phone number is read as written (it must carry
   * its +country code, as there is no country to read it in) and stored in E.164; null removes it.
   * An extension is refused rather than silently dropped: E.164 cannot hold one.
   */
  async updateMe(caller: Caller, input: { name?: string; phone?: string | null }): Promise<{ user: Account; workspaces: WorkspaceWithRole[] }> {
    const changes: { name?: string; phone?: string | null } = {};
    if (input.name !== undefined) changes.name = input.name;
    if (input.phone !== undefined) changes.phone = input.phone === null ? null : accountPhone(input.phone);
    if (Object.keys(changes).length > 0) {
      const updated = await updateUserProfile(this.ctx.db, caller.id, changes, this.ctx.now());
      if (!updated) throw appError('INVALID_TOKEN');
      return this.accountOf(caller);
    }
    return this.me(caller);
  }
}
