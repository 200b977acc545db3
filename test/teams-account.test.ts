import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';
import { dialects } from './helpers/databases.js';
import { registerUser, type Account } from './helpers/factories.js';
import { startFakeGoogle, type FakeGoogle } from './helpers/fake-google.js';
import { dataOf, expectError, login, me, PASSWORD, uniqueEmail, type AuthBody, type SessionView } from './helpers/teams.js';

/** docs/features/teams.md "Own account" (password, sessions; forgotten passwords without SMTP) through the HTTP API. test/teams-mail.test.ts has the e-mailed reset. */

const DAY = 86_400;
const CHROME_MAC = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const FIREFOX_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0';
const SAFARI_IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1';

const changePassword = (t: TestApp, token: string, payload: Record<string, unknown>, extra: { remoteAddress?: string } = {}) =>
  t.request({ method: 'POST', url: '/auth/password', token, payload, ...extra });
const sessions = async (t: TestApp, token: string) => dataOf<SessionView[]>(await t.request({ method: 'GET', url: '/auth/sessions', token }));

describe.each(dialects)('own account on %s', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ dialect, config: { sessionTtl: 30 * DAY } });
    await registerUser(t, { name: 'First Admin' });
  });
  afterAll(() => t.close());

  const signIn = async (a: Account, userAgent?: string, remoteAddress?: string) => {
    const res = await login(t, a.user.email, a.password, { ...(userAgent ? { headers: { 'user-agent': userAgent } } : {}), ...(remoteAddress ? { remoteAddress } : {}) });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<AuthBody>().token;
  };

  describe('POST /auth/password', () => {
    it('needs the right current password (400 naming current_password), and changes nothing otherwise', async () => {
      const a = await registerUser(t);
      const other = await signIn(a);
      expectError(await changePassword(t, a.token, { current_password: 'wrong password', new_password: 'brand new password' }), 400, 'VALIDATION_ERROR', 'current_password');
      expectError(await changePassword(t, a.token, { new_password: 'brand new password' }), 400, 'VALIDATION_ERROR', 'current_password');
      const short = await changePassword(t, a.token, { current_password: a.password, new_password: 'short' });
      expect(short.statusCode).toBe(400);
      expect(short.json<{ field?: string }>().field).toBe('new_password');
      // Nothing changed: the old password signs in, the other session is alive.
      expect((await login(t, a.user.email, a.password)).statusCode).toBe(200);
      expect((await login(t, a.user.email, 'brand new password')).statusCode).toBe(401);
      expect((await me(t, other)).statusCode).toBe(200);
      expectError(await t.request({ method: 'POST', url: '/auth/password', payload: { current_password: a.password, new_password: 'brand new password' } }), 401, 'UNAUTHORIZED');
    });

    it('changes it, ends every other session and keeps the current one', async () => {
      const a = await registerUser(t);
      const second = await signIn(a);
      const third = await signIn(a);
      const res = await changePassword(t, a.token, { current_password: a.password, new_password: 'brand new password' });
      // The two other sessions (registration's session is the current one).
      expect(dataOf<unknown>(res)).toEqual({ changed: true, ended_sessions: 2 });
      expect((await me(t, a.token)).statusCode).toBe(200);
      for (const token of [second, third]) expectError(await me(t, token), 401, 'INVALID_TOKEN');
      expect((await sessions(t, a.token)).map((s) => s.current)).toEqual([true]);
      expect((await login(t, a.user.email, 'brand new password')).statusCode).toBe(200);
      expectError(await login(t, a.user.email, a.password), 401, 'INVALID_CREDENTIALS');
    });
  });

  describe('sessions', () => {
    it('lists the sessions newest first with the device from the User-Agent, the address and which is current', async () => {
      const a = await registerUser(t);
      t.advanceClock(1);
      const mac = await signIn(a, CHROME_MAC, '203.0.113.10');
      t.advanceClock(1);
      const windows = await signIn(a, FIREFOX_WINDOWS, '198.51.100.20');
      t.advanceClock(1);
      const phone = await signIn(a, SAFARI_IPHONE, '192.0.2.30');
      t.advanceClock(-3);

      const list = await sessions(t, windows);
      expect(list).toHaveLength(4);
      expect(list.map((s) => s.device)).toEqual(['Mobile Safari 17 on iOS', 'Firefox 121 on Windows', 'Chrome 120 on Mac OS', expect.any(String)]);
      expect(list.map((s) => s.ip)).toEqual(['192.0.2.30', '198.51.100.20', '203.0.113.10', '127.0.0.1']);
      expect(list.map((s) => s.current)).toEqual([false, true, false, false]);
      const created = list.map((s) => s.created_at);
      expect(created).toEqual([...created].sort((x, y) => y - x));
      for (const s of list) {
        expect(s).toEqual({
          id: expect.stringMatching(/^[0-9a-f-]{36}$/) as string,
          current: expect.any(Boolean) as boolean,
          created_at: expect.any(Number) as number,
          last_used_at: expect.any(Number) as number,
          expires_at: s.created_at + t.config.sessionTtl,
          ip: expect.any(String) as string,
          device: expect.any(String) as string,
        });
      }
      // Each token sees itself as the current one.
      expect((await sessions(t, mac)).filter((s) => s.current).map((s) => s.device)).toEqual(['Chrome 120 on Mac OS']);
      expect((await sessions(t, phone)).filter((s) => s.current).map((s) => s.device)).toEqual(['Mobile Safari 17 on iOS']);
      // Another user's sessions are not listed.
      const b = await registerUser(t);
      expect((await sessions(t, b.token)).map((s) => s.id)).not.toContain(list[0]!.id);
      expect(await sessions(t, b.token)).toHaveLength(1);
    });

    it('takes the address from X-Forwarded-For behind the trusted proxy, and answers device null without a User-Agent', async () => {
      const a = await registerUser(t);
      const res = await t.request({
        method: 'POST',
        url: '/auth/login',
        payload: { email: a.user.email, password: a.password },
        remoteAddress: '10.0.0.5',
        headers: { 'x-forwarded-for': '203.0.113.99', 'user-agent': '' },
      });
      const token = res.json<AuthBody>().token;
      const current = (await sessions(t, token)).find((s) => s.current)!;
      expect(current.ip).toBe('203.0.113.99');
      expect(current.device).toBeNull();
    });

    it('updates last_used_at at most once a minute', async () => {
      const a = await registerUser(t);
      const token = await signIn(a, CHROME_MAC);
      const at = (await sessions(t, token)).find((s) => s.current)!.last_used_at!;
      t.advanceClock(30);
      try {
        expect((await sessions(t, token)).find((s) => s.current)!.last_used_at).toBe(at);
        t.advanceClock(31);
        await me(t, token);
        const later = (await sessions(t, token)).find((s) => s.current)!.last_used_at!;
        expect(later).toBeGreaterThanOrEqual(at + 61);
        t.advanceClock(20);
        await me(t, token);
        expect((await sessions(t, token)).find((s) => s.current)!.last_used_at).toBe(later);
      } finally {
        t.advanceClock(-81);
      }
    });

    it('DELETE /auth/sessions/:id ends one session of the account; the current one is a logout', async () => {
      const a = await registerUser(t);
      const b = await registerUser(t);
      const other = await signIn(a, FIREFOX_WINDOWS);
      const list = await sessions(t, a.token);
      const otherId = list.find((s) => s.device === 'Firefox 121 on Windows')!.id;
      const currentId = list.find((s) => s.current)!.id;

      // Not another user's session, nor an unknown one.
      expectError(await t.request({ method: 'DELETE', url: `/auth/sessions/${otherId}`, token: b.token }), 404, 'NOT_FOUND');
      expect((await me(t, other)).statusCode).toBe(200);
      expectError(await t.request({ method: 'DELETE', url: `/auth/sessions/${randomUUID()}`, token: a.token }), 404, 'NOT_FOUND');
      expect((await t.request({ method: 'DELETE', url: '/auth/sessions/not-a-uuid', token: a.token })).statusCode).toBe(400);

      const res = await t.request({ method: 'DELETE', url: `/auth/sessions/${otherId}`, token: a.token });
      expect(dataOf<unknown>(res)).toEqual({ id: otherId });
      expectError(await me(t, other), 401, 'INVALID_TOKEN');
      expect((await sessions(t, a.token)).map((s) => s.id)).toEqual([currentId]);
      // Once ended, it is unknown.
      expectError(await t.request({ method: 'DELETE', url: `/auth/sessions/${otherId}`, token: a.token }), 404, 'NOT_FOUND');

      expect(dataOf<unknown>(await t.request({ method: 'DELETE', url: `/auth/sessions/${currentId}`, token: a.token }))).toEqual({ id: currentId });
      expectError(await me(t, a.token), 401, 'INVALID_TOKEN');
    });

    it('POST /auth/sessions/end-others ends every session but this one', async () => {
      const a = await registerUser(t);
      const b = await registerUser(t);
      const others = [await signIn(a), await signIn(a), await signIn(a)];
      const res = await t.request({ method: 'POST', url: '/auth/sessions/end-others', token: a.token });
      expect(dataOf<unknown>(res)).toEqual({ ended: 3 });
      for (const token of others) expectError(await me(t, token), 401, 'INVALID_TOKEN');
      expect((await me(t, a.token)).statusCode).toBe(200);
      expect((await sessions(t, a.token)).map((s) => s.current)).toEqual([true]);
      // Another user's sessions are untouched.
      expect((await me(t, b.token)).statusCode).toBe(200);
      expect(dataOf<unknown>(await t.request({ method: 'POST', url: '/auth/sessions/end-others', token: a.token }))).toEqual({ ended: 0 });
    });
  });

  describe('forgotten password without SMTP', () => {
    it('answers 404 PASSWORD_RESET_UNAVAILABLE and GET /auth/options says password_reset: false', async () => {
      const a = await registerUser(t);
      expectError(await t.request({ method: 'POST', url: '/auth/password-reset', payload: { email: a.user.email } }), 404, 'PASSWORD_RESET_UNAVAILABLE');
      expectError(await t.request({ method: 'POST', url: '/auth/password-reset', payload: { email: uniqueEmail('nobody') } }), 404, 'PASSWORD_RESET_UNAVAILABLE');
      expect(dataOf<{ password_reset: boolean }>(await t.request({ method: 'GET', url: '/auth/options' })).password_reset).toBe(false);
      // The link routes answer (admins' setup links work without SMTP): an unknown link is 410, a malformed one 400.
      expectError(await t.request({ method: 'GET', url: `/auth/password-reset?token=${randomBytes(32).toString('base64url')}` }), 410, 'LINK_INVALID');
      expectError(
        await t.request({ method: 'POST', url: '/auth/password-reset/confirm', payload: { token: randomBytes(32).toString('base64url'), password: 'whatever password' } }),
        410,
        'LINK_INVALID',
      );
      expect((await t.request({ method: 'GET', url: '/auth/password-reset?token=short' })).statusCode).toBe(400);
      expect((await login(t, a.user.email, a.password)).statusCode).toBe(200);
    });
  });
});

