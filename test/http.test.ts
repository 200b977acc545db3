import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppConfig } from '../src/config.js';
import { DOC_TAGS } from '../src/http/openapi.js';
import { startHttpTestApp, startTestApp, type TestApp } from './helpers/app.js';
import { dialects } from './helpers/databases.js';
import { registerUser, type Account } from './helpers/factories.js';

interface ErrorBody {
  error: string;
  code: string;
  field?: string;
}
interface OpenApiDoc {
  openapi: string;
  paths: Record<string, Record<string, { security?: Record<string, string[]>[] }>>;
  components: { securitySchemes: Record<string, { type: string; scheme?: string }> };
  security?: Record<string, string[]>[];
}

const ORIGIN = 'https://elsewhere.example';

describe('GET /healthz over HTTP (answered before routing)', () => {
  it('answers what the routed endpoint answers, with the API headers, and leaves every other request to the API', async () => {
    const t = await startHttpTestApp({ config: { role: 'api' } });
    try {
      const fast = await fetch(`${t.baseUrl}/healthz`, { headers: { origin: ORIGIN } });
      const routed = await t.request({ method: 'GET', url: '/healthz', headers: { origin: ORIGIN } });
      expect(fast.status).toBe(200);
      expect(await fast.json()).toEqual(routed.json());
      for (const name of ['content-type', 'content-security-policy', 'x-content-type-options', 'x-frame-options', 'referrer-policy', 'access-control-allow-origin']) {
        expect(fast.headers.get(name), name).toBe(String(routed.headers[name]));
      }
      // The server's keep-alive timeout is Fastify's, as on a server Fastify makes itself.
      expect(fast.headers.get('keep-alive')).toBe(`timeout=${t.app.initialConfig.keepAliveTimeout! / 1000}`);
      // Other forms and paths go through the API: HEAD, a query string, a longer path.
      expect((await fetch(`${t.baseUrl}/healthz`, { method: 'HEAD' })).status).toBe(200);
      expect(await (await fetch(`${t.baseUrl}/healthz?verbose=1`)).json()).toEqual({ status: 'ok' });
      expect((await fetch(`${t.baseUrl}/healthz/x`)).status).toBe(404);
      expect((await fetch(`${t.baseUrl}/auth/me`)).status).toBe(401);
      // The API's hooks saw only the routed GETs (the inject above and the query string), not the two plain ones.
      const metrics = (await t.request({ method: 'GET', url: '/metrics' })).body;
      expect(/dam_http_request_duration_seconds_count\{method="GET",route="\/healthz",status="200"\} (\d+)/.exec(metrics)?.[1]).toBe('2');
    } finally {
      await t.close();
    }
  });
});

