import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SocialConfig } from '../../src/config.js';

/**
 * A stand-in for Google's OAuth 2.0 endpoints on 127.0.0.1, answering in
 * Google's documented JSON:
 * - GET /tokeninfo?access_token=  -> 200 {azp, aud, sub, scope, exp, expires_in, email, email_verified, access_type}
 *   (numbers and booleans as strings, as Google sends them); a bad or expired token -> 400
 *   {"error": "invalid_token", "error_description": "Invalid Value"}.
 * - GET /v1/userinfo (Authorization: Bearer) -> 200 {sub, name, given_name, family_name, picture, email,
 *   email_verified, locale}; a bad token -> 401 {"error": "invalid_request", "error_description": "Invalid Credentials"}.
 * - GET /o/oauth2/v2/auth (implicit flow, response_type=token) -> an account chooser page whose button
 *   redirects to redirect_uri#access_token=...&token_type=Bearer&expires_in=...&scope=...&state=...,
 *   or #error=access_denied&state=... when `deny` is set.
 */
export interface FakeAccount {
  sub: string;
  email: string;
  email_verified?: boolean;
  name?: string;
}

interface IssuedToken {
  account: FakeAccount;
  aud: string;
  azp: string;
  /** Unix seconds. */
  exp: number;
}

export interface FakeGoogle {
  readonly baseUrl: string;
  readonly clientId: string;
  /** The app's `social` config pointing at this fake. */
  readonly config: SocialConfig;
  /** Issues an access token for an account (aud/azp default to clientId, lifetime 3599 s). */
  issueToken(account: FakeAccount, options?: { aud?: string; azp?: string; expiresIn?: number }): string;
  /** Makes the account chooser sign in as this account (default: a generated one). */
  setAuthorizeAccount(account: FakeAccount): void;
  /** When set, the account chooser answers with this OAuth error instead of a token. */
  deny: { error: string; error_description: string } | null;
  /** When set, tokeninfo and userinfo answer this HTTP status with Google's error envelope (an outage). */
  outage: number | null;
  /** Count of tokeninfo and userinfo calls. */
  readonly calls: { tokeninfo: number; userinfo: number };
  close(): Promise<void>;
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers });
  res.end(JSON.stringify(body));
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export async function startFakeGoogle(options: { clientId?: string } = {}): Promise<FakeGoogle> {
  const clientId = options.clientId ?? `${randomBytes(6).toString('hex')}.apps.googleusercontent.com`;
  const tokens = new Map<string, IssuedToken>();
  const calls = { tokeninfo: 0, userinfo: 0 };
  let authorizeAccount: FakeAccount = { sub: '100000000000000000001', email: 'pat@example.test', email_verified: true, name: 'Pat Example' };

  const live = (token: string | null | undefined): IssuedToken | undefined => {
    const issued = token ? tokens.get(token) : undefined;
    return issued && issued.exp > Math.floor(Date.now() / 1000) ? issued : undefined;
  };

  const issueToken: FakeGoogle['issueToken'] = (account, opts = {}) => {
    const token = `ya29.${randomBytes(24).toString('base64url')}`;
    tokens.set(token, {
      account,
      aud: opts.aud ?? clientId,
      azp: opts.azp ?? opts.aud ?? clientId,
      exp: Math.floor(Date.now() / 1000) + (opts.expiresIn ?? 3599),
    });
    return token;
  };

  const fake: FakeGoogle = {
    baseUrl: '',
    clientId,
    config: { google: null },
    issueToken,
    setAuthorizeAccount: (account) => {
      authorizeAccount = account;
    },
    deny: null,
    outage: null,
    calls,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const outage = (res: ServerResponse): boolean => {
    if (fake.outage === null) return false;
    json(res, fake.outage, { error: { code: fake.outage, message: 'The service is currently unavailable.', status: 'UNAVAILABLE' } });
    return true;
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (url.pathname === '/tokeninfo') {
      calls.tokeninfo += 1;
      if (outage(res)) return;
      const issued = live(url.searchParams.get('access_token'));
      if (!issued) return json(res, 400, { error: 'invalid_token', error_description: 'Invalid Value' });
      const now = Math.floor(Date.now() / 1000);
      return json(res, 200, {
        azp: issued.azp,
        aud: issued.aud,
        sub: issued.account.sub,
        scope: 'https://www.googleapis.com/auth/userinfo.email https://www.googleapis.com/auth/userinfo.profile openid',
        exp: String(issued.exp),
        expires_in: String(issued.exp - now),
        email: issued.account.email,
        email_verified: String(issued.account.email_verified ?? true),
        access_type: 'online',
      });
    }
    if (url.pathname === '/v1/userinfo') {
      calls.userinfo += 1;
      if (outage(res)) return;
      const bearer = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
      const issued = live(bearer);
      if (!issued) {
        return json(res, 401, { error: 'invalid_request', error_description: 'Invalid Credentials' }, {
          'www-authenticate': 'Bearer realm="https://accounts.google.com/", error="invalid_token"',
        });
      }
      const { account } = issued;
      const [given, ...family] = (account.name ?? '').split(' ');
      return json(res, 200, {
        sub: account.sub,
        ...(account.name ? { name: account.name, given_name: given, family_name: family.join(' ') } : {}),
        picture: 'https://lh3.googleusercontent.com/a/default-user',
        email: account.email,
        email_verified: account.email_verified ?? true,
        locale: 'en',
      });
    }
    if (url.pathname === '/o/oauth2/v2/auth' || url.pathname === '/o/oauth2/v2/approve') {
      const redirectUri = url.searchParams.get('redirect_uri') ?? '';
      if (url.searchParams.get('client_id') !== clientId || !/^https?:\/\//.test(redirectUri)) {
        res.writeHead(400, { 'content-type': 'text/html' });
        return res.end('<h1>400. That’s an error.</h1><p>Error 400: invalid_request (client_id or redirect_uri)</p>');
      }
      const state = url.searchParams.get('state') ?? '';
      if (url.pathname === '/o/oauth2/v2/approve') {
        const fragment = fake.deny
          ? new URLSearchParams({ ...fake.deny, state })
          : new URLSearchParams({
              access_token: issueToken(authorizeAccount),
              token_type: 'Bearer',
              expires_in: '3599',
              scope: 'email profile openid',
              state,
            });
        res.writeHead(302, { location: `${redirectUri}#${fragment.toString()}` });
        return res.end();
      }
      const approve = new URL('/o/oauth2/v2/approve', fake.baseUrl);
      approve.search = url.search;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(
        `<!doctype html><meta charset="utf-8"><title>Sign in - Google Accounts</title>` +
          `<body style="font-family:sans-serif;display:grid;place-items:center;height:90vh"><main style="border:1px solid #dadce0;border-radius:8px;padding:40px;width:360px">` +
          `<h1 style="font-weight:400">Choose an account</h1><p>to continue to the DAM</p>` +
          `<a id="account" href="${escapeHtml(approve.toString())}" style="display:block;padding:12px;border-top:1px solid #dadce0">` +
          `${escapeHtml(authorizeAccount.name ?? '')}<br><small>${escapeHtml(authorizeAccount.email)}</small></a></main></body>`,
      );
    }
    json(res, 404, { error: { code: 404, message: 'Not Found', status: 'NOT_FOUND' } });
  };

  const server: Server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  Object.assign(fake, {
    baseUrl,
    config: {
      google: {
        clientId,
        authorizeUrl: `${baseUrl}/o/oauth2/v2/auth`,
        tokeninfoUrl: `${baseUrl}/tokeninfo`,
        userinfoUrl: `${baseUrl}/v1/userinfo`,
      },
    } satisfies SocialConfig,
  });
  return fake;
}
