import { createHash } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { Transaction } from 'kysely';
import type { Database, UserRow } from '../db/schema.js';
import { appError } from '../errors.js';
import { countUsers, findUserByEmail, findUserById } from '../repositories/users.js';
import { GoogleProvider } from '../social/google.js';
import { ProviderUnavailable, TokenRejected, type IdentityProvider, type ProviderIdentity } from '../social/provider.js';
import * as social from '../social/repository.js';
import type { AuthResult, AuthService } from './auth-service.js';
import { listPendingInvitationsOf } from '../repositories/invitations.js';
import type { SessionOrigin } from '../repositories/sessions.js';
import { InvitationService } from './invitation-service.js';
import { readRegistrationPolicy } from './registration-policy.js';

export type ProviderName = 'google';

export interface SocialConfigView {
  provider: ProviderName;
  /** null when social login is not configured (DAM_SOCIAL_GOOGLE_CLIENT_ID unset). */
  client_id: string | null;
  /** The provider's sign-in URL with client_id, redirect_uri, response_type and scope; the client adds `state`. */
  authorize_url: string | null;
  /** Whether new accounts may be created (POST /auth/register, and a first social sign-in). */
  registration_open: boolean;
}

const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex');

/**
 * Social login (seed 4.4, 5.4): exchanges an identity provider's access token
 * for a session. The provider verifies the token; the user is found by the
 * provider's subject, else linked by a verified e-mail, else created with a
 * personal workspace (when registration is open, as for POST /auth/register).
 * Each provider token is exchanged at most once.
 */
export class SocialAuthService {
  private readonly providers: Partial<Record<ProviderName, IdentityProvider>>;

  constructor(
    private readonly ctx: AppContext,
    private readonly auth: AuthService,
    providers?: Partial<Record<ProviderName, IdentityProvider>>,
  ) {
    const google = ctx.config.social.google;
    this.providers = providers ?? (google ? { google: new GoogleProvider(google) } : {});
  }

  async config(): Promise<SocialConfigView> {
    const google = this.ctx.config.social.google;
    const registrationOpen = ['open', 'domains'].includes((await readRegistrationPolicy(this.ctx)).mode) || (await countUsers(this.ctx.db)) === 0;
    if (!google) return { provider: 'google', client_id: null, authorize_url: null, registration_open: registrationOpen };
    const url = new URL(google.authorizeUrl);
    url.searchParams.set('client_id', google.clientId);
    url.searchParams.set('redirect_uri', `${this.ctx.config.publicUrl}/social-login`);
    url.searchParams.set('response_type', 'token');
    url.searchParams.set('scope', 'openid email profile');
    url.searchParams.set('include_granted_scopes', 'true');
    url.searchParams.set('prompt', 'select_account');
    return { provider: 'google', client_id: google.clientId, authorize_url: url.toString(), registration_open: registrationOpen };
  }

  async callback(input: { access_token: string; provider: ProviderName }, origin?: SessionOrigin): Promise<AuthResult> {
    const provider = this.providers[input.provider];
    if (!provider) {
      throw appError('VALIDATION_ERROR', `Sign-in with ${input.provider} is not configured on this instance`, { field: 'provider' });
    }
    const tokenHash = sha256(`${input.provider}:${input.access_token}`);
    const now = this.ctx.now();
    await social.deleteExpiredTokens(this.ctx.db, now);
    // Checked before asking the provider (a replay costs no round trip) and claimed again below, atomically.
    if (await social.isTokenUsed(this.ctx.db, tokenHash)) throw usedToken();
    const identity = await this.verify(provider, input.access_token, now);

    const user = await this.ctx.db.transaction().execute(async (trx) => {
      // Serialise with registrations: "no user yet" and "is this e-mail taken" must hold until commit.
      await this.ctx.database.support.lockTableForWrite(trx, 'users');
      if (!(await social.claimToken(trx, tokenHash, identity.expiresAt))) throw usedToken();
      return this.findOrCreateUser(trx, provider.name, identity, now);
    });
    return this.auth.startSession(user, origin);
  }

  private async verify(provider: IdentityProvider, token: string, now: number): Promise<ProviderIdentity> {
    try {
      return await provider.verify(token, now);
    } catch (err) {
      if (err instanceof TokenRejected) throw appError('SOCIAL_TOKEN_INVALID', err.message);
      if (err instanceof ProviderUnavailable) throw appError('PROVIDER_ERROR', err.message);
      throw err;
    }
  }

  private async findOrCreateUser(trx: Transaction<Database>, provider: string, identity: ProviderIdentity, now: number): Promise<UserRow> {
    const linkedId = await social.findIdentityUserId(trx, provider, identity.subject);
    const linked = linkedId === undefined ? undefined : await findUserById(trx, linkedId);
    if (linked) {
      await social.touchIdentity(trx, provider, identity.subject, identity.email, now);
      if (identity.name && identity.name !== linked.name) {
        await social.updateUserName(trx, linked.id, identity.name, now);
        return { ...linked, name: identity.name, modified_at: now };
      }
      return linked;
    }

    if (!identity.email) throw appError('SOCIAL_TOKEN_INVALID', 'The provider did not share an e-mail address (scope email)');
    // An unverified address could belong to someone else: it neither links to nor creates an account with it.
    if (!identity.emailVerified) throw appError('FORBIDDEN', 'The e-mail address of this account is not verified by the provider');
    const existing = await findUserByEmail(trx, identity.email);
    if (existing) {
      await social.insertIdentity(trx, { provider, subject: identity.subject, userId: existing.id, email: identity.email, now });
      return existing;
    }

    const isFirst = (await countUsers(trx)) === 0;
    // Issue #27: a pending invitation of this (provider-verified) e-mail opens registration for it, whatever the mode.
    const invited = (await listPendingInvitationsOf(trx, identity.email.toLowerCase(), now)).length > 0;
    if (!isFirst && !invited) await this.auth.assertSelfRegistration(identity.email, trx);
    const name = identity.name ?? identity.email.split('@')[0] ?? identity.email;
    const user = await this.auth.createUserWithWorkspace(trx, { email: identity.email, name, passwordHash: null, isInstanceAdmin: isFirst });
    await social.insertIdentity(trx, { provider, subject: identity.subject, userId: user.id, email: identity.email, now });
    if (invited) await InvitationService.joinAllPending(this.ctx, trx, user);
    return user;
  }
}

function usedToken() {
  return appError('SOCIAL_TOKEN_INVALID', 'This sign-in token was already used; sign in again');
}
