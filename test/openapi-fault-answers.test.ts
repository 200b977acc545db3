import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';

/** Issue #37: the fault answers (503, 507 with Retry-After) are in the OpenAPI document, shared by every operation. */

type Responses = Record<string, { $ref?: string; content?: Record<string, unknown> }>;
interface Doc {
  paths: Record<string, Record<string, { responses: Responses }>>;
  components: { responses: Record<string, { headers?: Record<string, unknown> }>; headers: Record<string, unknown> };
}

describe('the fault answers in /openapi.json', () => {
  let t: TestApp;
  let doc: Doc;
  beforeAll(async () => {
    t = await startTestApp();
    doc = (await t.request({ method: 'GET', url: '/openapi.json' })).json<Doc>();
  });
  afterAll(() => t.close());

  const ref = (path: string, method: string, status: string) => doc.paths[path]?.[method]?.responses[status]?.$ref;

  it('shares three responses, each with Retry-After', () => {
    expect(Object.keys(doc.components.responses).sort()).toEqual(['DatabaseUnavailable', 'InsufficientStorage', 'ServiceUnavailable']);
    for (const response of Object.values(doc.components.responses)) {
      expect(response.headers).toEqual({ 'Retry-After': { $ref: '#/components/headers/RetryAfter' } });
    }
    expect(doc.components.headers.RetryAfter).toMatchObject({ schema: { type: 'integer' } });
  });

  it('lists the database\'s 503 on an operation that reads it, and the 507 where it writes', () => {
    expect(ref('/dam/assets', 'get', '503')).toBe('#/components/responses/DatabaseUnavailable');
    expect(ref('/dam/assets', 'get', '507')).toBeUndefined();
    expect(ref('/dam/folders', 'post', '503')).toBe('#/components/responses/DatabaseUnavailable');
    expect(ref('/dam/folders', 'post', '507')).toBe('#/components/responses/InsufficientStorage');
  });

  it('lists the store\'s 503 and the 507 on the operations that use the store', () => {
    for (const [path, method] of [
      ['/storage/complete-upload', 'post'],
      ['/storage/download', 'get'],
      ['/api/upload-asset', 'post'],
      ['/dam/versions/{id}/download', 'get'],
      ['/shared/public/{key}/assets/{assetId}/download', 'get'],
      ['/zip/download', 'get'],
      ['/drive-ext-1/upload', 'post'],
    ] as const) {
      expect(ref(path, method, '503'), `${method} ${path}`).toBe('#/components/responses/ServiceUnavailable');
      expect(ref(path, method, '507'), `${method} ${path}`).toBe('#/components/responses/InsufficientStorage');
    }
  });

  it('leaves the probes alone, and the part upload its S3 error documents', () => {
    expect(doc.paths['/healthz']!.get!.responses['503']).toBeUndefined();
    expect(ref('/readyz', 'get', '503')).toBeUndefined();
    expect(doc.paths['/readyz']!.get!.responses['503']!.content).toHaveProperty('application/json');
    const part = doc.paths['/storage/parts/{uploadId}/{partNumber}']!.put!.responses;
    expect(part['503']!.content).toHaveProperty('application/xml');
    expect(part['507']!.content).toHaveProperty('application/xml');
  });

  it('lists the 503 on every operation but a handful that touch neither the database nor the store', () => {
    const without = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => op.responses['503'] === undefined)
        .map(([method]) => `${method} ${path}`),
    );
    expect(without.sort()).toEqual([
      'get /.well-known/apple-app-site-association',
      'get /.well-known/assetlinks.json',
      'get /api/browser-os',
      'get /healthz',
      'get /ios-association',
      'get /media/icons/{file}',
    ]);
  });
});
