import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startTestApp, type TestApp } from './helpers/app.js';
import { dialects } from './helpers/databases.js';
import { startFakeGoogle, type FakeAccount, type FakeGoogle } from './helpers/fake-google.js';
import { registerUser } from './helpers/factories.js';

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

let seq = 0;
function account(overrides: Partial<FakeAccount> = {}): FakeAccount {
  seq += 1;
  return {
    sub: `1${randomBytes(8).readBigUInt64BE().toString().padStart(20, '0')}`,
    email: `social${seq}-${randomBytes(3).toString('hex')}@example.test`,
    email_verified: true,
    name: `Social User ${seq}`,
    ...overrides,
  };
}

const callback = (t: TestApp, payload: Record<string, unknown>) => t.request({ method: 'POST', url: '/auth/social/callback', payload });
const me = (t: TestApp, token: string) => t.request({ method: 'GET', url: '/auth/me', token });

describe('GET /auth/social/config', () => {
  it('says social login is off when no client id is configured', async () => {
    const t = await startTestApp();
    try {
      const res = await t.request({ method: 'GET', url: '/auth/social/config' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        success: true,
        data: { provider: 'google', client_id: null, authorize_url: null, registration_open: true },
      });
      const cb = await callback(t, { access_token: 'ya29.x', provider: 'google' });
      expect(cb.statusCode).toBe(400);
      expect(cb.json<ErrorBody>()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'provider' });
    } finally {
      await t.close();
    }
  });

  it('gives the implicit-flow sign-in URL of the configured client, without a token', async () => {
    const google = await startFakeGoogle();
    const t = await startTestApp({ config: { social: google.config, publicUrl: 'https://dam.example.test', allowRegistration: false } });
    try {
      const res = await t.request({ method: 'GET', url: '/auth/social/config' });
      expect(res.statusCode).toBe(200);
      const data = res.json<{ data: { provider: string; client_id: string; authorize_url: string; registration_open: boolean } }>().data;
      expect(data.provider).toBe('google');
      expect(data.client_id).toBe(google.clientId);
      // No user yet: the first account may always be created.
      expect(data.registration_open).toBe(true);
      const url = new URL(data.authorize_url);
      expect(`${url.origin}${url.pathname}`).toBe(google.config.google!.authorizeUrl);
      expect(url.searchParams.get('client_id')).toBe(google.clientId);
      expect(url.searchParams.get('redirect_uri')).toBe('https://dam.example.test/social-login');
      expect(url.searchParams.get('response_type')).toBe('token');
      expect(url.searchParams.get('scope')?.split(' ').sort()).toEqual(['email', 'openid', 'profile']);

      await registerUser(t);
      const closed = await t.request({ method: 'GET', url: '/auth/social/config' });
      expect(closed.json<{ data: { registration_open: boolean } }>().data.registration_open).toBe(false);
    } finally {
      await t.close();
      await google.close();
    }
  });
});