describe.each(dialects)('a Google account on %s', (dialect) => {
  let google: FakeGoogle;
  let t: TestApp;
  /** The instance admin. */
  let root: Account;
  beforeAll(async () => {
    google = await startFakeGoogle();
    t = await startTestApp({ dialect, config: { social: google.config } });
    root = await registerUser(t, { name: 'Instance Admin' });
  });
  afterAll(async () => {
    await t.close();
    await google.close();
  });

  it('sets its first password without a current one; from then on the current one is asked', async () => {
    const email = uniqueEmail('google-only');
    const sub = `1${randomBytes(8).readBigUInt64BE().toString().padStart(20, '0')}`;
    const res = await t.request({ method: 'POST', url: '/auth/social/callback', payload: { access_token: google.issueToken({ sub, email, name: 'Goo Gle' }), provider: 'google' } });
    expect(res.statusCode, res.body).toBe(200);
    const { token } = res.json<AuthBody>();
    expect((await me(t, token)).json<{ user: { has_password: boolean } }>().user.has_password).toBe(false);

    expect(dataOf<unknown>(await changePassword(t, token, { new_password: 'first password' }))).toEqual({ changed: true, ended_sessions: 0 });
    expect((await me(t, token)).json<{ user: { has_password: boolean } }>().user.has_password).toBe(true);
    expect((await login(t, email, 'first password')).statusCode).toBe(200);
    expectError(await changePassword(t, token, { new_password: 'second password' }), 400, 'VALIDATION_ERROR', 'current_password');
    expect(dataOf<{ changed: boolean }>(await changePassword(t, token, { current_password: 'first password', new_password: 'second password' })).changed).toBe(true);
  });

  it('a disabled account cannot sign in with Google either (403 ACCOUNT_DISABLED)', async () => {
    const identity = { sub: `1${randomBytes(8).readBigUInt64BE().toString().padStart(20, '0')}`, email: uniqueEmail('google-disabled'), name: 'Dis Abled' };
    const signIn = () => t.request({ method: 'POST', url: '/auth/social/callback', payload: { access_token: google.issueToken(identity), provider: 'google' } });
    const first = await signIn();
    expect(first.statusCode, first.body).toBe(200);
    const user = first.json<AuthBody>();
    const disable = await t.request({ method: 'PATCH', url: `/admin/users/${user.user.id}`, token: root.token, payload: { disabled: true } });
    expect(disable.statusCode, disable.body).toBe(200);
    expectError(await signIn(), 403, 'ACCOUNT_DISABLED');
    expectError(await me(t, user.token), 401, 'INVALID_TOKEN');
  });
});

describe('POST /auth/password and the sign-in limit per address', () => {
  it('counts attempts per address: guessing the current password is 429 after the limit', async () => {
    const t = await startTestApp({ config: { loginRateLimit: 3 } });
    try {
      const a = await registerUser(t);
      const ip = '198.51.100.200';
      for (let i = 0; i < 3; i += 1) {
        expectError(await changePassword(t, a.token, { current_password: `guess ${i}`, new_password: 'brand new password' }, { remoteAddress: ip }), 400, 'VALIDATION_ERROR');
      }
      expectError(await changePassword(t, a.token, { current_password: a.password, new_password: 'brand new password' }, { remoteAddress: ip }), 429, 'RATE_LIMITED');
      expect((await login(t, a.user.email, PASSWORD, { remoteAddress: '198.51.100.201' })).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});
