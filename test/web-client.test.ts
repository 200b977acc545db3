import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import type { FastifyInstance } from 'fastify';
import { testConfig } from './helpers/app.js';
import { openTestDatabase, tempDir } from './helpers/databases.js';
import type { DatabaseHandle } from '../src/db/database.js';

const INDEX = '<!doctype html><title>DAM</title><div id="app"></div>';

async function appWith(webDir: string): Promise<{ app: FastifyInstance; database: DatabaseHandle }> {
  const database = await openTestDatabase('sqlite');
  const app = await buildApp(testConfig(), { database, logger: false, webDir });
  await app.ready();
  return { app, database };
}

describe('the web client at /', () => {
  let app: FastifyInstance;
  let database: DatabaseHandle;
  beforeAll(async () => {
    const dir = tempDir('dam-web-');
    mkdirSync(path.join(dir, 'assets'));
    writeFileSync(path.join(dir, 'index.html'), INDEX);
    writeFileSync(path.join(dir, 'assets', 'index-abc123.js'), 'console.log(1)');
    writeFileSync(path.join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    ({ app, database } = await appWith(dir));
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it('serves index.html at / and at client routes, uncached and without Referer', async () => {
    for (const url of ['/', '/login', '/library', '/asset/12', '/social-login?access_token=ya29.x', '/settings/workspace/3']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toMatch(/text\/html/);
      expect(res.body).toBe(INDEX);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
    }
  });

  it('answers other unknown paths with index.html for a browser and the API 404 for anyone else', async () => {
    const browser = await app.inject({ method: 'GET', url: '/no/such/page', headers: { accept: 'text/html,application/xhtml+xml' } });
    expect(browser.statusCode).toBe(200);
    expect(browser.body).toBe(INDEX);
    const api = await app.inject({ method: 'GET', url: '/no/such/page' });
    expect(api.statusCode).toBe(404);
    expect(api.json<{ code: string }>().code).toBe('NOT_FOUND');
    // Under an API prefix even a browser gets the API's answer.
    const reserved = await app.inject({ method: 'GET', url: '/dam/nope', headers: { accept: 'text/html' } });
    expect(reserved.statusCode).toBe(404);
    expect(reserved.json<{ code: string }>().code).toBe('NOT_FOUND');
  });

  it('serves built files, hashed ones as immutable', async () => {
    const js = await app.inject({ method: 'GET', url: '/assets/index-abc123.js' });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toMatch(/javascript/);
    expect(js.headers['cache-control']).toMatch(/immutable/);
    const icon = await app.inject({ method: 'GET', url: '/favicon.svg' });
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['cache-control']).toBe('no-cache');
  });

  it('answers 404 for a missing file and never escapes the build folder', async () => {
    expect((await app.inject({ method: 'GET', url: '/assets/missing.js' })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/../package.json' })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/assets/..%2f..%2fpackage.json' })).statusCode).toBe(404);
  });

  it('does not shadow the API, its 404s, /docs or /openapi.json', async () => {
    const openapi = await app.inject({ method: 'GET', url: '/openapi.json' });
    expect(openapi.statusCode).toBe(200);
    expect(openapi.json<{ openapi: string }>().openapi).toBe('3.1.0');
    const docs = await app.inject({ method: 'GET', url: '/docs' });
    expect(docs.body).not.toBe(INDEX);
    expect((await app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    for (const url of ['/dam/nope', '/auth/nope', '/storage/nope/deeper', '/workspaces/1/nope', '/search-engine/x']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.json<{ code: string }>().code).toBe('NOT_FOUND');
    }
    // A route that exists for another method is still the API's, not the client's.
    const get = await app.inject({ method: 'GET', url: '/auth/login' });
    expect(get.statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/auth/me' })).statusCode).toBe(401);
  });

  it('is not part of the OpenAPI document', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json<{ paths: Record<string, unknown> }>();
    expect(Object.keys(doc.paths)).not.toContain('/*');
    expect(Object.keys(doc.paths)).not.toContain('/');
  });
});

describe('the web client before it is built', () => {
  it('answers 503 with how to build it, and 404 for files', async () => {
    const { app, database } = await appWith(tempDir('dam-web-empty-'));
    try {
      const res = await app.inject({ method: 'GET', url: '/library' });
      expect(res.statusCode).toBe(503);
      expect(res.body).toMatch(/npm run build/);
      expect((await app.inject({ method: 'GET', url: '/assets/x.js' })).statusCode).toBe(404);
    } finally {
      await app.close();
      await database.close();
    }
  });
});
