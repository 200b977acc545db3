import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';
import { startFakeGoogle, type FakeGoogle } from './helpers/fake-google.js';
import { registerUser, type Account } from './helpers/factories.js';
import { completeRequest, partUrl, putPart, startStorageApp, startUpload, type StorageTestApp } from './helpers/uploads.js';

const PASSWORD = 'correct horse battery';

function expectRateLimited(res: LightMyRequestResponse, mentions: string): void {
  expect(res.statusCode).toBe(429);
  expect(res.json()).toEqual({ error: expect.stringContaining(mentions) as string, code: 'RATE_LIMITED' });
  const retryAfter = Number(res.headers['retry-after']);
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThan(0);
}

const me = (t: TestApp, who: Account, remoteAddress = '127.0.0.1') => t.request({ method: 'GET', url: '/auth/me', token: who.token, remoteAddress });

describe('per-user rate limit', () => {
  const LIMIT = 3;
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ config: { userRateLimit: LIMIT, userRateWindowMs: 60_000 } });
  });
  afterAll(() => t.close());

  it('answers 429 with Retry-After and the limit past DAM_USER_RATE_LIMIT requests of one user', async () => {
    const user = await registerUser(t);
    for (let i = 0; i < LIMIT; i += 1) expect((await me(t, user)).statusCode).toBe(200);
    const res = await me(t, user);
    expectRateLimited(res, `the limit is ${LIMIT} per 60 s`);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
    // Every authenticated route counts, whatever it answers.
    expectRateLimited(await t.request({ method: 'GET', url: '/dam/assets?workspaceId=1', token: user.token }), 'per 60 s');
  });

  it('counts per user, not per address', async () => {
    const [a, b] = [await registerUser(t), await registerUser(t)];
    for (let i = 0; i < LIMIT; i += 1) expect((await me(t, a, '192.0.2.1')).statusCode).toBe(200);
    // The same user from another address is still over the limit...
    expectRateLimited(await me(t, a, '192.0.2.99'), 'Too many requests for this user');
    // ...and another user from the same address is not.
    expect((await me(t, b, '192.0.2.1')).statusCode).toBe(200);
  });

  it('does not count public routes, nor requests without a valid token', async () => {
    const user = await registerUser(t);
    for (let i = 0; i < LIMIT + 2; i += 1) {
      expect((await t.request({ method: 'GET', url: '/healthz', token: user.token })).statusCode).toBe(200);
      expect((await t.request({ method: 'GET', url: '/auth/social/config', token: user.token })).statusCode).toBe(200);
      expect((await t.request({ method: 'GET', url: '/auth/me', token: 'not-a-token' })).statusCode).toBe(401);
    }
    for (let i = 0; i < LIMIT; i += 1) expect((await me(t, user)).statusCode).toBe(200);
    expectRateLimited(await me(t, user), 'per 60 s');
  });

  it('is documented as a 429 on authenticated operations only', async () => {
    const doc = (await t.request({ method: 'GET', url: '/openapi.json' })).json<{
      info: { description: string };
      paths: Record<string, Record<string, { responses: Record<string, unknown>; security?: unknown[] }>>;
    }>();
    expect(doc.info.description).toContain('DAM_USER_RATE_LIMIT');
    expect(doc.paths['/auth/me']!.get!.responses['429']).toBeDefined();
    expect(doc.paths['/dam/assets']!.get!.responses['429']).toBeDefined();
    expect(doc.paths['/healthz']!.get!.responses['429']).toBeUndefined();
    // Sign-in routes answer 429 from their per-address limit.
    expect(doc.paths['/auth/register']!.post!.responses['429']).toBeDefined();
  });
});

