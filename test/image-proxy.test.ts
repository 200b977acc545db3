import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { startTestApp, testConfig, type TestApp } from './helpers/app.js';
import { registerUser, type Account, type Envelope } from './helpers/factories.js';
import { startFakeOrigin, type FakeOrigin } from './helpers/fake-origin.js';

/**
 * GET /api/image-proxy and POST /api/image-proxy/sign through the HTTP interface, against a fake
 * origin on 127.0.0.1: reached with DAM_PROXY_ALLOW_HOSTS naming it, refused without it. Every
 * address class is covered in test/safe-fetch.test.ts; here each kind of refusal is shown to
 * answer its catalogue code.
 */

interface ErrorBody {
  error: string;
  code: string;
}
interface Signed {
  url: string;
  expires_at: number;
}

let origin: FakeOrigin;
beforeAll(async () => {
  origin = await startFakeOrigin();
});
afterAll(() => origin.close());

type Query = Record<string, string | number | undefined>;
const proxyUrl = (query: Query) =>
  `/api/image-proxy?${new URLSearchParams(Object.entries(query).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)] as [string, string]]))).toString()}`;

describe('the image proxy with the origin allowed (DAM_PROXY_ALLOW_HOSTS)', () => {
  let t: TestApp;
  let user: Account;
  beforeAll(async () => {
    t = await startTestApp({
      config: { proxy: { maxBytes: 512 * 1024, ports: [80, 443], allowHosts: [origin.hostPort], timeoutMs: 1000, urlTtl: 3600, rateLimit: 1000 } },
    });
    user = await registerUser(t);
  });
  afterAll(() => t.close());

  const get = (query: Query, token: string | undefined = user.token) =>
    t.request({ method: 'GET', url: proxyUrl(query), token });

  it('passes a PNG through with its type and the protective headers, and no upstream cookie', async () => {
    const res = await get({ url: `${origin.baseUrl}/image.png` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.rawPayload.equals(origin.png)).toBe(true);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toBe("default-src 'none'");
    expect(res.headers['cache-control']).toBe('private, max-age=3600');
    expect(res.headers['set-cookie']).toBeUndefined();
    // The caller's bearer token never goes upstream.
    const seen = origin.requests.at(-1)!.headers;
    expect(seen.authorization).toBeUndefined();
    expect(seen.cookie).toBeUndefined();
  });

  it('resizes (never enlarging) and converts', async () => {
    const res = await get({ url: `${origin.baseUrl}/big.png`, w: 200, h: 100, format: 'webp' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/webp');
    const meta = await sharp(res.rawPayload).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 133, 100]);

    const same = await get({ url: `${origin.baseUrl}/image.jpg`, w: 1000 });
    expect(same.headers['content-type']).toBe('image/jpeg');
    expect(await sharp(same.rawPayload).metadata()).toMatchObject({ format: 'jpeg', width: 40, height: 30 });

    for (const [format, expected] of [['jpeg', 'jpeg'], ['png', 'png'], ['avif', 'heif']] as const) {
      const converted = await get({ url: `${origin.baseUrl}/image.png`, format });
      expect(converted.statusCode, format).toBe(200);
      expect(converted.headers['content-type']).toBe(`image/${format}`);
      expect((await sharp(converted.rawPayload).metadata()).format).toBe(expected);
    }
  });

  it('refuses SVG, HTML claiming image/png, and other content types with 415 PROXY_NOT_AN_IMAGE', async () => {
    for (const path of ['/image.svg', '/html-as-png', '/text']) {
      for (const query of [{}, { format: 'png' }] as Query[]) {
        const res = await get({ url: `${origin.baseUrl}${path}`, ...query });
        expect(res.statusCode, path).toBe(415);
        expect(res.json<ErrorBody>().code).toBe('PROXY_NOT_AN_IMAGE');
      }
    }
  });

  it('refuses a body over DAM_PROXY_MAX_BYTES and an image over the pixel limit with 413 PROXY_IMAGE_TOO_LARGE', async () => {
    const huge = await get({ url: `${origin.baseUrl}/huge` });
    expect(huge.statusCode).toBe(413);
    expect(huge.json<ErrorBody>().code).toBe('PROXY_IMAGE_TOO_LARGE');
    const bomb = await get({ url: `${origin.baseUrl}/bomb.png`, w: 100 });
    expect(bomb.statusCode).toBe(413);
    expect(bomb.json<ErrorBody>()).toMatchObject({ code: 'PROXY_IMAGE_TOO_LARGE', error: expect.stringMatching(/pixels/) as string });
  });

  it('answers 502 PROXY_FETCH_FAILED for a timeout, an error status and too many redirects', async () => {
    for (const path of ['/slow', '/status/404', '/status/503', '/chain/4']) {
      const res = await get({ url: `${origin.baseUrl}${path}` });
      expect(res.statusCode, path).toBe(502);
      expect(res.json<ErrorBody>().code).toBe('PROXY_FETCH_FAILED');
    }
    expect((await get({ url: `${origin.baseUrl}/chain/3` })).statusCode).toBe(200);
  });

  it('answers 400 PROXY_TARGET_FORBIDDEN for a redirect to a private address', async () => {
    for (const to of ['http://10.0.0.1/a.png', 'http://169.254.169.254/latest/meta-data/', `http://localhost:${origin.port}/image.png`]) {
      const res = await get({ url: `${origin.baseUrl}/redirect?to=${encodeURIComponent(to)}` });
      expect(res.statusCode, to).toBe(400);
      expect(res.json<ErrorBody>().code).toBe('PROXY_TARGET_FORBIDDEN');
    }
  });

  it('needs a bearer token or a signature; validates its parameters', async () => {
    expect((await get({ url: `${origin.baseUrl}/image.png` }, '')).statusCode).toBe(401);
    const queries: Query[] = [{ url: '' }, { url: `${origin.baseUrl}/image.png`, w: 0 }, { url: `${origin.baseUrl}/image.png`, h: 4097 }, { url: `${origin.baseUrl}/image.png`, format: 'gif' }];
    for (const query of queries) {
      const res = await get(query);
      expect(res.statusCode, JSON.stringify(query)).toBe(400);
      expect(res.json<ErrorBody>().code).toBe('VALIDATION_ERROR');
    }
    // Not an http(s) URL at all: the fetcher's refusal.
    for (const url of ['javascript:alert(1)', 'abc', '//127.0.0.1/a.png', `file://${origin.hostPort}/etc/passwd`]) {
      const res = await get({ url });
      expect(res.statusCode, url).toBe(400);
      expect(res.json<ErrorBody>().code).toBe('PROXY_TARGET_FORBIDDEN');
    }
  });

  describe('signed URLs', () => {
    const sign = async (body: Record<string, unknown>): Promise<Signed> => {
      const res = await t.request({ method: 'POST', url: '/api/image-proxy/sign', payload: body, token: user.token });
      expect(res.statusCode).toBe(200);
      return res.json<Envelope<Signed>>().data;
    };
    const pathOf = (signed: Signed) => signed.url.slice(t.config.publicUrl.length);

    it('works without a token, for the signed parameters, until it expires', async () => {
      const before = Math.floor(Date.now() / 1000);
      const signed = await sign({ url: `${origin.baseUrl}/big.png?x=1&y=2`, w: 64, format: 'png' });
      expect(signed.url.startsWith(`${t.config.publicUrl}/api/image-proxy?`)).toBe(true);
      expect(signed.expires_at).toBeGreaterThanOrEqual(before + 3600);
      expect(signed.expires_at).toBeLessThanOrEqual(before + 3600 + 600);
      const res = await t.request({ method: 'GET', url: pathOf(signed) });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('image/png');
      expect((await sharp(res.rawPayload).metadata()).width).toBe(64);
      expect(res.headers['cache-control']).toMatch(/^public, max-age=\d+$/);
      expect(origin.requests.at(-1)!.path).toBe('/big.png');
    });

    it('refuses tampered, added or dropped parameters with 403 INVALID_SIGNATURE', async () => {
      const signed = await sign({ url: `${origin.baseUrl}/image.png`, w: 20 });
      const url = new URL(signed.url);
      const variants: [string, (q: URLSearchParams) => void][] = [
        ['w changed', (q) => q.set('w', '21')],
        ['w dropped', (q) => q.delete('w')],
        ['h added', (q) => q.set('h', '10')],
        ['format added', (q) => q.set('format', 'webp')],
        ['url changed', (q) => q.set('url', `${origin.baseUrl}/image.jpg`)],
        ['signature changed', (q) => q.set('signature', `${q.get('signature')!.slice(0, -2)}AA`)],
        ['expiry extended', (q) => q.set('expires', String(Number(q.get('expires')) + 600))],
        ['expiry dropped', (q) => q.delete('expires')],
      ];
      for (const [label, change] of variants) {
        const query = new URLSearchParams(url.search);
        change(query);
        const res = await t.request({ method: 'GET', url: `${url.pathname}?${query.toString()}` });
        expect(res.statusCode, label).toBe(403);
        expect(res.json<ErrorBody>().code, label).toBe('INVALID_SIGNATURE');
      }
    });

    it('refuses an expired URL with 403 URL_EXPIRED', async () => {
      const signed = await sign({ url: `${origin.baseUrl}/image.png` });
      t.advanceClock(2 * 3600);
      try {
        const res = await t.request({ method: 'GET', url: pathOf(signed) });
        expect(res.statusCode).toBe(403);
        expect(res.json<ErrorBody>().code).toBe('URL_EXPIRED');
      } finally {
        t.advanceClock(-2 * 3600);
      }
    });

    it('needs a token to sign, and checks the target only when the URL is used', async () => {
      const res = await t.request({ method: 'POST', url: '/api/image-proxy/sign', payload: { url: `${origin.baseUrl}/image.png` } });
      expect(res.statusCode).toBe(401);
      for (const url of ['ftp://example.com/a.png', 'http://user:pw@example.com/a.png', 'not a url']) {
        const bad = await t.request({ method: 'POST', url: '/api/image-proxy/sign', payload: { url }, token: user.token });
        expect(bad.statusCode, url).toBe(400);
        expect(bad.json<ErrorBody>().code).toBe('PROXY_TARGET_FORBIDDEN');
      }
      const privateTarget = await sign({ url: 'http://192.168.0.1/a.png' });
      const used = await t.request({ method: 'GET', url: pathOf(privateTarget) });
      expect(used.statusCode).toBe(400);
      expect(used.json<ErrorBody>().code).toBe('PROXY_TARGET_FORBIDDEN');
    });
  });
});

describe('the image proxy without an allow list: every non-public address is refused', () => {
  let t: TestApp;
  let user: Account;
  beforeAll(async () => {
    // The origin's port is allowed, so the refusal is the address's, not the port's.
    t = await startTestApp({
      config: { proxy: { maxBytes: 512 * 1024, ports: [80, 443, origin.port], allowHosts: [], timeoutMs: 1000, urlTtl: 3600, rateLimit: 1000 } },
    });
    user = await registerUser(t);
  });
  afterAll(() => t.close());

  const targets = (port: number) => [
    `http://127.0.0.1:${port}/image.png`,
    `http://localhost:${port}/image.png`,
    `http://[::1]:${port}/image.png`,
    `http://[::ffff:127.0.0.1]:${port}/image.png`,
    `http://[::ffff:7f00:1]:${port}/image.png`,
    `http://2130706433:${port}/image.png`,
    `http://0x7f.1:${port}/image.png`,
    'http://10.0.0.1/a.png',
    'http://172.16.0.1/a.png',
    'http://192.168.0.1/a.png',
    'http://169.254.169.254/latest/meta-data/',
    'http://100.64.0.1/a.png',
    'http://0.0.0.0/a.png',
    'http://[::]/a.png',
    'http://[fc00::1]/a.png',
    'http://[fe80::1]/a.png',
    'http://224.0.0.1/a.png',
    'http://[ff02::1]/a.png',
  ];

  it('answers 400 PROXY_TARGET_FORBIDDEN and never reaches the origin', async () => {
    const seen = origin.requests.length;
    for (const url of targets(origin.port)) {
      const res = await t.request({ method: 'GET', url: proxyUrl({ url }), token: user.token });
      expect(res.statusCode, url).toBe(400);
      expect(res.json<ErrorBody>().code, url).toBe('PROXY_TARGET_FORBIDDEN');
    }
    expect(origin.requests.length).toBe(seen);
  });

  it('answers a name that does not resolve exactly as one that resolves to a private address (issue #28)', async () => {
    // Different answers would let a caller map the names of the server's internal network.
    const answer = async (host: string) => {
      const res = await t.request({ method: 'GET', url: proxyUrl({ url: `http://${host}:${origin.port}/image.png` }), token: user.token });
      return { status: res.statusCode, body: res.body.replaceAll(host, 'HOST') };
    };
    const internal = await answer('localhost');
    expect(internal.status).toBe(400);
    expect(await answer('nothing-here.invalid')).toEqual(internal);
    expect(internal.body).toContain('HOST does not resolve to a public address');
  });

  it('refuses other ports and credentials in the URL', async () => {
    for (const url of ['http://example.com:8080/a.png', 'https://user:secret@example.com/a.png']) {
      const res = await t.request({ method: 'GET', url: proxyUrl({ url }), token: user.token });
      expect(res.statusCode, url).toBe(400);
      expect(res.json<ErrorBody>().code).toBe('PROXY_TARGET_FORBIDDEN');
      expect(res.body).not.toContain('secret');
    }
  });
});

describe('image proxy rate limits', () => {
  let t: TestApp;
  let user: Account;
  beforeAll(async () => {
    t = await startTestApp({
      config: { proxy: { maxBytes: 512 * 1024, ports: [80, 443], allowHosts: [origin.hostPort], timeoutMs: 1000, urlTtl: 3600, rateLimit: 3 } },
    });
    user = await registerUser(t);
  });
  afterAll(() => t.close());

  it('counts token requests and signing per user, and signed requests per client address', async () => {
    const sign = () => t.request({ method: 'POST', url: '/api/image-proxy/sign', payload: { url: `${origin.baseUrl}/image.png` }, token: user.token });
    const first = await sign();
    expect(first.statusCode).toBe(200);
    const path = first.json<Envelope<Signed>>().data.url.slice(t.config.publicUrl.length);
    expect((await t.request({ method: 'GET', url: proxyUrl({ url: `${origin.baseUrl}/image.png` }), token: user.token })).statusCode).toBe(200);
    expect((await sign()).statusCode).toBe(200);
    const over = await sign();
    expect(over.statusCode).toBe(429);
    expect(over.json<ErrorBody>().code).toBe('RATE_LIMITED');
    expect(over.headers['retry-after']).toBeDefined();

    // Signed URLs count per address, apart from the user's count.
    for (let i = 0; i < 3; i += 1) {
      expect((await t.request({ method: 'GET', url: path, remoteAddress: '198.51.100.7' })).statusCode).toBe(200);
    }
    expect((await t.request({ method: 'GET', url: path, remoteAddress: '198.51.100.7' })).statusCode).toBe(429);
    expect((await t.request({ method: 'GET', url: path, remoteAddress: '198.51.100.8' })).statusCode).toBe(200);
  });
});

describe('image proxy in logs and in the OpenAPI document', () => {
  it('logs the outside URL without its query, and the signature redacted', async () => {
    const lines: string[] = [];
    const app = await buildApp(testConfig({ logLevel: 'info' }), { logStream: { write: (line) => void lines.push(line) } });
    try {
      const target = 'http://192.168.0.1/thumb/1?access_token=ya29.secret#x';
      const res = await app.inject({ method: 'GET', url: proxyUrl({ url: target, w: 64, expires: 123, signature: 'sig-secret' }) });
      expect(res.statusCode).toBe(403);
      const logged = lines.map((line) => JSON.parse(line) as { req?: { url: string } }).find((entry) => entry.req)!.req!.url;
      expect(lines.join('\n')).not.toContain('secret');
      expect(new URLSearchParams(logged.slice(logged.indexOf('?') + 1)).get('url')).toBe('http://192.168.0.1/thumb/1?[redacted]');
    } finally {
      await app.close();
    }
  });

  it('documents the GET as taking a token or nothing (a signature), and signing as taking a token', async () => {
    const t = await startTestApp();
    try {
      const doc = (await t.request({ method: 'GET', url: '/openapi.json' })).json<{ paths: Record<string, Record<string, { security?: unknown }>> }>();
      expect(doc.paths['/api/image-proxy']!.get!.security).toEqual([{ bearerAuth: [] }, {}]);
      expect(doc.paths['/api/image-proxy/sign']!.post!.security).toBeUndefined();
    } finally {
      await t.close();
    }
  });
});
