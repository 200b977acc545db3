import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { UserRow } from '../db/schema.js';
import type { Caller } from '../domain/caller.js';
import { appError } from '../errors.js';
import { SUPPORTED_LOCALES, type Locale } from '../contracts/locales.js';
import { checkPhoneNumber, REASON_TEXT } from '../domain/phone-numbers.js';
import { countUsers, findUserByEmail, findUserById, insertUser, recordLogin, updateUserProfile } from '../repositories/users.js';
import { insertSession, revokeSession, touchSession, type SessionOrigin } from '../repositories/sessions.js';
import { readRegistrationPolicy, selfRegistrationAllowed, type RegistrationMode } from './registration-policy.js';
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
  /** Issue #27: may use /admin. */
  is_instance_admin: boolean;
  /** Issue #27: an admin set a temporary password; most routes answer 403 PASSWORD_CHANGE_REQUIRED until it is changed. */
  must_change_password: boolean;
  /** Whether the account has a password (a Google-only account has none: POST /auth/password then needs no current one). */
  has_password: boolean;
  /** Issue #29: the web client's language the user chose, or null (the client follows the browser). */
  locale: Locale | null;
}

export interface AuthResult {
  user: PublicUser;
  token: string;
  workspaces: WorkspaceWithRole[];
}

export type { Caller } from '../domain/caller.js';

export function publicUser(u: UserRow): PublicUser {
  return { id: u.id, email: u.email, name: u.name };
}

function isLocale(value: string | null): value is Locale {
  return (SUPPORTED_LOCALES as readonly (string | null)[]).includes(value);
}

function account(u: UserRow): Account {
  return {
    ...publicUser(u),
    phone: u.phone ?? null,
    is_instance_admin: u.is_instance_admin === 1,
    must_change_password: u.must_change_password === 1,
    has_password: u.password_hash !== null,
    locale: isLocale(u.locale) ? u.locale : null,
  };
}

/** Why self-registration is refused, in the words of each mode (docs/features/teams.md). */
const CLOSED_BECAUSE: Record<RegistrationMode, string> = {
  open: 'Registration is open',
  domains: 'Registration on this instance is open to some e-mail domains only; ask a workspace admin for an invitation',
  invite: 'Registration on this instance is by invitation only; ask a workspace admin for an invitation',
  closed: 'Registration is closed on this instance; ask an administrator for an account',
};

/** A session's last use is written at most this often (seconds): a write per request would cost every read. */
const TOUCH_INTERVAL = 60;

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
   * Open while the instance has no user (that first user becomes instance admin), and after that as the
   * registration mode says (issue #27: open, or open to some e-mail domains; DAM_ALLOW_REGISTRATION=true
   * makes `open` the default). Every user gets a personal workspace.
   */
  async register(input: { email: string; password: string; name: string }, origin?: SessionOrigin): Promise<AuthResult> {
    const passwordHash = await hashPassword(input.password);
    const user = await this.ctx.db.transaction().execute(async (trx) => {
      // Serialise registrations: otherwise two simultaneous ones could both see "no user yet"
      // (two instance admins on a closed instance), or both miss each other's e-mail (a 500
      // from the unique index instead of 409).
      await this.ctx.database.support.lockTableForWrite(trx, 'users');
      const isFirst = (await countUsers(trx)) === 0;
      if (!isFirst) await this.assertSelfRegistration(input.email, trx);
      if (await findUserByEmail(trx, input.email)) throw appError('EMAIL_TAKEN');
      return this.createUserWithWorkspace(trx, { ...input, passwordHash, isInstanceAdmin: isFirst });
    });
    return this.startSession(user, origin);
  }

  /** 403 REGISTRATION_CLOSED, in words that say what to do, unless this e-mail may sign up by itself. */
  async assertSelfRegistration(email: string, db: AppContext['db'] = this.ctx.db): Promise<void> {
    const policy = await readRegistrationPolicy(this.ctx, db);
    if (!selfRegistrationAllowed(policy, email)) throw appError('REGISTRATION_CLOSED', CLOSED_BECAUSE[policy.mode], { field: 'email', mode: policy.mode });
  }

  /** Used by register and by social login: a user and their personal workspace, in one transaction. */
  async createUserWithWorkspace(
    trx: AppContext['db'],
    input: { email: string; name: string; passwordHash: string | null; isInstanceAdmin: boolean },
  ): Promise<UserRow> {
    const now = this.ctx.now();
    const user = await insertUser(trx, { ...input, now });
    const workspace = await insertWorkspace(trx, `${input.name}'s workspace`, now, user.id);
    await insertMember(trx, workspace.id, user.id, 'admin', now);
    return user;
  }

  async login(email: string, password: string, origin?: SessionOrigin): Promise<AuthResult> {
    const user = await findUserByEmail(this.ctx.db, email);
    // Verify against a dummy hash when the account is unknown so timing does not reveal it.
    const ok = await verifyPassword(password, user?.password_hash ?? (await DUMMY_HASH_PROMISE));
    if (!user || !user.password_hash || !ok) throw appError('INVALID_CREDENTIALS');
    return this.startSession(user, origin);
  }

  /** Every sign-in ends here: a disabled account is refused (after its credentials proved who asks). */
  async startSession(user: UserRow, origin?: SessionOrigin): Promise<AuthResult> {
    if (user.disabled_at !== null) throw appError('ACCOUNT_DISABLED');
    const now = this.ctx.now();
    const expiresAt = now + this.ctx.config.sessionTtl;
    const sessionId = randomUUID();
    await insertSession(this.ctx.db, { id: sessionId, userId: user.id, now, expiresAt, ...origin });
    await recordLogin(this.ctx.db, user.id, now);
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
      mustChangePassword: user.must_change_password === 1,
      ...(changes ? { changes } : {}),
    };
    this.sessionUsers.set(caller, user);
    const now = this.ctx.now();
    if (now - (user.session_last_used_at ?? 0) >= TOUCH_INTERVAL) await touchSession(this.ctx.db, claims.sessionId, now);
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
  async updateMe(
    caller: Caller,
    input: { name?: string; phone?: string | null; locale?: Locale | null },
  ): Promise<{ user: Account; workspaces: WorkspaceWithRole[] }> {
    const changes: { name?: string; phone?: string | null; locale?: Locale | null } = {};
    if (input.name !== undefined) changes.name = input.name;
    if (input.locale !== undefined) changes.locale = input.locale;
    if (input.phone !== undefined) changes.phone = input.phone === null ? null : accountPhone(input.phone);
    if (Object.keys(changes).length > 0) {
      const updated = await updateUserProfile(this.ctx.db, caller.id, changes, this.ctx.now());
      if (!updated) throw appError('INVALID_TOKEN');
      return this.accountOf(caller);
    }
    return this.me(caller);
  }
}
