import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The OAuth 2.0 authorization-server half of a fake drive provider (RFC 6749 authorization-code grant,
 * RFC 7636 PKCE, RFC 7009 revocation), shared by the Google Drive fake and the Dropbox and OneDrive fakes
 * to come. Each provider fake mounts it on its own server at its provider's paths and adds its API.
 *
 * - GET {authorizePath}: checks client_id, redirect_uri, response_type=code, code_challenge_method=S256 and
 *   the provider's required parameters (answering 400 like the providers' error pages when one is wrong), then
 *   redirects to redirect_uri?code=&state=[&iss=][&scope=] as the current account, or ?error=access_denied&state=
 *   when `deny` is set.
 * - POST {tokenPath} (form): client authentication in the body or Basic; grant_type=authorization_code (code
 *   single-use and bound to client and redirect_uri, code_verifier checked against the S256 challenge) and
 *   grant_type=refresh_token. Errors as RFC 6749 5.2: 400 {error: invalid_grant | invalid_request | unsupported_grant_type},
 *   401 {error: invalid_client}.
 * - POST {revokePath} (form `token`): revokes the whole grant (its access and refresh tokens); unknown: 400 invalid_token.
 */
export interface FakeAccount {
  /** The provider's account id (Google's permissionId). */
  id: string;
  email: string;
  name: string;
}

export interface FakeOAuthOptions {
  clientId?: string;
  clientSecret?: string;
  authorizePath: string;
  tokenPath: string;
  revokePath?: string;
  /** Sent as `iss` in the authorization response (RFC 9207), as Google does. */
  issuer?: string;
  /** Parameters the provider adds to its redirect back (Google: authuser, prompt), which the app must ignore. */
  callbackParams?: Record<string, string>;
  /** Authorization-request parameters the provider insists on (e.g. access_type=offline). */
  requiredParams?: Record<string, string>;
  /** Seconds an access token lives. */
  accessTokenTtl?: number;
  /** Whether a refresh answers a new refresh token (Microsoft) or none (Google). */
  rotateRefreshTokens?: boolean;
  /** Token-request parameters a grant must carry, by grant type (Microsoft: `scope` with refresh_token), else 400 invalid_request. */
  requiredTokenParams?: Partial<Record<'authorization_code' | 'refresh_token', string[]>>;
}

interface Grant {
  id: string;
  account: FakeAccount;
  scope: string;
  revoked: boolean;
}

interface PendingCode {
  grant: Grant;
  clientId: string;
  redirectUri: string;
  challenge: string;
  used: boolean;
  expiresAt: number;
}

