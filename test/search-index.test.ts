import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';
import { makeAsset, makeCollection, makeFolder } from './helpers/catalog-factories.js';
import { dialects } from './helpers/databases.js';
import { registerUser, type Account } from './helpers/factories.js';
import { search, searchAssets } from './helpers/search-fixtures.js';
import { dropSearchSchema, indexSnapshot } from './helpers/search-schema.js';
import { createSearchSchema } from '../src/search/index-schema/index.js';

/**
 * The index follows every catalog write in the same transaction (triggers,
 * issue #4 item 5): edits through the API, deletions and their cascades,
 * rows written directly, and rolled-back transactions.
 */
describe.each(dialects)('search index in step with the catalog on %s', (dialect) => {
  let t: TestApp;
  let owner: Account;
  let ws: number;

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    owner = await registerUser(t);
    ws = owner.workspaceId;
  });
  afterAll(() => t.close());

  const names = async (q: string, filter?: string) => (await searchAssets(t, owner, q, filter)).hits.map((h) => h.document.display_file_name);
  const api = (method: 'PATCH' | 'DELETE', url: string, payload?: object) => t.request({ method, url, token: owner.token, ...(payload && { payload }) });

  it('follows PATCH of an asset: name, tags, visibility, folder', async () => {
    const folder = await makeFolder(t, owner, ws, { name: 'Moves' });
    const asset = await makeAsset(t.database.db, ws, { file_name: 'kettle.jpg', tags: ['kitchen'] });
    expect(await names('kettle')).toEqual(['kettle.jpg']);
    const res = await api('PATCH', `/dam/assets/${asset.id}`, { display_file_name: 'Teapot', tags: ['tea'], visibility: 1, folder_id: folder.id });
    expect(res.statusCode).toBe(200);
    expect(await names('teapot')).toEqual(['Teapot']);
    // The file name is still searchable; the old tag is not.
    expect(await names('kettle')).toEqual(['Teapot']);
    expect(await names('kitchen')).toEqual([]);
    expect(await names('*', `tags:=[tea] && visibility:=1 && folder_id:=${folder.id}`)).toEqual(['Teapot']);
    const [hit] = (await searchAssets(t, owner, 'teapot')).hits;
    expect(hit!.document.modified_at).toBe(res.json<{ data: { modified_at: number } }>().data.modified_at);
  });

  it('drops deleted assets, and the assets and folders of a deleted folder tree', async () => {
    const top = await makeFolder(t, owner, ws, { name: 'Doomed top' });
    const sub = await makeFolder(t, owner, ws, { name: 'Doomed sub', parent_id: top.id });
    await makeAsset(t.database.db, ws, { file_name: 'doomed-1.png', folder_id: sub.id });
    const single = await makeAsset(t.database.db, ws, { file_name: 'doomed-2.png' });
    expect(await names('doomed')).toHaveLength(2);
    expect((await api('DELETE', `/dam/assets/${single.id}`)).statusCode).toBe(200);
    expect(await names('doomed')).toEqual(['doomed-1.png']);
    expect((await api('DELETE', `/dam/folders/${top.id}?recursive=true`)).statusCode).toBe(200);
    expect(await names('doomed')).toEqual([]);
    const [folders] = await search(t, owner, { request: { q: 'doomed', collections: ['digital_assets_categories'] } });
    expect(folders!.found).toBe(0);
  });

  it('moves assets to no folder when their folder goes (ON DELETE SET NULL)', async () => {
    const folder = await makeFolder(t, owner, ws, { name: 'Emptied' });
    const asset = await makeAsset(t.database.db, ws, { file_name: 'orphan.png', folder_id: folder.id });
    await t.database.db.deleteFrom('folders').where('id', '=', folder.id).execute();
    const [hit] = (await searchAssets(t, owner, 'orphan')).hits;
    expect(hit!.document).toMatchObject({ id: String(asset.id), folder_id: null });
  });

  it('follows collections: rename, description, delete', async () => {
    const c = await makeCollection(t, owner, ws, { name: 'Moodboard', description: 'autumn leaves' });
    const find = async (q: string) => (await search(t, owner, { request: { q, collections: ['dam_collections'] } }))[0]!.hits.map((h) => h.document.display_file_name);
    expect(await find('leaves')).toEqual(['Moodboard']);
    await api('PATCH', `/dam/collections/${c.id}`, { name: 'Palette', description: 'spring' });
    expect(await find('leaves')).toEqual([]);
    expect(await find('palette spring')).toEqual(['Palette']);
    await api('DELETE', `/dam/collections/${c.id}`);
    expect(await find('palette')).toEqual([]);
  });

  it('drops everything of a deleted workspace', async () => {
    const created = await t.request({ method: 'POST', url: '/workspaces', token: owner.token, payload: { name: 'Temp' } });
    const temp = created.json<{ data: { id: number } }>().data.id;
    await makeAsset(t.database.db, temp, { file_name: 'ephemeral.png', tags: ['ephemeral'] });
    await makeFolder(t, owner, temp, { name: 'ephemeral folder' });
    expect((await search(t, owner, { request: { q: 'ephemeral' } })).map((r) => r.found)).toEqual([1, 1, 0]);
    expect((await api('DELETE', `/workspaces/${temp}`)).statusCode).toBe(200);
    expect((await search(t, owner, { request: { q: 'ephemeral' } })).map((r) => r.found)).toEqual([0, 0, 0]);
    const leftovers = await t.database.db.selectFrom('search_documents').select('doc_id').where('workspace_id', '=', temp).execute();
    expect(leftovers).toEqual([]);
    expect(await t.database.db.selectFrom('search_tags').select('doc_id').where('workspace_id', '=', temp).execute()).toEqual([]);
  });

  it('rolls the index back with the catalog write', async () => {
    await expect(
      t.database.db.transaction().execute(async (trx) => {
        await makeAsset(trx, ws, { file_name: 'phantom.png' });
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await names('phantom')).toEqual([]);
  });

  it('backfills what the catalog holds exactly as the triggers index it', async () => {
    const before = await indexSnapshot(t.database);
    await dropSearchSchema(t.database);
    await createSearchSchema[dialect](t.database.db);
    expect(await indexSnapshot(t.database)).toEqual(before);
    expect(await names('teapot')).toEqual(['Teapot']);
  });
});