describe('per-user rate limit after its window', () => {
  it('lets the user in again', async () => {
    const t = await startTestApp({ config: { userRateLimit: 1, userRateWindowMs: 1000 } });
    try {
      const user = await registerUser(t);
      expect((await me(t, user)).statusCode).toBe(200);
      expectRateLimited(await me(t, user), 'the limit is 1 per 1 s');
      await new Promise((resolve) => setTimeout(resolve, 1100));
      expect((await me(t, user)).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe('per-user rate limit and presigned part uploads', () => {
  let t: StorageTestApp;
  beforeAll(async () => {
    t = await startStorageApp('local', undefined, { config: { userRateLimit: 4, userRateWindowMs: 60_000 } });
  });
  afterAll(() => t.close());

  it('does not count the token-less part PUTs: their signed URLs are what get-upload-url (counted) hands out', async () => {
    const user = await registerUser(t);
    const ref = await startUpload(t, user); // 1
    const url = await partUrl(t, user, ref, 1); // 2
    // A client retrying one part many times is not starved by the per-user limit.
    let etag = '';
    for (let i = 0; i < 10; i += 1) {
      const res = await putPart(url, new TextEncoder().encode('hello part'));
      expect(res.status).toBe(200);
      etag = res.headers.get('etag')!;
    }
    expect((await completeRequest(t, user, ref, [{ PartNumber: 1, ETag: etag }])).statusCode).toBe(200); // 3
    expect((await me(t, user)).statusCode).toBe(200); // 4
    expectRateLimited(await me(t, user), 'the limit is 4 per 60 s');
    // get-upload-url itself is counted: no more part URLs for this user in this window.
    expectRateLimited(await t.request({ method: 'GET', url: `/storage/get-upload-url?PartNumber=1&UploadId=${ref.uploadId}&assetId=${ref.assetId}&workspaceId=${ref.workspaceId}`, token: user.token }), 'per 60 s');
  });
});

describe('sign-in limit: one count per address for login, registration and the social callback', () => {
  const LIMIT = 3;
  let t: TestApp;
  let google: FakeGoogle;
  let seq = 0;
  beforeAll(async () => {
    google = await startFakeGoogle();
    t = await startTestApp({ config: { loginRateLimit: LIMIT, loginRateWindowMs: 60_000, social: google.config } });
  });
  afterAll(async () => {
    await t.close();
    await google.close();
  });

  const email = () => `signin${(seq += 1)}@example.test`;
  const login = (remoteAddress: string) =>
    t.request({ method: 'POST', url: '/auth/login', payload: { email: email(), password: 'wrong password' }, remoteAddress });
  const register = (remoteAddress: string) =>
    t.request({ method: 'POST', url: '/auth/register', payload: { email: email(), password: PASSWORD, name: 'New' }, remoteAddress });
  const social = (remoteAddress: string) => {
    const access_token = google.issueToken({ sub: `1100000000000${(seq += 1)}`, email: email(), email_verified: true, name: 'Social' });
    return t.request({ method: 'POST', url: '/auth/social/callback', payload: { access_token, provider: 'google' }, remoteAddress });
  };
  const FAILURE_LIMIT = 'Too many failed sign-in attempts from this address';
  const badSocial = (remoteAddress: string) =>
    t.request({ method: 'POST', url: '/auth/social/callback', payload: { access_token: 'ya29.not-a-real-token', provider: 'google' }, remoteAddress });

  it('blocks registration and the social callback once failed logins used up the address', async () => {
    const ip = '198.51.100.10';
    for (let i = 0; i < LIMIT; i += 1) expect((await login(ip)).statusCode).toBe(401);
    expectRateLimited(await login(ip), FAILURE_LIMIT);
    expectRateLimited(await register(ip), FAILURE_LIMIT);
    expectRateLimited(await social(ip), FAILURE_LIMIT);
    // Another address is not affected.
    expect((await register('198.51.100.11')).statusCode).toBe(201);
  });

  it('does not count successful attempts: one address (an office behind NAT) signs many people in (issue #28)', async () => {
    const ip = '198.51.100.20';
    for (let i = 0; i < LIMIT * 3; i += 1) expect((await (i % 2 ? register(ip) : social(ip))).statusCode).toBeLessThan(300);
    // Failures still count, from the first.
    for (let i = 0; i < LIMIT; i += 1) expect((await login(ip)).statusCode).toBe(401);
    expectRateLimited(await register(ip), FAILURE_LIMIT);
  });

  it('counts failures of the three in one count: a wrong password, a taken e-mail, a refused token', async () => {
    const ip = '198.51.100.30';
    const taken = await registerUser(t);
    const again = await t.request({ method: 'POST', url: '/auth/register', payload: { email: taken.user.email, password: PASSWORD, name: 'Again' }, remoteAddress: ip });
    expect(again.statusCode).toBe(409);
    expect((await badSocial(ip)).statusCode).toBe(401);
    expect((await login(ip)).statusCode).toBe(401);
    expectRateLimited(await social(ip), FAILURE_LIMIT);
  });

  it('counts failures when they begin: parallel wrong passwords cannot pass the limit together (issue #28)', async () => {
    const ip = '198.51.100.40';
    const answers = await Promise.all(Array.from({ length: 10 }, () => login(ip)));
    const statuses = answers.map((r) => r.statusCode).sort();
    expect(statuses.filter((s) => s === 401)).toHaveLength(LIMIT);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10 - LIMIT);
  });

  it('limits all attempts, successful ones too, to ten times the failures (issue #28)', async () => {
    const ip = '198.51.100.50';
    for (let i = 0; i < LIMIT * 10; i += 1) expect((await social(ip)).statusCode).toBe(200);
    expectRateLimited(await social(ip), 'Too many sign-in attempts from this address');
  });

  it('never locks an account out from a new address: failures per account slow its sign-in down instead (issue #28)', async () => {
    const account = await registerUser(t);
    for (let i = 0; i < LIMIT + 1; i += 1) {
      const res = await t.request({ method: 'POST', url: '/auth/login', payload: { email: account.user.email, password: 'wrong password' }, remoteAddress: `203.0.113.${40 + i}` });
      expect(res.statusCode).toBe(401);
    }
    const started = Date.now();
    const res = await t.request({ method: 'POST', url: '/auth/login', payload: { email: account.user.email, password: PASSWORD }, remoteAddress: '203.0.113.99' });
    expect(res.statusCode).toBe(200);
    // Held back (250 ms, doubling with each failure past the limit), not refused.
    expect(Date.now() - started).toBeGreaterThanOrEqual(240);
  });
});
