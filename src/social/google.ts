import type { SocialConfig } from '../config.js';
import { ProviderUnavailable, TokenRejected, type IdentityProvider, type ProviderIdentity } from './provider.js';

type GoogleConfig = NonNullable<SocialConfig['google']>;

const TIMEOUT_MS = 5000;

/** tokeninfo answers with strings for numbers and booleans: {"aud": "...", "exp": "1700000000", "email_verified": "true"}. */
interface TokenInfo {
  aud?: unknown;
  azp?: unknown;
  sub?: unknown;
  exp?: unknown;
  expires_in?: unknown;
}

interface UserInfo {
  sub?: unknown;
  email?: unknown;
  email_verified?: unknown;
  name?: unknown;
  given_name?: unknown;
}

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

/**
 * Google as an identity provider for tokens from its OAuth 2.0 implicit flow:
 * tokeninfo (`?access_token=`) proves the token is live and ours (aud or azp is
 * our client id), then the OpenID Connect userinfo endpoint (bearer) gives the
 * profile. Google answers a bad or expired token with 400
 * {"error": "invalid_token", "error_description": "Invalid Value"} on tokeninfo
 * and 401 {"error": "invalid_request", ...} on userinfo; anything else that is
 * not a 200 means Google itself is in trouble.
 */
export class GoogleProvider implements IdentityProvider {
  readonly name = 'google';

  constructor(private readonly config: GoogleConfig) {}

  async verify(accessToken: string, now: number): Promise<ProviderIdentity> {
    const url = new URL(this.config.tokeninfoUrl);
    url.searchParams.set('access_token', accessToken);
    const info = await this.getJson<TokenInfo>(url, {}, 'tokeninfo');
    const subject = text(info.sub);
    const exp = Number(text(info.exp) ?? (typeof info.exp === 'number' ? info.exp : NaN));
    if (!subject || !Number.isFinite(exp)) throw new ProviderUnavailable('Google tokeninfo answered without sub or exp');
    if (exp <= now) throw new TokenRejected('The Google token has expired');
    if (info.aud !== this.config.clientId && info.azp !== this.config.clientId) {
      throw new TokenRejected('The Google token was issued to another application');
    }

    const profile = await this.getJson<UserInfo>(new URL(this.config.userinfoUrl), { authorization: `Bearer ${accessToken}` }, 'userinfo');
    if (text(profile.sub) !== subject) throw new TokenRejected('Google userinfo names another account than tokeninfo');
    return {
      subject,
      email: text(profile.email)?.toLowerCase() ?? null,
      emailVerified: profile.email_verified === true || profile.email_verified === 'true',
      name: text(profile.name) ?? text(profile.given_name),
      expiresAt: Math.floor(exp),
    };
  }

  private async getJson<T>(url: URL, headers: Record<string, string>, what: string): Promise<T> {
    let res: Response;
    try {
      res = await fetch(url, { headers: { accept: 'application/json', ...headers }, signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (err) {
      throw new ProviderUnavailable(`Google ${what} could not be reached: ${(err as Error).message}`);
    }
    const body = await res.text().catch(() => '');
    if (res.status === 400 || res.status === 401 || res.status === 403) {
      throw new TokenRejected(`Google ${what} refused the token: ${describeError(body) ?? res.status}`);
    }
    if (!res.ok) throw new ProviderUnavailable(`Google ${what} answered ${res.status}`);
    try {
      const parsed: unknown = JSON.parse(body);
      if (parsed && typeof parsed === 'object') return parsed as T;
    } catch {
      // fall through
    }
    throw new ProviderUnavailable(`Google ${what} answered something that is not a JSON object`);
  }
}

function describeError(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { error?: unknown; error_description?: unknown };
    return [parsed.error, parsed.error_description].filter((v) => typeof v === 'string').join(': ') || undefined;
  } catch {
    return undefined;
  }
}
