import { UAParser } from 'ua-parser-js';
import type { AppContext } from '../context.js';
import type { PasswordLinkPurpose, UserRow } from '../db/schema.js';
import { MAX_UA_LENGTH } from '../domain/browser-os.js';
import { appError, notFound } from '../errors.js';
import { accountSetupMail, passwordResetMail } from '../mail/messages.js';
import * as links from '../repositories/password-links.js';
import { listActiveSessions, revokeSessionOf, revokeSessionsOf, type SessionOrigin } from '../repositories/sessions.js';
import { findUserByEmail, findUserById, setUserPassword } from '../repositories/users.js';
import type { AuthResult, AuthService, Caller } from './auth-service.js';
import { hashLinkToken, newLinkToken } from './link-tokens.js';
import type { Outbox } from './outbox.js';
import { hashPassword, verifyPassword } from './passwords.js';

/** One of the user's sessions as GET /auth/sessions answers it. */
export interface SessionView {
  id: string;
  current: boolean;
  created_at: number;
  last_used_at: number | null;
  expires_at: number;
  ip: string | null;
  /** "Chrome 120 on Mac OS", from the User-Agent at sign-in; null when there was none. */
  device: string | null;
}

/** A password reset link lives an hour; an account-setup link as long as an invitation (DAM_INVITE_TTL). */
const RESET_TTL = 3600;

/** "Chrome 120 on Mac OS" from a User-Agent (ua-parser-js, as GET /api/browser-os reads it). */
export function describeDevice(userAgent: string | null): string | null {
  if (!userAgent) return null;
  const ua = new UAParser(userAgent.slice(0, MAX_UA_LENGTH)).getResult();
  const browser = [ua.browser.name, ua.browser.major].filter(Boolean).join(' ');
  const os = ua.os.name ?? '';
  if (!browser && !os) return userAgent.slice(0, 80);
  return browser && os ? `${browser} on ${os}` : browser || os;
}

/**
 * A single-use link that sets the user's password: `reset` (an hour) or `setup` (DAM_INVITE_TTL, for an
 * account an admin created). Earlier unused links of the user stop working. Also used by `npm run admin`.
 */
export async function issuePasswordLink(
  ctx: Pick<AppContext, 'db' | 'config' | 'now'>,
  userId: number,
  purpose: PasswordLinkPurpose,
): Promise<{ url: string; expiresAt: number }> {
  const { token, hash } = newLinkToken();
  const now = ctx.now();
  const expiresAt = now + (purpose === 'reset' ? RESET_TTL : ctx.config.inviteTtl);
  await ctx.db.transaction().execute(async (trx) => {
    await links.retirePasswordLinks(trx, userId, now);
    await links.insertPasswordLink(trx, { tokenHash: hash, userId, purpose, now, expiresAt });
  });
  return { url: `${ctx.config.publicUrl}/reset-password?token=${token}`, expiresAt };
}

/**
 * The signed-in user's own sign-in (issue #27, docs/features/teams.md "Own account"): changing the password, the list
 * of sessions, forgotten passwords by e-mail, and the single-use password links that admins and
 * `npm run admin -- reset-password` make.
 */
export class AccountService {
  constructor(
    private readonly ctx: AppContext,
    private readonly auth: AuthService,
    private readonly outbox: Outbox,
  ) {}

  /** Sets a new password and ends every other session; the current password is asked when the account has one. */
  async changePassword(caller: Caller, input: { current_password?: string; new_password: string }): Promise<{ changed: true; ended_sessions: number }> {
    const user = await findUserById(this.ctx.db, caller.id);
    if (!user) throw appError('INVALID_TOKEN');
    if (user.password_hash !== null) {
      if (input.current_password === undefined) throw appError('VALIDATION_ERROR', 'body.current_password is required to change the password', { field: 'current_password' });
      if (!(await verifyPassword(input.current_password, user.password_hash))) {
        throw appError('VALIDATION_ERROR', 'body.current_password is not the current password', { field: 'current_password' });
      }
    }
    if (input.current_password !== undefined && input.current_password === input.new_password) {
      throw appError('VALIDATION_ERROR', 'body.new_password must differ from the current password', { field: 'new_password' });
    }
    const hash = await hashPassword(input.new_password);
    const now = this.ctx.now();
    const ended = await this.ctx.db.transaction().execute(async (trx) => {
      await setUserPassword(trx, caller.id, hash, false, now);
      return revokeSessionsOf(trx, caller.id, now, caller.sessionId);
    });
    return { changed: true, ended_sessions: ended };
  }

