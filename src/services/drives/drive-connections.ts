import type { AppContext } from '../../context.js';
import { AppError, appError } from '../../errors.js';
import { configuredDrives } from '../../drives/registry.js';
import { SealBroken, TokenCipher } from '../../drives/token-cipher.js';
import {
  DriveAuthExpired,
  DriveBadInput,
  DriveGrantRefused,
  DriveItemNotFound,
  DriveProviderError,
  DriveRateLimited,
  type DriveAccount,
  type DriveProvider,
  type DriveProviderId,
  type DriveTokens,
} from '../../drives/types.js';
import * as repo from '../../repositories/drives.js';

/** An access token this close to its expiry is refreshed before use rather than after a 401. */
const REFRESH_MARGIN_SECONDS = 60;

/**
 * The caller's drive connections and their tokens (issue #16). Tokens are sealed with AES-256-GCM under a key
 * derived from the instance secret (src/drives/token-cipher.ts), bound to the row's user, provider and column,
 * and opened only to make a provider call; they are never answered or logged.
 *
 * `withToken` runs a provider call with a live access token: refreshed first when it is about to expire, and
 * once more when the provider answers 401 anyway (revoked early, clock skew). A refresh the provider refuses
 * marks the connection `reauth_required`, and every later call answers 409 DRIVE_REAUTH_REQUIRED until the user
 * connects again. Concurrent refreshes of one connection in this process share one request.
 */
export class DriveConnections {
  readonly providers: Map<DriveProviderId, DriveProvider>;
  private readonly cipher: TokenCipher;
  private readonly refreshing = new Map<number, Promise<{ token: string; sealed: Sealed }>>();

  constructor(private readonly ctx: AppContext) {
    this.providers = configuredDrives(ctx.config.drives);
    this.cipher = new TokenCipher(ctx.secrets, 'tokens');
  }

  /** The configured provider, or 404 DRIVE_NOT_CONFIGURED. */
  provider(id: DriveProviderId): DriveProvider {
    const provider = this.providers.get(id);
    if (!provider) throw appError('DRIVE_NOT_CONFIGURED', `${id} is not configured on this instance`, { provider: id });
    return provider;
  }

  /** The caller's usable connection, or 409 (not connected; needs re-authorisation). */
  async connection(userId: number, provider: DriveProvider): Promise<repo.DriveConnectionRecord> {
    const conn = await repo.findConnection(this.ctx.db, userId, provider.id);
    if (!conn) throw appError('DRIVE_NOT_CONNECTED', `Connect ${provider.name} first (GET /${provider.id}/auth)`, { provider: provider.id });
    if (conn.status === 'reauth_required') throw reauthRequired(provider, conn.status_note);
    return conn;
  }

  async save(userId: number, provider: DriveProvider, account: DriveAccount, tokens: DriveTokens): Promise<repo.DriveConnectionRecord> {
    const now = this.ctx.now();
    return repo.upsertConnection(
      this.ctx.db,
      {
        user_id: userId,
        provider: provider.id,
        account_id: account.id,
        account_email: account.email,
        account_name: account.name,
        scopes: tokens.scopes.join(' '),
        ...this.sealTokens(userId, provider.id, tokens),
      },
      now,
    );
  }

  /** Revokes the grant where the provider can (its failure does not keep the connection), then deletes the row. */
  async remove(userId: number, provider: DriveProvider): Promise<boolean> {
    const conn = await repo.findConnection(this.ctx.db, userId, provider.id);
    if (!conn) return false;
    let revoked = true;
    try {
      await provider.revoke({ accessToken: this.open(conn, 'access'), refreshToken: conn.refresh_token ? this.open(conn, 'refresh') : null });
    } catch {
      // A grant the provider already dropped, a provider that cannot be reached, tokens that no longer open:
      // the connection goes anyway.
      revoked = false;
    }
    await repo.deleteConnection(this.ctx.db, conn.id);
    return revoked;
  }

  /** Runs `call` with a live access token of the connection (see the class comment). Provider errors come out as they are. */
  async withToken<T>(conn: repo.DriveConnectionRecord, provider: DriveProvider, call: (accessToken: string) => Promise<T>): Promise<T> {
    const expiring = conn.expires_at !== null && conn.expires_at <= this.ctx.now() + REFRESH_MARGIN_SECONDS;
    const token = expiring ? await this.refresh(conn, provider) : await this.openOrReauth(conn, provider, 'access');
    try {
      return await call(token);
    } catch (err) {
      if (!(err instanceof DriveAuthExpired)) throw err;
    }
    const refreshed = await this.refresh(conn, provider);
    try {
      return await call(refreshed);
    } catch (err) {
      if (!(err instanceof DriveAuthExpired)) throw err;
      await repo.markReauthRequired(this.ctx.db, conn.id, 'A freshly refreshed access token was refused', this.ctx.now());
      throw reauthRequired(provider, err.message);
    }
  }

  /**
   * A new access token for the connection; `conn` is updated in place with the sealed tokens, so a long-running
   * caller (an import) keeps using the fresh token rather than meeting a 401 on every call.
   */
  private async refresh(conn: repo.DriveConnectionRecord, provider: DriveProvider): Promise<string> {
    let running = this.refreshing.get(conn.id);
    if (!running) {
      running = this.doRefresh(conn, provider).finally(() => this.refreshing.delete(conn.id));
      this.refreshing.set(conn.id, running);
    }
    const { token, sealed } = await running;
    Object.assign(conn, sealed);
    return token;
  }

