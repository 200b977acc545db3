import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDam, DamApiError, type Dam } from '../sdk/src/index.js';
import { startHttpTestApp, type TestApp } from './helpers/app.js';
import { dialects } from './helpers/databases.js';
import { registerUser, type Account } from './helpers/factories.js';

/** The SDK's single-request upload (POST /api/upload-asset), which the dam CLI uses for small files. */
describe.each(dialects)('SDK uploadWhole on %s', (dialect) => {
  let t: TestApp & { baseUrl: string };
  let owner: Account;
  let dam: Dam;

  beforeAll(async () => {
    t = await startHttpTestApp({ dialect, config: { maxFileSize: 4096 } });
    owner = await registerUser(t);
    dam = createDam({ baseUrl: t.baseUrl, token: owner.token });
  });
  afterAll(async () => {
    await t.close();
  });

  it('stores the file with its folder and tags; the same Idempotency-Key answers the same asset', async () => {
    const bytes = randomBytes(1000);
    const folder = (await t.request({ method: 'POST', url: '/dam/folders', token: owner.token, payload: { workspace_id: owner.workspaceId, name: 'in' } })).json<{ data: { id: number } }>().data.id;
    const options = { workspaceId: owner.workspaceId, folderId: folder, name: 'a.bin', tags: ['x', 'y z'], idempotencyKey: 'cli-test-key-1' };
    const first = await dam.uploadWhole(new Blob([bytes]), options);
    const again = await dam.uploadWhole(new Blob([bytes]), options);
    expect(again.assetId).toBe(first.assetId);
    const asset = (await t.request({ method: 'GET', url: `/dam/assets/${first.assetId}`, token: owner.token })).json<{ data: Record<string, unknown> }>().data;
    expect(asset).toMatchObject({ folder_id: folder, tags: ['x', 'y z'], file_size: 1000, display_file_name: 'a.bin' });
    const listed = (await t.request({ method: 'GET', url: `/dam/assets?workspaceId=${owner.workspaceId}`, token: owner.token })).json<{ data: { total: number } }>().data;
    expect(listed.total).toBe(1);
  });

  it('a refusal is a DamApiError with the status, not retried', async () => {
    const err = await dam.uploadWhole(new Blob([randomBytes(5000)]), { workspaceId: owner.workspaceId, name: 'big.bin' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DamApiError);
    expect((err as DamApiError).status).toBe(413);
  });

  it('waits out the per-user rate limit (429 with Retry-After) instead of failing: more files than the limit all arrive', { timeout: 30_000 }, async () => {
    const limited = await startHttpTestApp({ dialect, config: { userRateLimit: 4, userRateWindowMs: 9000 } });
    try {
      const user = await registerUser(limited);
      const client = createDam({ baseUrl: limited.baseUrl, token: user.token });
      const ids: number[] = [];
      // 4 requests per 9 s: the fifth upload is refused with 429 and sent again after Retry-After, a longer wait than the
      // five attempts of the backoff policy (0.5 + 1 + 2 + 4 s) would cover.
      for (let i = 0; i < 5; i += 1) ids.push((await client.uploadWhole(new Blob([randomBytes(100)]), { workspaceId: user.workspaceId, name: `f${i}.bin` })).assetId);
      expect(new Set(ids).size).toBe(5);
    } finally {
      await limited.close();
    }
  });
});
