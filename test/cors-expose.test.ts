import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';
import { registerUser, type Account } from './helpers/factories.js';
import { downloadRequest, keyOf, startStorageApp, uploadFile, type StorageTestApp } from './helpers/uploads.js';

// Issue #38: a browser client reads only the answer headers CORS exposes (besides the safelisted ones).
const EXPOSED = ['etag', 'content-disposition', 'content-range', 'content-length', 'accept-ranges', 'retry-after', 'idempotent-replayed', 'x-download-grant'];
const ORIGIN = 'https://elsewhere.example';

function exposed(value: string | string[] | number | null | undefined): string[] {
  return String(value).toLowerCase().split(/\s*,\s*/);
}

function expectOpenCors(headers: Record<string, string | string[] | number | undefined>): void {
  expect(headers['access-control-allow-origin']).toBe('*');
  expect(exposed(headers['access-control-expose-headers'])).toEqual(expect.arrayContaining(EXPOSED));
}

describe('CORS exposes the headers browser clients read', () => {
  let t: StorageTestApp;
  let owner: Account;

  beforeAll(async () => {
    t = await startStorageApp('local', undefined);
    owner = await registerUser(t);
  });
  afterAll(() => t.close());

  it('on a JSON answer', async () => {
    const res = await t.request({ method: 'GET', url: '/auth/me', token: owner.token, headers: { origin: ORIGIN } });
    expect(res.statusCode).toBe(200);
    expectOpenCors(res.headers);
  });

  it('on a preflight, which still reflects any request header', async () => {
    const res = await t.request({
      method: 'OPTIONS',
      url: '/storage/download',
      headers: { origin: ORIGIN, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization, range, x-anything' },
    });
    expect(res.statusCode).toBe(204);
    expectOpenCors(res.headers);
    expect(String(res.headers['access-control-allow-headers'])).toBe('authorization, range, x-anything');
  });

  it('on a download and a range of it, whose file name and range a client must read', async () => {
    const { ref } = await uploadFile(t, owner, Buffer.from('0123456789abcdef'), { fileName: 'report.txt', fileType: 'text/plain' });
    const whole = await downloadRequest(t, owner, keyOf(ref), ref.workspaceId, { origin: ORIGIN });
    expect(whole.statusCode, whole.body).toBe(200);
    expect(whole.headers['content-disposition']).toMatch(/^attachment;.*report\.txt/);
    expectOpenCors(whole.headers);
    const part = await downloadRequest(t, owner, keyOf(ref), ref.workspaceId, { origin: ORIGIN, range: 'bytes=2-5' });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe('bytes 2-5/16');
    expectOpenCors(part.headers);
  });

  it('on /healthz answered before Fastify routes it (the fast path of a listening server)', async () => {
    const res = await fetch(`${t.baseUrl}/healthz`, { headers: { origin: ORIGIN } });
    expect(res.status).toBe(200);
    expectOpenCors(Object.fromEntries(res.headers));
  });
});

describe('CORS exposes Retry-After on a 429', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ config: { userRateLimit: 1, userRateWindowMs: 60_000 } });
  });
  afterAll(() => t.close());

  it('so a browser client can wait as long as it is told', async () => {
    const user = await registerUser(t);
    expect((await t.request({ method: 'GET', url: '/auth/me', token: user.token, headers: { origin: ORIGIN } })).statusCode).toBe(200);
    const res = await t.request({ method: 'GET', url: '/auth/me', token: user.token, headers: { origin: ORIGIN } });
    expect(res.statusCode).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expectOpenCors(res.headers);
  });
});
