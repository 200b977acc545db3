import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { s3ClientSettings, type StorageConfig } from '../src/config.js';
import { s3BrowserOrigins } from '../src/http/security-headers.js';
import { S3Store } from '../src/storage/s3-store.js';
import { startTestApp, testConfig, type TestApp } from './helpers/app.js';
import { openTestDatabase, tempDir } from './helpers/databases.js';
import { registerUser, type Account } from './helpers/factories.js';
import { makeJpeg } from './helpers/uploads.js';
import { pathOf, serverUpload, listVersions } from './helpers/versions.js';

/** The CSP of an answer as directive -> sources. */
function csp(res: LightMyRequestResponse): Map<string, string[]> {
  const header = String(res.headers['content-security-policy'] ?? '');
  const directives = header
    .split(';')
    .map((d) => d.trim().split(/\s+/))
    .filter((d) => d[0]);
  return new Map(directives.map(([name, ...sources]) => [name!, sources]));
}

/** The headers every answer carries, whatever route, status or content type. */
function expectSecurityHeaders(res: LightMyRequestResponse): void {
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['referrer-policy']).toBe('no-referrer');
  expect(res.headers['x-frame-options']).toBe('DENY');
  // CORS stays open (seed 1), so cross-origin reads and <img> of signed URLs keep working.
  expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
  expect(res.headers['cross-origin-embedder-policy']).toBeUndefined();
  // The test config's public URL is http: no HSTS.
  expect(res.headers['strict-transport-security']).toBeUndefined();
  expect(res.headers['content-security-policy']).toBeDefined();
}