describe('HTTP surface', () => {
  let t: TestApp;
  let a: Account;
  beforeAll(async () => {
    t = await startTestApp();
    a = await registerUser(t);
  });
  afterAll(() => t.close());

  describe('health', () => {
    it('GET /healthz answers 200 without a token', async () => {
      const res = await t.request({ method: 'GET', url: '/healthz' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'ok' });
    });

    it('GET /readyz answers 200 without a token while the database is reachable', async () => {
      const res = await t.request({ method: 'GET', url: '/readyz' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'ready', checks: { database: 'ok', disk: 'off', store: 'ok' } });
    });
  });

  describe('OpenAPI and docs', () => {
    let doc: OpenApiDoc;
    beforeAll(async () => {
      const res = await t.request({ method: 'GET', url: '/openapi.json' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      doc = res.json<OpenApiDoc>();
    });

    it('is an OpenAPI 3.1 document', () => {
      expect(doc.openapi).toMatch(/^3\.1\./);
    });

    it('speaks of the product and its API, not of the specification it was built from', () => {
      expect(JSON.stringify(doc)).not.toMatch(/\bseed\b/i);
    });

    it('lists the auth, workspace and health paths', () => {
      const expected: [string, string][] = [
        ['/auth/register', 'post'],
        ['/auth/login', 'post'],
        ['/auth/logout', 'post'],
        ['/auth/me', 'get'],
        ['/workspaces', 'get'],
        ['/workspaces', 'post'],
        ['/workspaces/{id}', 'get'],
        ['/workspaces/{id}', 'patch'],
        ['/workspaces/{id}', 'delete'],
        ['/workspaces/{id}/members', 'get'],
        ['/workspaces/{id}/members', 'post'],
        ['/workspaces/{id}/members/{userId}', 'patch'],
        ['/workspaces/{id}/members/{userId}', 'delete'],
        ['/healthz', 'get'],
        ['/readyz', 'get'],
      ];
      for (const [path, method] of expected) expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    });

    it('declares bearerAuth, required by default and lifted (security: []) on public routes', () => {
      expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
      expect(doc.security).toEqual([{ bearerAuth: [] }]);
      for (const [path, method] of [
        ['/healthz', 'get'],
        ['/readyz', 'get'],
        ['/auth/register', 'post'],
        ['/auth/login', 'post'],
      ] as const) {
        expect(doc.paths[path]![method]!.security, `${method} ${path}`).toEqual([]);
      }
      for (const [path, method] of [
        ['/auth/me', 'get'],
        ['/auth/logout', 'post'],
        ['/workspaces', 'get'],
        ['/workspaces/{id}/members', 'post'],
      ] as const) {
        const security = doc.paths[path]![method]!.security;
        // Either inherits the document-wide bearerAuth or names it; never lifted.
        if (security !== undefined) expect(security).toContainEqual({ bearerAuth: [] });
      }
    });

    it('the document and the behaviour agree: public operations answer without a token, the others 401', async () => {
      const foundation = /^\/(auth|workspaces|healthz|readyz)\b/;
      const operations = Object.entries(doc.paths)
        .filter(([path]) => foundation.test(path))
        .flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, isPublic: op.security?.length === 0 })));
      expect(operations.filter((op) => op.isPublic).length).toBeGreaterThanOrEqual(4);
      expect(operations.filter((op) => !op.isPublic).length).toBeGreaterThanOrEqual(10);
      for (const { path, method, isPublic } of operations) {
        const url = path.replace(/\{[^}]+\}/g, '1');
        const res = await t.request({ method: method.toUpperCase(), url, payload: method === 'get' || method === 'delete' ? undefined : {} });
        if (isPublic) expect(res.statusCode, `${method} ${path}`).not.toBe(401);
        else expect(res.statusCode, `${method} ${path}`).toBe(401);
      }
    });

    it('tags every operation with a tag of DOC_TAGS, and answers one tag\'s part with ?tag= (what /docs loads)', async () => {
      const names = DOC_TAGS.map((tag) => tag.name);
      const seen = new Set<string>();
      let operations = 0;
      for (const [path, methods] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(methods as Record<string, { tags?: string[] }>)) {
          operations += 1;
          expect(op.tags?.length, `${method} ${path} has a tag`).toBeGreaterThan(0);
          for (const tag of op.tags ?? []) {
            expect(names, `${method} ${path}: tag ${tag} is listed in src/http/openapi.ts DOC_TAGS`).toContain(tag);
            seen.add(tag);
          }
        }
      }
      let parts = 0;
      for (const name of seen) {
        const res = await t.request({ method: 'GET', url: `/openapi.json?tag=${encodeURIComponent(name)}` });
        expect(res.statusCode).toBe(200);
        const part = res.json<OpenApiDoc>();
        for (const methods of Object.values(part.paths)) {
          for (const op of Object.values(methods as Record<string, { tags?: string[] }>)) {
            expect(op.tags).toContain(name);
            parts += 1;
          }
        }
      }
      // Every operation is in the part of each of its tags, so the parts cover the whole document.
      expect(parts).toBeGreaterThanOrEqual(operations);
      const unknown = await t.request({ method: 'GET', url: '/openapi.json?tag=nope' });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json<{ error: string }>().error).toContain('No operations are tagged "nope"');
    });

    it('GET /docs answers HTML without a token', async () => {
      let res = await t.request({ method: 'GET', url: '/docs' });
      for (let hops = 0; hops < 3 && res.statusCode >= 300 && res.statusCode < 400; hops += 1) {
        const location = res.headers.location!;
        res = await t.request({ method: 'GET', url: new URL(location, 'http://localhost/docs').pathname });
      }
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/text\/html/);
      expect(res.body).toMatch(/<html/i);
    });
  });

  describe('CORS (any origin, any request header, ETag exposed)', () => {
    it.each(['/workspaces', '/auth/login', '/workspaces/1/members/2'])('answers a preflight to %s', async (url) => {
      const res = await t.request({
        method: 'OPTIONS',
        url,
        headers: {
          origin: ORIGIN,
          'access-control-request-method': 'PATCH',
          'access-control-request-headers': 'x-custom',
        },
      });
      expect(res.statusCode).toBeGreaterThanOrEqual(200);
      expect(res.statusCode).toBeLessThan(300);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(String(res.headers['access-control-allow-methods'])).toMatch(/PATCH/);
      expect(String(res.headers['access-control-allow-headers']).toLowerCase().split(/\s*,\s*/)).toContain('x-custom');
    });

    it('allows several arbitrary request headers, authorization included', async () => {
      const res = await t.request({
        method: 'OPTIONS',
        url: '/workspaces',
        headers: {
          origin: ORIGIN,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type, x-custom, x-another-one',
        },
      });
      const allowed = String(res.headers['access-control-allow-headers']).toLowerCase().split(/\s*,\s*/);
      for (const header of ['authorization', 'content-type', 'x-custom', 'x-another-one']) expect(allowed).toContain(header);
      // The allowed headers are the requested ones: a cache must key the answer on them.
      expect(String(res.headers.vary).toLowerCase()).toContain('access-control-request-headers');
      expect(res.headers['access-control-max-age']).toBe('86400');
    });

    it.each([
      ['origin', { 'access-control-request-method': 'GET' }],
      ['access-control-request-method', { origin: ORIGIN }],
    ])('refuses an OPTIONS without %s: no preflight, 400 naming the header', async (missing, headers) => {
      const res = await t.request({ method: 'OPTIONS', url: '/workspaces', headers });
      expect(res.statusCode).toBe(400);
      expect(res.json<{ message: string }>().message).toContain(missing);
      expect(res.headers['access-control-allow-methods']).toBeUndefined();
    });

    it.each([
      ['an authenticated GET', { method: 'GET' as const, url: '/workspaces', auth: true }, 200],
      ['a public GET', { method: 'GET' as const, url: '/healthz', auth: false }, 200],
      ['a refused request (401)', { method: 'GET' as const, url: '/workspaces', auth: false }, 401],
      ['an unknown route (404)', { method: 'GET' as const, url: '/nowhere', auth: false }, 404],
    ])('allows any origin and exposes ETag on %s', async (_label, req, status) => {
      const res = await t.request({ method: req.method, url: req.url, token: req.auth ? a.token : undefined, headers: { origin: ORIGIN } });
      expect(res.statusCode).toBe(status);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(String(res.headers['access-control-expose-headers']).toLowerCase().split(/\s*,\s*/)).toContain('etag');
    });
  });

  describe('errors', () => {
    it.each([
      ['GET', '/nowhere'],
      ['POST', '/workspaces/1/unknown'],
      ['DELETE', '/auth/me'],
    ] as const)('%s %s (unknown route) answers 404 NOT_FOUND, even without a token', async (method, url) => {
      for (const token of [undefined, a.token]) {
        const res = await t.request({ method, url, token });
        expect(res.statusCode).toBe(404);
        const body = res.json<ErrorBody>();
        expect(body.code).toBe('NOT_FOUND');
        expect(body.error).toContain(url);
      }
    });

    it('invalid JSON answers 400', async () => {
      const publicRoute = await t.request({ method: 'POST', url: '/auth/login', headers: { 'content-type': 'application/json' }, payload: '{"email": ' });
      expect(publicRoute.statusCode).toBe(400);
      expect(publicRoute.json<ErrorBody>()).toMatchObject({ code: 'VALIDATION_ERROR', error: expect.any(String) as string });

      const authenticated = await t.request({
        method: 'POST',
        url: '/workspaces',
        token: a.token,
        headers: { 'content-type': 'application/json' },
        payload: '{name: unquoted}',
      });
      expect(authenticated.statusCode).toBe(400);
      expect(authenticated.json<ErrorBody>().code).toBe('VALIDATION_ERROR');
    });

    it('an unsupported content type answers 415', async () => {
      for (const contentType of ['application/xml', 'application/x-www-form-urlencoded']) {
        const res = await t.request({
          method: 'POST',
          url: '/workspaces',
          token: a.token,
          headers: { 'content-type': contentType },
          payload: 'name=x',
        });
        expect(res.statusCode, contentType).toBe(415);
        expect(res.json<ErrorBody>()).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', error: expect.any(String) as string });
      }
    });

    it('a JSON body over the limit answers 413', async () => {
      const res = await t.request({
        method: 'POST',
        url: '/workspaces',
        token: a.token,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) }),
      });
      expect(res.statusCode).toBe(413);
      expect(res.json<ErrorBody>().code).toBe('PAYLOAD_TOO_LARGE');
    });

    it('a validation error names the field', async () => {
      const res = await t.request({ method: 'POST', url: '/workspaces', token: a.token, payload: { name: '' } });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: expect.stringContaining('name') as string, code: 'VALIDATION_ERROR', field: 'name' });
    });
  });
});

