import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpTestApp, type TestApp } from './helpers/app.js';
import { registerUser, type Account } from './helpers/factories.js';
import { serverUpload } from './helpers/versions.js';

/** Issue #5: search documents of assets carry the current version's signed thumbnail and file URLs. */
describe('search documents link to thumbnails and files', () => {
  let t: TestApp & { baseUrl: string };
  let owner: Account;

  beforeAll(async () => {
    t = await startHttpTestApp();
    owner = await registerUser(t);
  });
  afterAll(() => t.close());

  it('an asset hit has thumbnail_url and file_url that work without a bearer token; folders have none', async () => {
    const jpeg = await sharp({ create: { width: 640, height: 480, channels: 3, background: 'green' } }).jpeg().toBuffer();
    const asset = await serverUpload(t, owner, { bytes: jpeg, name: 'meadow.jpg', type: 'image/jpeg' });
    await t.request({ method: 'POST', url: '/dam/folders', token: owner.token, payload: { workspace_id: owner.workspaceId, name: 'meadows' } });
    await t.app.jobs.drain();

    const res = await t.request({
      method: 'POST',
      url: '/search-engine/search',
      token: owner.token,
      payload: { request: { q: 'meadow', collections: ['digital_assets', 'digital_assets_categories'] } },
    });
    expect(res.statusCode).toBe(200);
    const [assets, folders] = res.json<{ results: { hits: { document: Record<string, unknown> }[] }[] }>().results;
    const doc = assets!.hits[0]!.document;
    expect(doc.id).toBe(String(asset.id));
    expect(typeof doc.thumbnail_url).toBe('string');
    expect(typeof doc.file_url).toBe('string');
    expect(folders!.hits[0]!.document).not.toHaveProperty('thumbnail_url');

    const thumb = await fetch(doc.thumbnail_url as string);
    expect(thumb.status).toBe(200);
    expect(thumb.headers.get('content-type')).toBe('image/webp');
    const meta = await sharp(Buffer.from(await thumb.arrayBuffer())).metadata();
    expect(Math.max(meta.width ?? 0, meta.height ?? 0)).toBe(256);
    const file = await fetch(doc.file_url as string);
    expect(file.status).toBe(200);
    expect(Buffer.compare(Buffer.from(await file.arrayBuffer()), jpeg)).toBe(0);
  });
});