const now = () => Math.floor(Date.now() / 1000);

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers });
  res.end(JSON.stringify(body));
}

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A server on 127.0.0.1 running `handler`; a handler that throws answers 500. */
export async function listen(
  handler: (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>,
): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake.invalid');
    handler(req, res, url).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { code: 500, message: String(err) } });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export class FakeOAuth {
  readonly clientId: string;
  readonly clientSecret: string | undefined;
  /** Who signs in at the authorize page. */
  account: FakeAccount = { id: '01234567890123456789', email: 'pat@example.test', name: 'Pat Example' };
  /** When set, the authorize page answers with this error instead of a code (the user declined). */
  deny: string | null = null;
  readonly calls = { authorize: 0, code: 0, refresh: 0, revoke: 0 };
  /** The last authorization request's parameters, as received. */
  lastAuthorize: URLSearchParams | null = null;
  private readonly codes = new Map<string, PendingCode>();
  private readonly access = new Map<string, { grant: Grant; expiresAt: number }>();
  private readonly refresh = new Map<string, Grant>();
  /** Every secret this fake ever issued (codes, access and refresh tokens): none may show up in our answers or logs. */
  readonly issued: string[] = [];

  constructor(private readonly options: FakeOAuthOptions) {
    this.clientId = options.clientId ?? `${randomBytes(6).toString('hex')}.apps.example.test`;
    this.clientSecret = options.clientSecret;
  }

  /** Answers the request when it is one of the authorization server's; false otherwise. */
  async handle(req: IncomingMessage, res: ServerResponse, path: string, url: URL): Promise<boolean> {
    if (req.method === 'GET' && path === this.options.authorizePath) {
      this.authorize(res, url.searchParams);
      return true;
    }
    if (req.method === 'POST' && path === this.options.tokenPath) {
      this.token(req, res, new URLSearchParams((await readBody(req)).toString('utf8')));
      return true;
    }
    if (req.method === 'POST' && this.options.revokePath && path === this.options.revokePath) {
      const form = new URLSearchParams((await readBody(req)).toString('utf8'));
      this.revoke(res, form.get('token') ?? url.searchParams.get('token') ?? '');
      return true;
    }
    return false;
  }

  /** The account of a live bearer token (`Authorization: Bearer ...`), or null. */
  authenticate(header: string | undefined): FakeAccount | null {
    const token = /^Bearer (.+)$/i.exec(header ?? '')?.[1];
    const entry = token ? this.access.get(token) : undefined;
    if (!entry || entry.grant.revoked || entry.expiresAt <= now()) return null;
    return entry.grant.account;
  }

  /** Every access token issued so far stops working now (as if its hour were up). */
  expireAccessTokens(): void {
    for (const entry of this.access.values()) entry.expiresAt = 0;
  }

  /** Every grant is revoked at the provider (the user removed the app): refreshes fail with invalid_grant. */
  revokeAllGrants(): void {
    for (const grant of this.refresh.values()) grant.revoked = true;
  }

  liveRefreshTokens(): number {
    return [...this.refresh.values()].filter((g) => !g.revoked).length;
  }

  /**
   * Revocation by bearer token rather than RFC 7009 (Dropbox's /2/auth/token/revoke): the whole grant of a live
   * access token goes, its refresh token with it. False when the token is not live (the caller answers 401).
   */
  revokeBearer(header: string | undefined): boolean {
    if (!this.authenticate(header)) return false;
    this.calls.revoke += 1;
    this.access.get(/^Bearer (.+)$/i.exec(header ?? '')![1]!)!.grant.revoked = true;
    return true;
  }

  private authorize(res: ServerResponse, q: URLSearchParams): void {
    this.calls.authorize += 1;
    this.lastAuthorize = q;
    const problem =
      (q.get('client_id') !== this.clientId && 'invalid_client: unknown client_id') ||
      (!q.get('redirect_uri') && 'invalid_request: redirect_uri missing') ||
      (q.get('response_type') !== 'code' && 'unsupported_response_type') ||
      (q.get('code_challenge_method') !== 'S256' && 'invalid_request: code_challenge_method must be S256') ||
      (!/^[A-Za-z0-9_-]{43}$/.test(q.get('code_challenge') ?? '') && 'invalid_request: code_challenge') ||
      Object.entries(this.options.requiredParams ?? {}).map(([k, v]) => (q.get(k) !== v ? `invalid_request: ${k} must be ${v}` : '')).find(Boolean);
    if (problem) {
      res.writeHead(400, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<h1>400. That's an error.</h1><p>${problem}</p>`);
      return;
    }
    const target = new URL(q.get('redirect_uri')!);
    if (q.get('state') !== null) target.searchParams.set('state', q.get('state')!);
    if (this.deny) {
      target.searchParams.set('error', this.deny);
    } else {
      const grant: Grant = { id: randomBytes(6).toString('hex'), account: { ...this.account }, scope: q.get('scope') ?? '', revoked: false };
      const code = `4/${randomBytes(24).toString('base64url')}`;
      this.issued.push(code);
      this.codes.set(code, { grant, clientId: this.clientId, redirectUri: q.get('redirect_uri')!, challenge: q.get('code_challenge')!, used: false, expiresAt: now() + 600 });
      target.searchParams.set('code', code);
      target.searchParams.set('scope', grant.scope);
    }
    if (this.options.issuer) target.searchParams.set('iss', this.options.issuer);
    for (const [key, value] of Object.entries(this.options.callbackParams ?? {})) target.searchParams.set(key, value);
    res.writeHead(302, { location: target.toString() });
    res.end();
  }

  private clientOf(req: IncomingMessage, form: URLSearchParams): { id: string | null; secret: string | null } {
    const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (basic) {
      const [id, secret] = Buffer.from(basic, 'base64').toString('utf8').split(':').map(decodeURIComponent);
      return { id: id ?? null, secret: secret ?? null };
    }
    return { id: form.get('client_id'), secret: form.get('client_secret') };
  }

  private token(req: IncomingMessage, res: ServerResponse, form: URLSearchParams): void {
    const client = this.clientOf(req, form);
    if (client.id !== this.clientId || (this.clientSecret !== undefined && client.secret !== this.clientSecret)) {
      sendJson(res, 401, { error: 'invalid_client', error_description: 'The OAuth client was not found.' });
      return;
    }
    const grantType = form.get('grant_type');
    const missing = (this.options.requiredTokenParams?.[grantType as 'refresh_token'] ?? []).find((name) => !form.get(name));
    if (missing) {
      sendJson(res, 400, { error: 'invalid_request', error_description: `The request body must contain the following parameter: '${missing}'.` });
      return;
    }
    if (grantType === 'authorization_code') {
      this.calls.code += 1;
      const pending = this.codes.get(form.get('code') ?? '');
      if (!pending || pending.used || pending.expiresAt <= now()) {
        sendJson(res, 400, { error: 'invalid_grant', error_description: 'Malformed auth code.' });
        return;
      }
      pending.used = true;
      if (pending.redirectUri !== form.get('redirect_uri')) {
        sendJson(res, 400, { error: 'redirect_uri_mismatch', error_description: 'Bad Request' });
        return;
      }
      const verifier = form.get('code_verifier');
      if (!verifier) {
        sendJson(res, 400, { error: 'invalid_request', error_description: 'code_verifier is missing' });
        return;
      }
      if (createHash('sha256').update(verifier).digest('base64url') !== pending.challenge) {
        sendJson(res, 400, { error: 'invalid_grant', error_description: 'Invalid code verifier.' });
        return;
      }
      const refreshToken = `1//${randomBytes(32).toString('base64url')}`;
      this.refresh.set(refreshToken, pending.grant);
      this.issued.push(refreshToken);
      sendJson(res, 200, { ...this.accessToken(pending.grant), refresh_token: refreshToken });
      return;
    }
    if (grantType === 'refresh_token') {
      this.calls.refresh += 1;
      const given = form.get('refresh_token') ?? '';
      const grant = this.refresh.get(given);
      if (!grant || grant.revoked) {
        sendJson(res, 400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
        return;
      }
      const answer: Record<string, unknown> = this.accessToken(grant);
      if (this.options.rotateRefreshTokens) {
        const next = `1//${randomBytes(32).toString('base64url')}`;
        this.refresh.set(next, grant);
        this.issued.push(next);
        answer.refresh_token = next;
      }
      sendJson(res, 200, answer);
      return;
    }
    sendJson(res, 400, { error: 'unsupported_grant_type', error_description: `Invalid grant_type: ${grantType}` });
  }

  private accessToken(grant: Grant): Record<string, unknown> {
    const token = `ya29.${randomBytes(32).toString('base64url')}`;
    const ttl = this.options.accessTokenTtl ?? 3599;
    this.access.set(token, { grant, expiresAt: now() + ttl });
    this.issued.push(token);
    return { access_token: token, expires_in: ttl, scope: grant.scope, token_type: 'Bearer' };
  }

  private revoke(res: ServerResponse, token: string): void {
    this.calls.revoke += 1;
    const grant = this.refresh.get(token) ?? this.access.get(token)?.grant;
    if (!grant || grant.revoked) {
      sendJson(res, 400, { error: 'invalid_token', error_description: 'Token expired or revoked' });
      return;
    }
    grant.revoked = true;
    sendJson(res, 200, {});
  }
}