/**
 * seed 7.2: an unexpected failure answers 500 {error, stack}, stack only in development.
 * The failure is real: the app's database handle is closed under it.
 */
describe.each(dialects)('unexpected failures on %s', (dialect) => {
  const envs: [AppConfig['env'], boolean][] = [
    ['development', true],
    ['production', false],
    ['test', false],
  ];

  describe.each(envs)('env %s', (env, exposesStack) => {
    let t: TestApp;
    let token: string;
    beforeAll(async () => {
      t = await startTestApp({ dialect, config: { env } });
      token = (await registerUser(t)).token;
      expect((await t.request({ method: 'GET', url: '/auth/me', token })).statusCode).toBe(200);
      await t.database.close();
    });
    // The database handle is already closed: only the app is left to close.
    afterAll(async () => {
      if (t) await t.app.close();
    });

    it.each(['/auth/me', '/workspaces'])(`GET %s answers 500 ${exposesStack ? 'with' : 'without'} a stack`, async (url) => {
      const res = await t.request({ method: 'GET', url, token });
      expect(res.statusCode).toBe(500);
      const body = res.json<{ error: string; stack?: string }>();
      expect(typeof body.error).toBe('string');
      expect(body.error.length).toBeGreaterThan(0);
      if (exposesStack) {
        expect(Object.keys(body).sort()).toEqual(['error', 'stack']);
        expect(body.stack).toMatch(/\n\s+at /);
      } else {
        expect(body).toEqual({ error: 'Internal server error' });
        expect(res.body).not.toMatch(/\bat .*\.(ts|js):\d+/);
      }
    });

    it('a login answers 500 too (public route)', async () => {
      const res = await t.request({ method: 'POST', url: '/auth/login', payload: { email: 'someone@example.test', password: 'whatever' } });
      expect(res.statusCode).toBe(500);
      expect('stack' in res.json<object>()).toBe(exposesStack);
    });

    it('GET /readyz answers 503 while GET /healthz still answers 200', async () => {
      const ready = await t.request({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json<{ status: string }>().status).not.toBe('ready');
      expect((await t.request({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    });

    it('client errors keep their status and never carry a stack', async () => {
      const res = await t.request({ method: 'GET', url: '/workspaces', token: 'garbage' });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ error: expect.any(String) as string, code: 'INVALID_TOKEN' });
    });
  });
});
