import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../../context.js';
import { pathCookie, readCookie } from '../../domain/cookies.js';
import { appError } from '../../errors.js';
import { OAuthClient } from '../../drives/oauth.js';
import { DRIVE_MODULES } from '../../drives/registry.js';
import { StateSigner } from '../../drives/state.js';
import { TokenCipher } from '../../drives/token-cipher.js';
import type { DriveProviderId } from '../../drives/types.js';
import * as repo from '../../repositories/drives.js';
import type { AuthInput, AuthView, CallbackInput, DrivesView } from '../../contracts/drives.js';
import { requireRole } from '../access.js';
import type { Caller } from '../auth-service.js';
import type { DriveConnections } from './drive-connections.js';

/** Seconds an authorization request may take from GET /{provider}/auth to the callback. */
export const STATE_TTL = 600;
/** The drives page of the web client: where the callback sends the browser unless return_to says otherwise. */
export const DRIVES_PAGE = '/library/drives';
/** The cookie binding an authorization request to the browser that started it (see `start`). */
export const BINDING_COOKIE = 'dam_drive_binding';

export interface AuthStart {
  view: AuthView;
  /** Set-Cookie value binding the request to this browser. */
  cookie: string;
}

export interface CallbackResult {
  /** Relative Location: return_to (or the drives page) with ?connected= or ?error=. */
  location: string;
  /** Set-Cookie clearing the binding cookie. */
  clearCookie: string;
  /** Why the exchange failed, for the log (the provider's words; never a token). */
  failure?: string;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Connecting and disconnecting external drives (issue #16): the authorization-code flow with PKCE (S256)
 * and the list of the caller's connections.
 *
 * The `state` is a JWT signed for this purpose (src/drives/state.ts: user, provider, nonce, 10 minutes).
 * Its nonce names a row holding the sealed PKCE verifier, where to return, and the SHA-256 of a random
 * browser-binding cookie set with the authorization URL (HttpOnly, SameSite=Lax, path of the callback only).
 * The callback deletes that row (one DELETE … RETURNING), so a state works once, and requires the cookie:
 * an authorization URL sent to someone else cannot attach their drive to the sender's account.
 */
export class DriveAuthService {
  private readonly states: StateSigner;
  private readonly verifiers: TokenCipher;

  constructor(
    private readonly ctx: AppContext,
    private readonly connections: DriveConnections,
  ) {
    this.states = new StateSigner(ctx.secrets.current);
    this.verifiers = new TokenCipher(ctx.secrets, 'pkce-verifier');
  }

  /** GET /drives: every configured provider with the caller's connection to it. */
  async list(caller: Caller): Promise<DrivesView> {
    const mine = new Map((await repo.listConnections(this.ctx.db, caller.id)).map((c) => [c.provider, c]));
    const providers = DRIVE_MODULES.flatMap((m) => {
      const provider = this.connections.providers.get(m.id);
      if (!provider) return [];
      const conn = mine.get(m.id);
      return [
        {
          id: m.id,
          name: provider.name,
          search: provider.supportsSearch,
          connection: conn
            ? {
                account_id: conn.account_id,
                account_email: conn.account_email,
                account_name: conn.account_name,
                scopes: conn.scopes.split(' ').filter(Boolean),
                status: conn.status,
                status_note: conn.status_note,
                connected_at: conn.created_at,
                updated_at: conn.updated_at,
              }
            : null,
        },
      ];
    });
    return { providers };
  }

  async start(caller: Caller, id: DriveProviderId, input: AuthInput): Promise<AuthStart> {
    const provider = this.connections.provider(id);
    if (input.workspaceId !== undefined) await requireRole(this.ctx.db, input.workspaceId, caller.id, 'viewer');
    const returnTo = input.return_to !== undefined ? localPath(input.return_to) : this.defaultReturn(input.workspaceId);
    const now = this.ctx.now();
    await repo.deleteExpiredStates(this.ctx.db, now);

    const nonce = randomBytes(24).toString('base64url');
    const verifier = OAuthClient.newCodeVerifier();
    const binding = randomBytes(32).toString('base64url');
    await repo.insertState(this.ctx.db, {
      nonce,
      user_id: caller.id,
      provider: id,
      code_verifier: this.verifiers.seal(verifier, `state:${nonce}`),
      browser_hash: sha256(binding),
      return_to: returnTo,
      workspace_id: input.workspaceId ?? null,
      expires_at: now + STATE_TTL,
    });
    const state = await this.states.sign({ userId: caller.id, provider: id, nonce }, now, STATE_TTL);
    const url = provider.authorizationUrl({ state, codeChallenge: await OAuthClient.codeChallenge(verifier), redirectUri: this.redirectUri(id) });
    return { view: { url, expires_at: now + STATE_TTL }, cookie: this.cookie(id, binding, STATE_TTL) };
  }

  /**
   * The provider's redirect back. Never throws for what the provider or the browser sent: every outcome is a
   * redirect, with ?connected= or ?error= (invalid_state, access_denied or the provider's error code,
   * exchange_failed). A state that is not good gives no trustworthy return_to, so those go to the drives page.
   */
  async callback(id: DriveProviderId, query: CallbackInput, cookieHeader: string | undefined): Promise<CallbackResult> {
    const provider = this.connections.provider(id);
    const clearCookie = this.cookie(id, '', 0);
    const now = this.ctx.now();
    const claims = await this.states.verify(query.state, id, now);
    const row = claims ? await repo.consumeState(this.ctx.db, claims.nonce, now) : undefined;
    const binding = readCookie(cookieHeader, BINDING_COOKIE);
    const bound = row !== undefined && binding !== undefined && safeEqual(sha256(binding), row.browser_hash);
    if (!claims || !row || row.user_id !== claims.userId || row.provider !== id || !bound) {
      return { location: withParams(this.defaultReturn(undefined), { error: 'invalid_state', provider: id }), clearCookie };
    }
    if (query.error !== undefined || query.code === undefined) {
      const error = query.error && /^[a-z_]{1,64}$/.test(query.error) ? query.error : 'access_denied';
      return { location: withParams(row.return_to, { error, provider: id }), clearCookie };
    }
    try {
      const tokens = await provider.exchangeCode({
        code: query.code,
        iss: query.iss,
        codeVerifier: this.verifiers.open(row.code_verifier, `state:${row.nonce}`),
        redirectUri: this.redirectUri(id),
      });
      const account = await provider.account(tokens.accessToken);
      await this.connections.save(row.user_id, provider, account, tokens);
    } catch (err) {
      // The page gets a code only; the route logs the provider's message.
      const failure = err instanceof Error ? err.message : String(err);
      return { location: withParams(row.return_to, { error: 'exchange_failed', provider: id }), clearCookie, failure };
    }
    return { location: withParams(row.return_to, { connected: id }), clearCookie };
  }

  async disconnect(caller: Caller, id: DriveProviderId): Promise<{ provider: DriveProviderId; revoked: boolean }> {
    const provider = this.connections.provider(id);
    const conn = await repo.findConnection(this.ctx.db, caller.id, id);
    if (!conn) throw appError('DRIVE_NOT_CONNECTED', `${provider.name} is not connected`, { provider: id });
    return { provider: id, revoked: await this.connections.remove(caller.id, provider) };
  }

  /** The drives page under DAM_PUBLIC_URL's path (an instance served under a prefix sends the browser there too). */
  private defaultReturn(workspaceId: number | undefined): string {
    const page = `${new URL(this.ctx.config.publicUrl).pathname.replace(/\/+$/, '')}${DRIVES_PAGE}`;
    return workspaceId === undefined ? page : withParams(page, { workspaceId: String(workspaceId) });
  }

  redirectUri(id: DriveProviderId): string {
    return `${this.ctx.config.publicUrl}/${id}/callback`;
  }

  private cookie(id: DriveProviderId, value: string, maxAge: number): string {
    return pathCookie(BINDING_COOKIE, value, { publicUrl: this.ctx.config.publicUrl, path: `/${id}/callback`, maxAge });
  }
}


/**
 * return_to must stay on this site: a path starting with exactly one /, without backslashes (browsers read
 * `/\evil.example` as `//evil.example`), resolving to the same origin. Answered normalised (path + query).
 */
export function localPath(raw: string): string {
  const refuse = () => appError('VALIDATION_ERROR', 'return_to must be a path of this site, starting with a single /', { field: 'return_to' });
  if (!raw.startsWith('/') || raw.startsWith('//') || raw.includes('\\')) throw refuse();
  const base = 'http://return-to.invalid';
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw refuse();
  }
  if (url.origin !== base) throw refuse();
  return `${url.pathname}${url.search}`;
}

function withParams(path: string, params: Record<string, string>): string {
  const url = new URL(path, 'http://return-to.invalid');
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return `${url.pathname}${url.search}`;
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