  async sessions(caller: Caller): Promise<SessionView[]> {
    const rows = await listActiveSessions(this.ctx.db, caller.id, this.ctx.now());
    return rows.map((r) => ({
      id: r.id,
      current: r.id === caller.sessionId,
      created_at: r.created_at,
      last_used_at: r.last_used_at,
      expires_at: r.expires_at,
      ip: r.ip,
      device: describeDevice(r.user_agent),
    }));
  }

  async endSession(caller: Caller, id: string): Promise<void> {
    if (!(await revokeSessionOf(this.ctx.db, caller.id, id, this.ctx.now()))) throw notFound('Session');
  }

  async endOtherSessions(caller: Caller): Promise<number> {
    return revokeSessionsOf(this.ctx.db, caller.id, this.ctx.now(), caller.sessionId);
  }

  issueLink(userId: number, purpose: PasswordLinkPurpose): Promise<{ url: string; expiresAt: number }> {
    return issuePasswordLink(this.ctx, userId, purpose);
  }

  /** A setup link for a new account, e-mailed when SMTP is on. */
  async sendSetupLink(user: UserRow, invitedBy: string): Promise<{ url: string; emailed: boolean }> {
    const { url, expiresAt } = await this.issueLink(user.id, 'setup');
    const emailed = await this.outbox.send('account-setup', accountSetupMail({ to: user.email, name: user.name, url, expiresAt, invitedBy }));
    return { url, emailed };
  }

  /**
   * POST /auth/password-reset: answers the same whether or not the e-mail has an account (the mail is sent
   * after the answer, so the time taken says nothing either). Needs SMTP.
   */
  requestReset(email: string): void {
    if (!this.outbox.enabled) throw appError('PASSWORD_RESET_UNAVAILABLE');
    void (async () => {
      const user = await findUserByEmail(this.ctx.db, email);
      if (!user || user.disabled_at !== null) return;
      const { url, expiresAt } = await this.issueLink(user.id, 'reset');
      await this.outbox.send('password-reset', passwordResetMail({ to: user.email, url, expiresAt }));
    })().catch((err: unknown) => this.outbox.log?.warn({ error: err instanceof Error ? err.message : String(err) }, 'password reset not sent'));
  }

  async describeLink(token: string): Promise<{ email: string; purpose: PasswordLinkPurpose; expires_at: number }> {
    const link = await links.findUsablePasswordLink(this.ctx.db, hashLinkToken(token), this.ctx.now());
    const user = link && (await findUserById(this.ctx.db, link.user_id));
    if (!link || !user || user.disabled_at !== null) throw appError('LINK_INVALID');
    return { email: user.email, purpose: link.purpose, expires_at: link.expires_at };
  }

  /** Sets the password through a link, uses the link up, ends every session of the account, signs in. */
  async confirmReset(token: string, password: string, origin?: SessionOrigin): Promise<AuthResult> {
    const hash = await hashPassword(password);
    const tokenHash = hashLinkToken(token);
    const now = this.ctx.now();
    const user = await this.ctx.db.transaction().execute(async (trx) => {
      const link = await links.findUsablePasswordLink(trx, tokenHash, now);
      if (!link || !(await links.usePasswordLink(trx, tokenHash, now))) throw appError('LINK_INVALID');
      const found = await findUserById(trx, link.user_id);
      if (!found || found.disabled_at !== null) throw appError('LINK_INVALID');
      await setUserPassword(trx, found.id, hash, false, now);
      await revokeSessionsOf(trx, found.id, now);
      return { ...found, must_change_password: 0 };
    });
    return this.auth.startSession(user, origin);
  }
}
