import { SignJWT, decodeJwt } from 'jose';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';
import { dialects } from './helpers/databases.js';
import { registerUser, type Account } from './helpers/factories.js';

interface AuthBody {
  user: { id: number; email: string; name: string };
  token: string;
  workspaces: { id: number; name: string; role: string }[];
}
interface ErrorBody {
  error: string;
  code: string;
  field?: string;
}

const PASSWORD = 'correct horse battery';
/** The codes of a 400 for bad input: absent field, or present but invalid. */
const BAD_INPUT = ['MISSING_PARAMETER', 'VALIDATION_ERROR'];
let seq = 0;
const uniqueEmail = (prefix = 'user') => `${prefix}${++seq}-${Date.now().toString(36)}@example.test`;

function register(t: TestApp, payload: Record<string, unknown>, extra: { remoteAddress?: string } = {}) {
  return t.request({ method: 'POST', url: '/auth/register', payload, ...extra });
}

function login(t: TestApp, email: string, password: string, extra: { remoteAddress?: string; headers?: Record<string, string> } = {}) {
  return t.request({ method: 'POST', url: '/auth/login', payload: { email, password }, ...extra });
}

const me = (t: TestApp, token: string) => t.request({ method: 'GET', url: '/auth/me', token });

/** Replaces the character at `index` of a JWT segment by a different base64url character. */
function flipChar(token: string, segment: 0 | 1 | 2, index: number): string {
  const parts = token.split('.');
  const part = parts[segment]!;
  const c = part[index]!;
  parts[segment] = part.slice(0, index) + (c === 'A' ? 'B' : 'A') + part.slice(index + 1);
  return parts.join('.');
}

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe.each(dialects)('accounts and sessions on %s', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ dialect });
  });
  afterAll(() => t.close());

  describe('POST /auth/register', () => {
    it('creates the user, a session and a personal workspace where the user is admin', async () => {
      const email = uniqueEmail('reg');
      const res = await register(t, { email, password: PASSWORD, name: 'Ada Lovelace' });
      expect(res.statusCode).toBe(201);
      const body = res.json<AuthBody>();
      expect(Object.keys(body).sort()).toEqual(['token', 'user', 'workspaces']);
      expect(body.user).toEqual({ id: expect.any(Number) as number, email, name: 'Ada Lovelace' });
      expect(Number.isInteger(body.user.id)).toBe(true);
      expect(body.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
      expect(body.workspaces).toEqual([{ id: expect.any(Number) as number, name: expect.any(String) as string, role: 'admin' }]);

      // The token is immediately usable and the personal workspace is the user's.
      const who = await me(t, body.token);
      expect(who.statusCode).toBe(200);
      // GET /auth/me adds the account's phone number (issue #13) and its language (issue #29, null: the browser's) to the seed's user.
      expect(who.json()).toEqual({ user: { ...body.user, phone: null, is_instance_admin: true, must_change_password: false, has_password: true, locale: null }, workspaces: body.workspaces });
      const ws = await t.request({ method: 'GET', url: `/workspaces/${body.workspaces[0]!.id}`, token: body.token });
      expect(ws.statusCode).toBe(200);
      expect(ws.json()).toMatchObject({ success: true, data: { id: body.workspaces[0]!.id, role: 'admin' } });
    });

    it('gives every user their own personal workspace', async () => {
      const a = await registerUser(t);
      const b = await registerUser(t);
      expect(a.workspaceId).not.toBe(b.workspaceId);
      const list = await t.request({ method: 'GET', url: '/workspaces', token: b.token });
      expect(list.json<{ data: { id: number }[] }>().data.map((w) => w.id)).toEqual([b.workspaceId]);
      const other = await t.request({ method: 'GET', url: `/workspaces/${a.workspaceId}`, token: b.token });
      expect(other.statusCode).toBe(404);
    });

    it('stores the e-mail in lower case and refuses a duplicate whatever its case (409)', async () => {
      const email = uniqueEmail('Case.Sensitive');
      const first = await register(t, { email, password: PASSWORD, name: 'First' });
      expect(first.statusCode).toBe(201);
      expect(first.json<AuthBody>().user.email).toBe(email.toLowerCase());

      for (const variant of [email, email.toLowerCase(), email.toUpperCase()]) {
        const dup = await register(t, { email: variant, password: 'another password', name: 'Second' });
        expect(dup.statusCode).toBe(409);
        expect(dup.json<ErrorBody>()).toMatchObject({ code: 'EMAIL_TAKEN', error: expect.any(String) as string });
      }
      // The original account is untouched: its password still works, the intruder's does not.
      expect((await login(t, email, PASSWORD)).statusCode).toBe(200);
      expect((await login(t, email, 'another password')).statusCode).toBe(401);
    });

    it.each([
      ['email', { password: PASSWORD, name: 'N' }],
      ['email', { email: 'not-an-email', password: PASSWORD, name: 'N' }],
      ['password', { email: 'short@example.test', password: 'short', name: 'N' }],
      ['password', { email: 'nopass@example.test', name: 'N' }],
      ['name', { email: 'noname@example.test', password: PASSWORD }],
      ['name', { email: 'emptyname@example.test', password: PASSWORD, name: '' }],
    ])('answers 400 naming the field %s', async (field, payload) => {
      const res = await register(t, payload);
      expect(res.statusCode).toBe(400);
      const body = res.json<ErrorBody>();
      // An absent field is MISSING_PARAMETER, a present but invalid one VALIDATION_ERROR; both name it.
      expect(BAD_INPUT).toContain(body.code);
      expect(body.field).toBe(field);
      expect(body.error).toContain(field);
    });

    it('does not create an account on a validation error', async () => {
      const email = uniqueEmail('invalid');
      expect((await register(t, { email, password: 'short', name: 'N' })).statusCode).toBe(400);
      expect((await register(t, { email, password: PASSWORD, name: 'N' })).statusCode).toBe(201);
    });
  });

  describe('POST /auth/login', () => {
    let account: Account;
    beforeAll(async () => {
      account = await registerUser(t, { email: uniqueEmail('login'), name: 'Login User' });
    });

    it('answers the user, a new token and the workspaces', async () => {
      const res = await login(t, account.user.email, account.password);
      expect(res.statusCode).toBe(200);
      const body = res.json<AuthBody>();
      expect(body.user).toEqual(account.user);
      expect(body.workspaces).toEqual(account.workspaces);
      expect(body.token).not.toBe(account.token);
      expect((await me(t, body.token)).json<AuthBody>().user).toEqual({ ...account.user, phone: null, is_instance_admin: false, must_change_password: false, has_password: true, locale: null });
    });

    it('matches the e-mail case-insensitively', async () => {
      const res = await login(t, account.user.email.toUpperCase(), account.password);
      expect(res.statusCode).toBe(200);
      expect(res.json<AuthBody>().user.id).toBe(account.user.id);
    });

    it('answers 401 with the same body for a wrong password and an unknown e-mail', async () => {
      const wrongPassword = await login(t, account.user.email, 'wrong password');
      const unknown = await login(t, uniqueEmail('nobody'), account.password);
      expect(wrongPassword.statusCode).toBe(401);
      expect(unknown.statusCode).toBe(401);
      expect(wrongPassword.json()).toEqual({ error: expect.any(String) as string, code: 'INVALID_CREDENTIALS' });
      expect(unknown.json()).toEqual(wrongPassword.json());
      expect(wrongPassword.body).not.toContain('token');
    });

    it('answers 400 naming the field for a malformed body', async () => {
      const res = await t.request({ method: 'POST', url: '/auth/login', payload: { email: account.user.email } });
      expect(res.statusCode).toBe(400);
      const body = res.json<ErrorBody>();
      expect(BAD_INPUT).toContain(body.code);
      expect(body.field).toBe('password');
      expect(body.error).toContain('password');
    });
  });

  describe('sessions', () => {
    it('GET /auth/me answers the user and their workspaces', async () => {
      const a = await registerUser(t, { name: 'Me Myself' });
      const res = await me(t, a.token);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ user: { id: a.user.id, email: a.user.email, name: 'Me Myself', phone: null, is_instance_admin: false, must_change_password: false, has_password: true, locale: null }, workspaces: a.workspaces });
    });

    it('logout revokes only the current session', async () => {
      const a = await registerUser(t);
      const second = (await login(t, a.user.email, a.password)).json<AuthBody>().token;

      const out = await t.request({ method: 'POST', url: '/auth/logout', token: a.token });
      expect(out.statusCode).toBe(200);
      expect(out.json()).toEqual({ success: true, data: { logged_out: true } });

      for (const url of ['/auth/me', '/workspaces']) {
        const res = await t.request({ method: 'GET', url, token: a.token });
        expect(res.statusCode).toBe(401);
        expect(res.json<ErrorBody>().code).toBe('INVALID_TOKEN');
      }
      expect((await t.request({ method: 'POST', url: '/auth/logout', token: a.token })).statusCode).toBe(401);
      // The other session of the same user is still valid.
      expect((await me(t, second)).statusCode).toBe(200);
    });

    it('logout needs a token', async () => {
      const res = await t.request({ method: 'POST', url: '/auth/logout' });
      expect(res.statusCode).toBe(401);
      expect(res.json<ErrorBody>().code).toBe('UNAUTHORIZED');
    });
  });

  describe('bearer tokens', () => {
    let a: Account;
    let b: Account;
    beforeAll(async () => {
      a = await registerUser(t);
      b = await registerUser(t);
    });

    it('accepts a valid token (control for the refusals below)', async () => {
      expect((await me(t, a.token)).statusCode).toBe(200);
      const lower = await t.request({ method: 'GET', url: '/auth/me', headers: { authorization: `bearer ${a.token}` } });
      expect(lower.statusCode).toBe(200);
    });

    it.each(['/auth/me', '/workspaces', '/workspaces/1', '/workspaces/1/members'])('GET %s without a token answers 401', async (url) => {
      const res = await t.request({ method: 'GET', url });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ error: expect.any(String) as string, code: 'UNAUTHORIZED' });
    });

    it('refuses malformed Authorization headers with 401', async () => {
      const headers = [
        a.token, // no scheme
        `Token ${a.token}`,
        `Basic ${Buffer.from('a:b').toString('base64')}`,
        'Bearer',
        'Bearer ',
        `Bearer ${a.token} extra`,
        'Bearer not-a-jwt',
        'Bearer a.b.c',
      ];
      for (const authorization of headers) {
        const res = await t.request({ method: 'GET', url: '/auth/me', headers: { authorization } });
        expect(res.statusCode, authorization).toBe(401);
        expect(['UNAUTHORIZED', 'INVALID_TOKEN']).toContain(res.json<ErrorBody>().code);
      }
    });

    it('refuses a token with a flipped character in the signature', async () => {
      const signature = a.token.split('.')[2]!;
      for (const index of [0, Math.floor(signature.length / 2), signature.length - 2]) {
        const res = await me(t, flipChar(a.token, 2, index));
        expect(res.statusCode).toBe(401);
        expect(res.json<ErrorBody>().code).toBe('INVALID_TOKEN');
      }
    });

    it('refuses a token with a flipped character in the header or payload', async () => {
      for (const segment of [0, 1] as const) {
        const res = await me(t, flipChar(a.token, segment, 5));
        expect(res.statusCode).toBe(401);
      }
    });

    it("refuses a token whose payload was rewritten to another user's id", async () => {
      const [header, , signature] = a.token.split('.');
      const claims = decodeJwt(a.token);
      const forged = `${header}.${b64url({ ...claims, sub: String(b.user.id) })}.${signature}`;
      const res = await me(t, forged);
      expect(res.statusCode).toBe(401);
      expect(res.json<ErrorBody>().code).toBe('INVALID_TOKEN');
    });

    it('refuses a token signed with another secret, accepts the same claims signed with the right one', async () => {
      const claims = decodeJwt(a.token);
      const sign = (secret: string) =>
        new SignJWT({ ...claims }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(secret));

      const foreign = await me(t, await sign('another-secret-another-secret-0123456789abcdef'));
      expect(foreign.statusCode).toBe(401);
      expect(foreign.json<ErrorBody>().code).toBe('INVALID_TOKEN');

      const genuine = await me(t, await sign(t.config.jwtSecret!));
      expect(genuine.statusCode).toBe(200);
      expect(genuine.json<AuthBody>().user.id).toBe(a.user.id);
    });

    it('refuses an unsigned (alg: none) token', async () => {
      const claims = decodeJwt(a.token);
      const unsigned = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims)}.`;
      expect((await me(t, unsigned)).statusCode).toBe(401);
    });

  });
});

describe.each(dialects)('session expiry on %s', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ dialect, config: { sessionTtl: 600 } });
  });
  afterAll(() => t.close());

  it('accepts the token until sessionTtl has passed, then answers 401', async () => {
    const a = await registerUser(t);
    t.advanceClock(t.config.sessionTtl - 30);
    expect((await me(t, a.token)).statusCode).toBe(200);
    t.advanceClock(31);
    const expired = await me(t, a.token);
    expect(expired.statusCode).toBe(401);
    expect(expired.json<ErrorBody>().code).toBe('INVALID_TOKEN');
    expect((await t.request({ method: 'GET', url: '/workspaces', token: a.token })).statusCode).toBe(401);

    // Logging in again gives a fresh, working session.
    const again = await login(t, a.user.email, a.password);
    expect(again.statusCode).toBe(200);
    expect((await me(t, again.json<AuthBody>().token)).statusCode).toBe(200);
  });
});

describe.each(dialects)('registration policy on %s', (dialect) => {
  it('when closed, the first user may register (and is instance admin); later ones get 403', async () => {
    const t = await startTestApp({ dialect, config: { allowRegistration: false } });
    try {
      const first = await register(t, { email: uniqueEmail('first'), password: PASSWORD, name: 'First' });
      expect(first.statusCode).toBe(201);
      const firstUser = first.json<AuthBody>();
      expect(firstUser.workspaces).toEqual([expect.objectContaining({ role: 'admin' })]);

      const secondEmail = uniqueEmail('second');
      const second = await register(t, { email: secondEmail, password: PASSWORD, name: 'Second' });
      expect(second.statusCode).toBe(403);
      expect(second.json<ErrorBody>()).toMatchObject({ code: 'REGISTRATION_CLOSED', error: expect.any(String) as string });

      // The refused account does not exist; the first user's account works as usual.
      expect((await login(t, secondEmail, PASSWORD)).statusCode).toBe(401);
      expect((await login(t, firstUser.user.email, PASSWORD)).statusCode).toBe(200);

      // Not visible through the API: the first user is flagged instance admin in the database.
      const row = await t.database.db.selectFrom('users').select('is_instance_admin').where('id', '=', firstUser.user.id).executeTakeFirstOrThrow();
      expect(row.is_instance_admin).toBe(1);
    } finally {
      await t.close();
    }
  });

  it.each([1, 2, 3])('when closed, of several simultaneous first registrations exactly one succeeds (round %i)', async () => {
    const t = await startTestApp({ dialect, config: { allowRegistration: false } });
    try {
      const results = await Promise.all(
        [1, 2, 3, 4, 5, 6].map((i) => register(t, { email: uniqueEmail(`race${i}-`), password: PASSWORD, name: `Racer ${i}` })),
      );
      expect(results.map((r) => r.statusCode).sort()).toEqual([201, 403, 403, 403, 403, 403]);
      const admins = await t.database.db.selectFrom('users').select('id').where('is_instance_admin', '=', 1).execute();
      expect(admins).toHaveLength(1);
    } finally {
      await t.close();
    }
  });

  /**
   * Deterministic version of the races above: a registration starts while another account's
   * insert is still uncommitted. It must wait for it and then see it, on both databases.
   */
  async function registerDuring(t: TestApp, earlyEmail: string, payload: Record<string, unknown>) {
    let pending: Promise<LightMyRequestResponse> | undefined;
    await t.database.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('users')
        .values({ email: earlyEmail, name: 'Early', password_hash: null, is_instance_admin: 1, created_at: 0, modified_at: 0 })
        .execute();
      pending = register(t, payload);
      // Let the registration reach the database while this transaction is still open.
      await new Promise((resolve) => setTimeout(resolve, 300));
    });
    return pending!;
  }

  it('a registration overlapping an uncommitted first user is refused once that one commits (closed instance)', async () => {
    const t = await startTestApp({ dialect, config: { allowRegistration: false } });
    try {
      const res = await registerDuring(t, uniqueEmail('early'), { email: uniqueEmail('late'), password: PASSWORD, name: 'Late' });
      expect(res.statusCode).toBe(403);
      expect(res.json<ErrorBody>().code).toBe('REGISTRATION_CLOSED');
      const admins = await t.database.db.selectFrom('users').select('id').where('is_instance_admin', '=', 1).execute();
      expect(admins).toHaveLength(1);
    } finally {
      await t.close();
    }
  });

  it('a registration overlapping an uncommitted one with the same e-mail answers 409', async () => {
    const t = await startTestApp({ dialect });
    try {
      const email = uniqueEmail('overlap');
      const res = await registerDuring(t, email, { email, password: PASSWORD, name: 'Late' });
      expect(res.statusCode).toBe(409);
      expect(res.json<ErrorBody>().code).toBe('EMAIL_TAKEN');
    } finally {
      await t.close();
    }
  });

  it('when open, the second user is a regular user (not instance admin)', async () => {
    const t = await startTestApp({ dialect, config: { allowRegistration: true } });
    try {
      await registerUser(t);
      const second = await registerUser(t);
      const row = await t.database.db.selectFrom('users').select('is_instance_admin').where('id', '=', second.user.id).executeTakeFirstOrThrow();
      expect(row.is_instance_admin).toBe(0);
    } finally {
      await t.close();
    }
  });

  it.each([1, 2, 3])('simultaneous registrations of one e-mail create one account; the others get 409 (round %i)', async () => {
    const t = await startTestApp({ dialect });
    try {
      const email = uniqueEmail('twin');
      const results = await Promise.all([1, 2, 3, 4, 5, 6].map(() => register(t, { email, password: PASSWORD, name: 'Twin' })));
      expect(results.map((r) => r.statusCode).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    } finally {
      await t.close();
    }
  });
});

describe('login rate limit', () => {
  const LIMIT = 3;
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ config: { loginRateLimit: LIMIT, loginRateWindowMs: 60_000 } });
  });
  afterAll(() => t.close());

  // Registration is limited per address too: register each account from its own address.
  let registrations = 0;
  const newAccount = async () => {
    const email = uniqueEmail('limited');
    registrations += 1;
    const res = await register(t, { email, password: PASSWORD, name: 'Limited' }, { remoteAddress: `100.64.0.${registrations}` });
    expect(res.statusCode).toBe(201);
    return { email, password: PASSWORD };
  };

  const expectRateLimited = (res: { statusCode: number; json: <T>() => T }) => {
    expect(res.statusCode).toBe(429);
    expect(res.json()).toEqual({ error: expect.any(String) as string, code: 'RATE_LIMITED' });
  };

  it('per address: the (limit+1)-th attempt from one address is 429, even with the right password', async () => {
    const victim = await newAccount();
    const ip = '198.51.100.1';
    for (let i = 0; i < LIMIT; i += 1) {
      // Different accounts each time, so only the address limit can trigger.
      const res = await login(t, uniqueEmail('ipcount'), 'wrong password', { remoteAddress: ip });
      expect(res.statusCode).toBe(401);
    }
    expectRateLimited(await login(t, victim.email, victim.password, { remoteAddress: ip }));
    // Another address is not affected.
    expect((await login(t, victim.email, victim.password, { remoteAddress: '198.51.100.2' })).statusCode).toBe(200);
  });

  it('per account: failures from many addresses slow the account down but never keep its owner out (issue #28)', async () => {
    const victim = await newAccount();
    for (let i = 0; i < LIMIT + 2; i += 1) {
      const res = await login(t, victim.email, 'wrong password', { remoteAddress: `203.0.113.${10 + i}` });
      expect(res.statusCode).toBe(401);
    }
    // A fresh address, the right password, under another case of its e-mail (the same account): held back, then in.
    const started = Date.now();
    expect((await login(t, victim.email.toUpperCase(), victim.password, { remoteAddress: '203.0.113.99' })).statusCode).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    // Other accounts are not affected.
    const other = await newAccount();
    expect((await login(t, other.email, other.password, { remoteAddress: '203.0.113.97' })).statusCode).toBe(200);
  });

  it('per address honours X-Forwarded-For (trustProxy)', async () => {
    const proxy = '10.9.9.9';
    const client = '192.0.2.50';
    for (let i = 0; i < LIMIT; i += 1) {
      const res = await login(t, uniqueEmail('xff'), 'wrong password', { remoteAddress: proxy, headers: { 'x-forwarded-for': client } });
      expect(res.statusCode).toBe(401);
    }
    expectRateLimited(await login(t, uniqueEmail('xff'), 'wrong password', { remoteAddress: proxy, headers: { 'x-forwarded-for': client } }));
    // Another client behind the same proxy has its own count.
    const other = await newAccount();
    const res = await login(t, other.email, other.password, { remoteAddress: proxy, headers: { 'x-forwarded-for': '192.0.2.51' } });
    expect(res.statusCode).toBe(200);
  });

  it('believes only the X-Forwarded-For entry its proxy wrote, not what the client put before it (issue #28)', async () => {
    // DAM_TRUST_PROXY=1 (the tests' setting, what `true` means): the rightmost entry is the client.
    for (let i = 0; i < LIMIT; i += 1) {
      const forged = { 'x-forwarded-for': `198.51.100.${100 + i}, 203.0.113.250` };
      expect((await login(t, uniqueEmail('forged'), 'wrong password', { remoteAddress: '10.9.9.10', headers: forged })).statusCode).toBe(401);
    }
    expectRateLimited(await login(t, uniqueEmail('forged'), 'wrong password', { remoteAddress: '10.9.9.10', headers: { 'x-forwarded-for': '198.51.100.200, 203.0.113.250' } }));
  });

  it('counts an IPv6 /64 as one address, and an IPv4-mapped address as its IPv4 address (issue #28)', async () => {
    for (let i = 0; i < LIMIT; i += 1) {
      const from = { 'x-forwarded-for': `2001:db8:7:8::${(i + 1).toString(16)}` };
      expect((await login(t, uniqueEmail('v6'), 'wrong password', { remoteAddress: '10.9.9.11', headers: from })).statusCode).toBe(401);
    }
    expectRateLimited(await login(t, uniqueEmail('v6'), 'wrong password', { remoteAddress: '10.9.9.11', headers: { 'x-forwarded-for': '2001:db8:7:8:abcd::1' } }));
    const elsewhere = await login(t, uniqueEmail('v6'), 'wrong password', { remoteAddress: '10.9.9.11', headers: { 'x-forwarded-for': '2001:db8:7:9::1' } });
    expect(elsewhere.statusCode).toBe(401);
    for (let i = 0; i < LIMIT; i += 1) {
      expect((await login(t, uniqueEmail('mapped'), 'wrong password', { remoteAddress: '::ffff:192.0.2.77' })).statusCode).toBe(401);
    }
    expectRateLimited(await login(t, uniqueEmail('mapped'), 'wrong password', { remoteAddress: '192.0.2.77' }));
  });
});