describe.each(dialects)('POST /auth/social/callback on %s', (dialect) => {
  let google: FakeGoogle;
  let t: TestApp;
  beforeAll(async () => {
    google = await startFakeGoogle();
    t = await startTestApp({ dialect, config: { social: google.config } });
  });
  afterAll(async () => {
    await t.close();
    await google.close();
  });

  it('creates a user with a personal workspace and answers {user, token, workspaces} (seed 2.4)', async () => {
    const acc = account({ email: `MixedCase${seq}@Example.test` });
    const res = await callback(t, { access_token: google.issueToken(acc), provider: 'google' });
    expect(res.statusCode).toBe(200);
    const body = res.json<AuthBody>();
    expect(Object.keys(body).sort()).toEqual(['token', 'user', 'workspaces']);
    expect(body.user).toEqual({ id: expect.any(Number) as number, email: acc.email.toLowerCase(), name: acc.name });
    expect(body.workspaces).toEqual([{ id: expect.any(Number) as number, name: `${acc.name}'s workspace`, role: 'admin' }]);

    const who = await me(t, body.token);
    expect(who.statusCode).toBe(200);
    expect(who.json<{ user: AuthBody['user'] }>().user.id).toBe(body.user.id);
    // A social-only account has no password to log in with.
    const row = await t.database.db.selectFrom('users').select('password_hash').where('id', '=', body.user.id).executeTakeFirstOrThrow();
    expect(row.password_hash).toBeNull();
  });

  it('finds the user again by provider subject, updating the name, without a second workspace', async () => {
    const acc = account();
    const first = (await callback(t, { access_token: google.issueToken(acc), provider: 'google' })).json<AuthBody>();
    const renamed = { ...acc, name: 'New Name', email: `changed-${acc.email}` };
    const res = await callback(t, { access_token: google.issueToken(renamed), provider: 'google' });
    expect(res.statusCode).toBe(200);
    const second = res.json<AuthBody>();
    expect(second.user.id).toBe(first.user.id);
    expect(second.user.name).toBe('New Name');
    expect(second.workspaces).toEqual(first.workspaces.map((w) => ({ ...w })));
    expect(second.token).not.toBe(first.token);
  });

  it('links a verified e-mail to the existing password account', async () => {
    const existing = await registerUser(t);
    const acc = account({ email: existing.user.email.toUpperCase() });
    const res = await callback(t, { access_token: google.issueToken(acc), provider: 'google' });
    expect(res.statusCode).toBe(200);
    const body = res.json<AuthBody>();
    expect(body.user.id).toBe(existing.user.id);
    expect(body.workspaces.map((w) => w.id)).toEqual(existing.workspaces.map((w) => w.id));
    // The password still works, and the link is by subject from now on.
    const login = await t.request({ method: 'POST', url: '/auth/login', payload: { email: existing.user.email, password: existing.password } });
    expect(login.statusCode).toBe(200);
    const again = await callback(t, { access_token: google.issueToken(acc), provider: 'google' });
    expect(again.json<AuthBody>().user.id).toBe(existing.user.id);
  });

  it('neither links nor creates an account for an unverified e-mail (403)', async () => {
    const existing = await registerUser(t);
    const unverified = account({ email: existing.user.email, email_verified: false });
    const res = await callback(t, { access_token: google.issueToken(unverified), provider: 'google' });
    expect(res.statusCode).toBe(403);
    expect(res.json<ErrorBody>().code).toBe('FORBIDDEN');
    const fresh = await callback(t, { access_token: google.issueToken(account({ email_verified: false })), provider: 'google' });
    expect(fresh.statusCode).toBe(403);
  });

  it('accepts a provider token once: the replay is 401 without asking Google again (seed 5.4)', async () => {
    const token = google.issueToken(account());
    expect((await callback(t, { access_token: token, provider: 'google' })).statusCode).toBe(200);
    const before = { ...google.calls };
    const replay = await callback(t, { access_token: token, provider: 'google' });
    expect(replay.statusCode).toBe(401);
    expect(replay.json<ErrorBody>()).toMatchObject({ code: 'SOCIAL_TOKEN_INVALID', error: expect.stringMatching(/already used/) as string });
    expect(google.calls).toEqual(before);
    // Only a hash is kept, never the token itself.
    const rows = await t.database.db.selectFrom('social_used_tokens').selectAll().execute();
    expect(rows.some((r) => r.token_hash.includes(token))).toBe(false);
    expect(rows.every((r) => /^[0-9a-f]{64}$/.test(r.token_hash))).toBe(true);
  });

  it('lets exactly one of two simultaneous exchanges of one token through', async () => {
    const token = google.issueToken(account());
    const results = await Promise.all([1, 2, 3].map(() => callback(t, { access_token: token, provider: 'google' })));
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 401, 401]);
  });

  it('answers 401 for a token Google does not know (tokeninfo 400 invalid_token)', async () => {
    const res = await callback(t, { access_token: 'ya29.not-a-real-token', provider: 'google' });
    expect(res.statusCode).toBe(401);
    expect(res.json<ErrorBody>()).toMatchObject({ code: 'SOCIAL_TOKEN_INVALID', error: expect.stringMatching(/Invalid Value/) as string });
  });

  it('answers 401 for a token issued to another application (aud and azp)', async () => {
    const res = await callback(t, { access_token: google.issueToken(account(), { aud: 'other.apps.googleusercontent.com' }), provider: 'google' });
    expect(res.statusCode).toBe(401);
    expect(res.json<ErrorBody>().error).toMatch(/another application/);
    // azp is ours while aud names another audience: Google's documented check accepts either.
    const azp = await callback(t, {
      access_token: google.issueToken(account(), { aud: 'other.apps.googleusercontent.com', azp: google.clientId }),
      provider: 'google',
    });
    expect(azp.statusCode).toBe(200);
  });

  it('answers 401 for a token that tokeninfo reports as expired by our clock, and forgets spent tokens once expired', async () => {
    const short = google.issueToken(account(), { expiresIn: 30 });
    const spent = google.issueToken(account(), { expiresIn: 3599 });
    expect((await callback(t, { access_token: spent, provider: 'google' })).statusCode).toBe(200);
    const countSpent = async () =>
      Number(
        (
          await t.database.db
            .selectFrom('social_used_tokens')
            .select((eb) => eb.fn.countAll<number | string>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await countSpent();
    t.advanceClock(7200);
    try {
      const res = await callback(t, { access_token: short, provider: 'google' });
      expect(res.statusCode).toBe(401);
      expect(res.json<ErrorBody>().error).toMatch(/expired/);
      expect(await countSpent()).toBeLessThan(before);
    } finally {
      t.advanceClock(-7200);
    }
  });

  it('answers 400 for a missing token, an empty token and an unknown provider', async () => {
    const missing = await callback(t, { provider: 'google' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json<ErrorBody>()).toMatchObject({ code: 'MISSING_PARAMETER', field: 'access_token' });
    const empty = await callback(t, { access_token: '', provider: 'google' });
    expect(empty.statusCode).toBe(400);
    const unknown = await callback(t, { access_token: google.issueToken(account()), provider: 'facebook' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json<ErrorBody>()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'provider' });
    // Issue #28: a spent token with surrounding whitespace, or outside the token alphabet, is not a new token.
    const spent = google.issueToken(account());
    expect((await callback(t, { access_token: spent, provider: 'google' })).statusCode).toBe(200);
    for (const variant of [` ${spent}`, `${spent}\n`, `${spent}\t`, `${spent} `, `ya29.a"b`, 'ya29.ä']) {
      const res = await callback(t, { access_token: variant, provider: 'google' });
      expect(res.statusCode, JSON.stringify(variant)).toBe(400);
      expect(res.json<ErrorBody>()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'access_token' });
    }
    const noProvider = await callback(t, { access_token: 'x' });
    expect(noProvider.statusCode).toBe(400);
    expect(noProvider.json<ErrorBody>().field).toBe('provider');
  });

  it('answers 502 when Google is down, and the token stays usable afterwards', async () => {
    const token = google.issueToken(account());
    google.outage = 503;
    try {
      const res = await callback(t, { access_token: token, provider: 'google' });
      expect(res.statusCode).toBe(502);
      expect(res.json<ErrorBody>().code).toBe('PROVIDER_ERROR');
    } finally {
      google.outage = null;
    }
    expect((await callback(t, { access_token: token, provider: 'google' })).statusCode).toBe(200);
  });

  it('creates no account while registration is closed, but still signs in linked and existing users', async () => {
    const closed = await startTestApp({ dialect, config: { social: google.config, allowRegistration: false } });
    try {
      // The first user of an instance may always register, through social login too, and becomes instance admin.
      const firstAcc = account();
      const first = await callback(closed, { access_token: google.issueToken(firstAcc), provider: 'google' });
      expect(first.statusCode).toBe(200);
      const row = await closed.database.db
        .selectFrom('users')
        .select('is_instance_admin')
        .where('id', '=', first.json<AuthBody>().user.id)
        .executeTakeFirstOrThrow();
      expect(row.is_instance_admin).toBe(1);

      const stranger = await callback(closed, { access_token: google.issueToken(account()), provider: 'google' });
      expect(stranger.statusCode).toBe(403);
      expect(stranger.json<ErrorBody>().code).toBe('REGISTRATION_CLOSED');
      const again = await callback(closed, { access_token: google.issueToken(firstAcc), provider: 'google' });
      expect(again.statusCode).toBe(200);
    } finally {
      await closed.close();
    }
  });
});

describe('POST /auth/social/callback when the provider misbehaves', () => {
  it('answers 502 when Google cannot be reached at all', async () => {
    const port = await freePort();
    const dead = `http://127.0.0.1:${port}`;
    const t = await startTestApp({
      config: {
        social: { google: { clientId: 'x', authorizeUrl: `${dead}/auth`, tokeninfoUrl: `${dead}/tokeninfo`, userinfoUrl: `${dead}/userinfo` } },
      },
    });
    try {
      const res = await callback(t, { access_token: 'ya29.whatever', provider: 'google' });
      expect(res.statusCode).toBe(502);
      expect(res.json<ErrorBody>()).toMatchObject({ code: 'PROVIDER_ERROR', error: expect.stringMatching(/could not be reached/) as string });
    } finally {
      await t.close();
    }
  });

  it('answers 502 when tokeninfo answers but userinfo cannot be reached', async () => {
    const google = await startFakeGoogle();
    const userinfoDown = `http://127.0.0.1:${await freePort()}/v1/userinfo`;
    const t = await startTestApp({ config: { social: { google: { ...google.config.google!, userinfoUrl: userinfoDown } } } });
    try {
      const res = await callback(t, { access_token: google.issueToken(account()), provider: 'google' });
      expect(res.statusCode).toBe(502);
    } finally {
      await t.close();
      await google.close();
    }
  });

  it('is rate limited per client address', async () => {
    const google = await startFakeGoogle();
    const t = await startTestApp({ config: { social: google.config, loginRateLimit: 2 } });
    try {
      const codes: number[] = [];
      for (let i = 0; i < 3; i += 1) codes.push((await callback(t, { access_token: `ya29.bad${i}`, provider: 'google' })).statusCode);
      expect(codes).toEqual([401, 401, 429]);
      const res = await callback(t, { access_token: 'ya29.bad', provider: 'google' });
      expect(res.json<ErrorBody>().code).toBe('RATE_LIMITED');
    } finally {
      await t.close();
      await google.close();
    }
  });
});
