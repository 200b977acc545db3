import { readFile, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderSchema } from '../sdk/scripts/render-schema.js';
import { startTestApp, type TestApp } from './helpers/app.js';

/**
 * The SDK's types (sdk/src/schema.d.ts) are generated from the app's OpenAPI document. This suite renders them
 * again in memory from an app built with the test config and fails when the committed file differs, so a schema
 * change without `npm run sdk:generate` fails CI. `npm run sdk:generate` runs this file with DAM_SDK_WRITE=1,
 * which writes the file instead: the same app, the same config, no running server.
 */
const SCHEMA_FILE = new URL('../sdk/src/schema.d.ts', import.meta.url);
const WRITE = process.env.DAM_SDK_WRITE === '1';

describe('SDK types', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it(WRITE ? 'writes sdk/src/schema.d.ts' : 'sdk/src/schema.d.ts matches the OpenAPI document (run `npm run sdk:generate` when not)', async () => {
    const rendered = await renderSchema(t.app.swagger());
    if (WRITE) {
      await writeFile(SCHEMA_FILE, rendered);
      return;
    }
    const committed = await readFile(SCHEMA_FILE, 'utf8').catch(() => '');
    expect(committed === rendered, 'sdk/src/schema.d.ts is stale: run `npm run sdk:generate`').toBe(true);
  });
});