/** The API's policy: its answers (JSON, files, redirects) load nothing (src/http/security-headers.ts). */
function expectApiCsp(res: LightMyRequestResponse): void {
  expect(res.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'");
  // The headers only a rendered document reads are left to the client's pages.
  for (const name of ['cross-origin-opener-policy', 'origin-agent-cluster', 'x-dns-prefetch-control', 'x-download-options', 'x-xss-protection']) {
    expect(res.headers[name], name).toBeUndefined();
  }
}

/** The web client's policy (src/http/security-headers.ts). */
function expectClientCsp(res: LightMyRequestResponse): void {
  const policy = csp(res);
  expect(policy.get('default-src')).toEqual(["'self'"]);
  expect(policy.get('script-src')).toEqual(["'self'"]);
  expect(policy.get('style-src')).toEqual(["'self'"]);
  expect(policy.get('object-src')).toEqual(["'none'"]);
  expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
  expect(policy.get('img-src')).toEqual(expect.arrayContaining(["'self'", 'blob:', 'data:']));
  expect(policy.has('upgrade-insecure-requests')).toBe(false);
}

describe('security headers', () => {
  let t: TestApp;
  let owner: Account;
  const ORIGIN = 'https://elsewhere.example';

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerUser(t);
  });
  afterAll(() => t.close());

  it('on a JSON answer, with the seed CORS unchanged', async () => {
    const res = await t.request({ method: 'GET', url: '/auth/me', token: owner.token, headers: { origin: ORIGIN } });
    expect(res.statusCode).toBe(200);
    expectSecurityHeaders(res);
    expectApiCsp(res);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(String(res.headers['access-control-expose-headers']).toLowerCase()).toContain('etag');
  });

  it('on a preflight, which still reflects any request header', async () => {
    const res = await t.request({
      method: 'OPTIONS',
      url: '/dam/assets',
      headers: { origin: ORIGIN, 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'authorization, x-anything' },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(String(res.headers['access-control-allow-headers']).toLowerCase()).toContain('x-anything');
  });

  it.each([
    ['401 (no token)', { method: 'GET' as const, url: '/auth/me' }, 401],
    ['404 (no route)', { method: 'GET' as const, url: '/dam/nothing-here' }, 404],
    ['400 (invalid body)', { method: 'POST' as const, url: '/auth/login', payload: { email: 'not an e-mail', password: 'x' } }, 400],
  ])('on an error answer: %s', async (_name, request, status) => {
    const res = await t.request({ ...request, headers: { origin: ORIGIN } });
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expectSecurityHeaders(res);
    expectApiCsp(res);
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });

  it('on a signed media answer, which keeps its own sandboxing CSP', async () => {
    const asset = await serverUpload(t, owner, { bytes: await makeJpeg(40, 30), name: 'photo.jpg', type: 'image/jpeg' });
    const [version] = await listVersions(t, owner, asset.id);
    const res = await t.request({ method: 'GET', url: pathOf(version!.file_url), headers: { origin: ORIGIN } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/jpeg');
    expectSecurityHeaders(res);
    expect(res.headers['content-security-policy']).toBe("default-src 'none'; sandbox");
    // Another site may show it in an <img>: CORP cross-origin.
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
  });

  it('on the API docs, under a policy of their own that still forbids framing', async () => {
    let res = await t.request({ method: 'GET', url: '/docs' });
    if (res.statusCode === 302) res = await t.request({ method: 'GET', url: new URL(String(res.headers.location), 'http://localhost/docs/').pathname });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expectSecurityHeaders(res);
    const policy = csp(res);
    expect(policy.get('script-src')).toEqual(["'self'"]);
    expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
    // Swagger UI inserts a <style> element (test/browser/security.test.ts renders the page).
    expect(policy.get('style-src')).toEqual(["'self'", "'unsafe-inline'"]);
    const script = await t.request({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    expect(script.statusCode).toBe(200);
    const spec = await t.request({ method: 'GET', url: '/docs/json' });
    expect(spec.statusCode).toBe(200);
  });
});

describe('security headers of the web client', () => {
  const INDEX = '<!doctype html><title>DAM</title><div id="app"></div>';

  it("on index.html and the client's files", async () => {
    const dir = tempDir('dam-web-');
    mkdirSync(path.join(dir, 'assets'));
    writeFileSync(path.join(dir, 'index.html'), INDEX);
    writeFileSync(path.join(dir, 'assets', 'index-abc123.js'), 'console.log(1)');
    const database = await openTestDatabase('sqlite');
    const app = await buildApp(testConfig({ publicUrl: 'http://dam.example:8080' }), { database, logger: false, webDir: dir });
    try {
      for (const url of ['/', '/library', '/social-login?access_token=ya29.x', '/assets/index-abc123.js']) {
        const res = await app.inject({ method: 'GET', url });
        expect(res.statusCode, url).toBe(200);
        expectSecurityHeaders(res);
        expectClientCsp(res);
        expect(res.headers['cross-origin-opener-policy']).toBe('same-origin');
        // Signed media URLs and the local store's part URLs are built on the public URL.
        const policy = csp(res);
        expect(policy.get('img-src')).toContain('http://dam.example:8080');
        expect(policy.get('connect-src')).toEqual(["'self'", 'http://dam.example:8080']);
      }
    } finally {
      await app.close();
      await database.close();
    }
  });
});

describe('HTTPS public URL', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ config: { publicUrl: 'https://dam.example.com' } });
  });
  afterAll(() => t.close());

  it.each(['/healthz', '/auth/me', '/docs/json', '/docs/'])('adds HSTS, and upgrade-insecure-requests to pages: %s', async (url) => {
    const res = await t.request({ method: 'GET', url });
    expect(res.headers['strict-transport-security']).toBe('max-age=31536000');
    // Only pages load anything (the API docs' policy covers all of /docs); the API's answers forbid all loads.
    expect(csp(res).has('upgrade-insecure-requests')).toBe(url.startsWith('/docs'));
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});

describe('connect-src on S3', () => {
  const s3 = (bucket: string, endpoint: string | undefined, region = 'eu-west-3', forcePathStyle = false): StorageConfig => ({
    kind: 's3',
    bucket,
    endpoint,
    region,
    accessKeyId: 'AKIDEXAMPLE',
    secretAccessKey: 'secret',
    forcePathStyle,
    client: s3ClientSettings({}),
  });

  // The browser PUTs parts to the URLs the SDK presigns (offline): their origin must be allowed.
  it.each([
    s3('dam-bucket', undefined, 'us-east-1'),
    s3('dam-bucket', undefined),
    s3('dam.bucket', undefined),
    s3('Dam_Bucket', undefined),
    s3('dam-bucket', undefined, 'eu-west-3', true),
    s3('dam-bucket', 'http://127.0.0.1:9000', 'us-east-1', true),
    s3('dam-bucket', 'https://minio.example.com:9000/'),
    s3('dam.bucket', 'https://minio.example.com'),
    s3('dam-bucket', 'http://localhost:9000'),
  ])('allows where the SDK presigns part URLs: %o', async (storage) => {
    if (storage.kind !== 's3') throw new Error('s3 only');
    const url = await new S3Store(storage).partUploadUrl('1/digital_assets/2', 'upload-id', 1, 60);
    expect(s3BrowserOrigins(storage)).toContain(new URL(url).origin);
  });

  it('is in the policy of an app on S3', async () => {
    const storage = s3('dam-bucket', 'https://minio.example.com');
    const database = await openTestDatabase('sqlite');
    const app = await buildApp(testConfig({ storage, jobs: { ...testConfig().jobs, concurrency: 0 } }), { database, logger: false });
    try {
      const res = await app.inject({ method: 'GET', url: '/docs/' });
      expect(res.statusCode).toBe(200);
      const connect = String(res.headers['content-security-policy']).split(';').find((d) => d.trim().startsWith('connect-src'));
      expect(connect).toContain(' https://minio.example.com');
      expect(connect).toContain(' https://dam-bucket.minio.example.com');
    } finally {
      await app.close();
      await database.close();
    }
  });
});
