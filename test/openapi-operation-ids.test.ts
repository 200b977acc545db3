import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATION_IDS, OPERATION_VERBS } from '../src/http/operation-ids.js';
import { startTestApp, type TestApp } from './helpers/app.js';

type Paths = Record<string, Record<string, { operationId?: string }>>;

/**
 * Every operation of /openapi.json has the operationId of src/http/operation-ids.ts (issue #38): client generators
 * name their methods after it, so it must exist, be unique, and come from the one reviewed table.
 */
describe('OpenAPI operationIds', () => {
  let t: TestApp;
  let operations: { key: string; operationId: string | undefined }[];
  beforeAll(async () => {
    t = await startTestApp();
    const res = await t.request({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const paths = res.json<{ paths: Paths }>().paths;
    operations = Object.entries(paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, operationId: op.operationId })),
    );
  });
  afterAll(() => t.close());

  it('gives every operation the id its entry in OPERATION_IDS names', () => {
    expect(operations.length).toBeGreaterThan(100);
    const missing = operations.filter((op) => !(op.key in OPERATION_IDS)).map((op) => op.key);
    expect(missing, 'operations without an entry in src/http/operation-ids.ts OPERATION_IDS').toEqual([]);
    for (const op of operations) expect(op.operationId, op.key).toBe(OPERATION_IDS[op.key]);
  });

  it('has no entry in OPERATION_IDS that matches no operation', () => {
    const documented = new Set(operations.map((op) => op.key));
    const stale = Object.keys(OPERATION_IDS).filter((key) => !documented.has(key));
    expect(stale, 'entries of src/http/operation-ids.ts that match no operation of the document').toEqual([]);
  });

  it('uses each id once', () => {
    const seen = new Map<string, string>();
    const duplicates: string[] = [];
    for (const [key, id] of Object.entries(OPERATION_IDS)) {
      if (seen.has(id)) duplicates.push(`${id}: ${seen.get(id)} and ${key}`);
      seen.set(id, key);
    }
    expect(duplicates).toEqual([]);
    const inDocument = operations.map((op) => op.operationId);
    expect(new Set(inDocument).size).toBe(inDocument.length);
  });

  it('starts every id with a verb of OPERATION_VERBS, in camelCase', () => {
    const shape = new RegExp(`^(${OPERATION_VERBS.join('|')})[A-Z][A-Za-z0-9]*$`);
    const bad = Object.values(OPERATION_IDS).filter((id) => !shape.test(id));
    expect(bad, `ids not of the form <verb>Name, verb one of ${OPERATION_VERBS.join(', ')}`).toEqual([]);
  });

  it('keeps the released ids of the upload and version operations (the SDK uses them)', () => {
    const idOf = (key: string) => operations.find((op) => op.key === key)?.operationId;
    expect(idOf('POST /api/upload-asset')).toBe('uploadAsset');
    expect(idOf('POST /dam/assets/{id}/versions')).toBe('createAssetVersion');
    expect(idOf('GET /dam/assets/{id}/versions')).toBe('listAssetVersions');
  });

  it('keeps the ids in the one-tag parts /docs loads', async () => {
    const res = await t.request({ method: 'GET', url: '/openapi.json?tag=versions' });
    expect(res.statusCode).toBe(200);
    expect(res.json<{ paths: Paths }>().paths['/dam/assets/{id}/versions']?.post?.operationId).toBe('createAssetVersion');
  });
});