  private async doRefresh(stale: repo.DriveConnectionRecord, provider: DriveProvider): Promise<{ token: string; sealed: Sealed }> {
    const { db } = this.ctx;
    const conn = await repo.findConnection(db, stale.user_id, provider.id);
    if (!conn || conn.id !== stale.id) throw appError('DRIVE_NOT_CONNECTED', `${provider.name} was disconnected meanwhile`, { provider: provider.id });
    if (conn.status === 'reauth_required') throw reauthRequired(provider, conn.status_note);
    const now = this.ctx.now();
    // Another request (or process) refreshed it since `stale` was read: use its token.
    if (conn.access_token !== stale.access_token && (conn.expires_at === null || conn.expires_at > now + REFRESH_MARGIN_SECONDS)) {
      return { token: this.open(conn, 'access'), sealed: { access_token: conn.access_token, refresh_token: conn.refresh_token, expires_at: conn.expires_at } };
    }
    if (!conn.refresh_token) {
      const note = `${provider.name} issued no refresh token and the access token expired`;
      await repo.markReauthRequired(db, conn.id, note, now);
      throw reauthRequired(provider, note);
    }
    const refreshToken = await this.openOrReauth(conn, provider, 'refresh');
    let tokens: DriveTokens;
    try {
      tokens = await provider.refresh(refreshToken);
    } catch (err) {
      if (!(err instanceof DriveGrantRefused)) throw err;
      await repo.markReauthRequired(db, conn.id, err.message, this.ctx.now());
      throw reauthRequired(provider, err.message);
    }
    const sealed = this.sealTokens(conn.user_id, provider.id, tokens);
    await repo.updateTokens(db, conn.id, conn.access_token, sealed, this.ctx.now());
    return { token: tokens.accessToken, sealed };
  }

  private sealTokens(userId: number, provider: DriveProviderId, tokens: DriveTokens): Sealed {
    return {
      access_token: this.cipher.seal(tokens.accessToken, tokenContext(userId, provider, 'access')),
      refresh_token: tokens.refreshToken === null ? null : this.cipher.seal(tokens.refreshToken, tokenContext(userId, provider, 'refresh')),
      expires_at: tokens.expiresIn === null ? null : this.ctx.now() + tokens.expiresIn,
    };
  }

  /**
   * A stored token that no longer opens (the instance secret changed, or the row was tampered with) cannot be
   * used or refreshed: the connection needs re-authorisation, as when the provider refuses the grant.
   */
  private async openOrReauth(conn: repo.DriveConnectionRecord, provider: DriveProvider, which: 'access' | 'refresh'): Promise<string> {
    try {
      return this.open(conn, which);
    } catch (err) {
      if (!(err instanceof SealBroken)) throw err;
      const note = 'The stored tokens cannot be decrypted (was the instance secret changed?)';
      await repo.markReauthRequired(this.ctx.db, conn.id, note, this.ctx.now());
      throw reauthRequired(provider, note);
    }
  }

  private open(conn: repo.DriveConnectionRecord, which: 'access' | 'refresh'): string {
    const sealed = which === 'access' ? conn.access_token : conn.refresh_token;
    if (sealed === null) throw new Error(`connection ${conn.id} has no ${which} token`);
    return this.cipher.open(sealed, tokenContext(conn.user_id, conn.provider, which));
  }
}

type Sealed = Pick<repo.DriveConnectionRecord, 'access_token' | 'refresh_token' | 'expires_at'>;

const tokenContext = (userId: number, provider: string, which: 'access' | 'refresh') => `connection:${userId}:${provider}:${which}`;

function reauthRequired(provider: DriveProvider, note: string | null): AppError {
  return appError('DRIVE_REAUTH_REQUIRED', `Connect ${provider.name} again: ${note ?? 'the stored authorisation is no longer valid'}`, {
    provider: provider.id,
  });
}

/**
 * A provider failure as an answer of the API: 404 for a missing item, 400 for an id of the wrong shape,
 * 502 DRIVE_PROVIDER_ERROR with the provider's message for everything else (rate limits included, with
 * `retry_after` when the provider said). AppErrors pass through.
 */
export function driveAppError(err: unknown, provider: DriveProvider): unknown {
  if (err instanceof AppError) return err;
  if (err instanceof DriveItemNotFound) return appError('NOT_FOUND', `Not found in ${provider.name}: ${err.message}`);
  if (err instanceof DriveBadInput) return appError('VALIDATION_ERROR', err.message, { field: err.field });
  if (err instanceof DriveRateLimited) {
    return appError('DRIVE_PROVIDER_ERROR', err.message, { provider: provider.id, provider_status: 429, ...(err.retryAfter !== null ? { retry_after: err.retryAfter } : {}) });
  }
  if (err instanceof DriveProviderError || err instanceof DriveGrantRefused) {
    return appError('DRIVE_PROVIDER_ERROR', err.message, { provider: provider.id, provider_status: err instanceof DriveProviderError ? err.status : 400 });
  }
  return err;
}
