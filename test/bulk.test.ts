import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';
import { expectError, makeAsset, makeFolder, makeTeam, type Team } from './helpers/catalog-factories.js';
import { dialects } from './helpers/databases.js';
import type { Account, Envelope } from './helpers/factories.js';
import { searchAssets } from './helpers/search-fixtures.js';

interface Result {
  id: number;
  ok: boolean;
  code?: string;
  error?: string;
}
interface AssetJson {
  id: number;
  folder_id: number | null;
  tags: string[];
  visibility: number;
  modified_at: number;
}

/** POST /dam/assets/bulk (issue #11): one action on many assets, one transaction, a result per id. */
describe.each(dialects)('bulk operations on %s', (dialect) => {
  let t: TestApp;
  let team: Team;
  let ws: number;

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    team = await makeTeam(t);
    ws = team.ws;
  });
  afterAll(() => t.close());

  const bulk = (body: object, who: Account = team.manager) =>
    t.request({ method: 'POST', url: '/dam/assets/bulk', token: who.token, payload: { workspaceId: ws, ...body } });
  const results = async (body: object, who?: Account): Promise<Result[]> => {
    const res = await bulk(body, who);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<Envelope<{ results: Result[] }>>().data.results;
  };
  const asset = async (id: number, who: Account = team.owner) => {
    const res = await t.request({ method: 'GET', url: `/dam/assets/${id}`, token: who.token });
    return res.statusCode === 200 ? res.json<Envelope<AssetJson>>().data : null;
  };
  const notFound = (id: number) => ({ id, ok: false, code: 'NOT_FOUND', error: `Asset ${id} not found` });

  /** Two assets of the workspace, one of another workspace, one in the trash, one that never existed. */
  async function mixed(overrides: Parameters<typeof makeAsset>[2] = {}) {
    const [a, b] = [await makeAsset(t.database.db, ws, overrides), await makeAsset(t.database.db, ws, overrides)];
    const foreign = await makeAsset(t.database.db, team.otherWs, overrides);
    const trashed = await makeAsset(t.database.db, ws, overrides);
    expect((await t.request({ method: 'DELETE', url: `/dam/assets/${trashed.id}`, token: team.owner.token })).statusCode).toBe(200);
    return { a: a.id, b: b.id, foreign: foreign.id, trashed: trashed.id, missing: 987_654_321 };
  }

  it('delete moves the assets to the trash; other ids are NOT_FOUND and untouched', async () => {
    const m = await mixed({ file_name: 'wombat.png' });
    expect(await results({ action: 'delete', asset_ids: [m.a, m.foreign, m.missing, m.b, m.trashed] })).toEqual([
      { id: m.a, ok: true },
      notFound(m.foreign),
      notFound(m.missing),
      { id: m.b, ok: true },
      notFound(m.trashed),
    ]);
    expect(await asset(m.a)).toBeNull();
    expect(await asset(m.b)).toBeNull();
    expect((await searchAssets(t, team.owner, 'wombat')).found).toBe(0);
    const trash = await t.request({ method: 'GET', url: `/dam/trash?workspaceId=${ws}&per_page=250`, token: team.owner.token });
    const trashed = trash.json<Envelope<{ items: { kind: string; id: number; deleted_by: string }[] }>>().data.items;
    expect(trashed.filter((i) => i.kind === 'asset' && [m.a, m.b].includes(i.id)).map((i) => i.deleted_by)).toEqual([
      team.manager.user.name,
      team.manager.user.name,
    ]);
    expect(await asset(m.foreign, team.outsider)).not.toBeNull();
  });

  it('move sets the folder (or the top level); a folder that is not a live folder of the workspace is 400', async () => {
    const m = await mixed();
    const folder = await makeFolder(t, team.owner, ws);
    expect(await results({ action: 'move', asset_ids: [m.a, m.foreign, m.b, m.trashed], folder_id: folder.id })).toEqual([
      { id: m.a, ok: true },
      notFound(m.foreign),
      { id: m.b, ok: true },
      notFound(m.trashed),
    ]);
    expect((await asset(m.a))?.folder_id).toBe(folder.id);
    expect((await asset(m.foreign, team.outsider))?.folder_id).toBeNull();
    expect((await searchAssets(t, team.owner, '*', `folder_id:=${folder.id}`)).found).toBe(2);

    const theirs = await makeFolder(t, team.outsider, team.otherWs);
    const binned = await makeFolder(t, team.owner, ws);
    expect((await t.request({ method: 'DELETE', url: `/dam/folders/${binned.id}`, token: team.owner.token })).statusCode).toBe(200);
    for (const folderId of [theirs.id, binned.id, 987_654_321]) {
      expectError(await bulk({ action: 'move', asset_ids: [m.a], folder_id: folderId }), 400, 'VALIDATION_ERROR', 'folder_id');
    }
    expect((await asset(m.a))?.folder_id).toBe(folder.id);

    expect(await results({ action: 'move', asset_ids: [m.a], folder_id: null })).toEqual([{ id: m.a, ok: true }]);
    expect((await asset(m.a))?.folder_id).toBeNull();
  });

  it('tag merges without duplicates (at most 100 per asset), untag removes', async () => {
    const m = await mixed({ tags: ['keep', 'red'] });
    const full = await makeAsset(t.database.db, ws, { tags: Array.from({ length: 99 }, (_, i) => `t${i}`) });
    expect(await results({ action: 'tag', asset_ids: [m.a, full.id, m.foreign, m.b], tags: ['red', 'blue', 'green'] })).toEqual([
      { id: m.a, ok: true },
      { id: full.id, ok: false, code: 'VALIDATION_ERROR', error: expect.stringContaining('100') as string },
      notFound(m.foreign),
      { id: m.b, ok: true },
    ]);
    expect((await asset(m.a))?.tags).toEqual(['keep', 'red', 'blue', 'green']);
    // Logged per asset, as PATCH logs it.
    const log = await t.request({ method: 'GET', url: `/dam/activity?workspaceId=${ws}&asset_id=${m.a}`, token: team.owner.token });
    expect(log.json<Envelope<{ items: { action: string; changes: unknown }[] }>>().data.items[0]).toEqual(
      expect.objectContaining({ action: 'asset.update', changes: { tags: { before: ['keep', 'red'], after: ['keep', 'red', 'blue', 'green'] } } }),
    );
    expect((await asset(full.id))?.tags).toHaveLength(99);
    expect((await asset(m.foreign, team.outsider))?.tags).toEqual(['keep', 'red']);
    expect((await searchAssets(t, team.owner, '*', 'tags:=[blue]')).hits.map((h) => Number(h.document.id)).sort()).toEqual([m.a, m.b].sort());

    expect(await results({ action: 'untag', asset_ids: [m.b, m.trashed], tags: ['red', 'absent'] })).toEqual([{ id: m.b, ok: true }, notFound(m.trashed)]);
    expect((await asset(m.b))?.tags).toEqual(['keep', 'blue', 'green']);
    expect((await asset(m.a))?.tags).toEqual(['keep', 'red', 'blue', 'green']);
  });

  it('set_visibility sets visibility', async () => {
    const m = await mixed({ visibility: 0 });
    expect(await results({ action: 'set_visibility', asset_ids: [m.b, m.missing, m.a], visibility: 1 })).toEqual([
      { id: m.b, ok: true },
      notFound(m.missing),
      { id: m.a, ok: true },
    ]);
    expect((await asset(m.a))?.visibility).toBe(1);
    expect((await asset(m.foreign, team.outsider))?.visibility).toBe(0);
    expect((await searchAssets(t, team.owner, '*', `visibility:=1 && id:=[${m.a}, ${m.b}]`)).found).toBe(2);
  });

  it.each([
    [{ action: 'move' }, 'folder_id'],
    [{ action: 'tag' }, 'tags'],
    [{ action: 'untag', tags: [] }, 'tags'],
    [{ action: 'set_visibility' }, 'visibility'],
    [{ action: 'delete', tags: ['x'] }, 'tags'],
    [{ action: 'delete', folder_id: null }, 'folder_id'],
    [{ action: 'tag', tags: ['x'], visibility: 1 }, 'visibility'],
    [{ action: 'move', folder_id: null, tags: ['x'] }, 'tags'],
    [{ action: 'rename' }, 'action'],
    [{ action: 'tag', tags: ['x', 'x'] }, 'tags'],
  ])('refuses an ill-formed combination %j naming %s', async (body, field) => {
    const a = await makeAsset(t.database.db, ws, { tags: ['before'] });
    expectError(await bulk({ asset_ids: [a.id], ...body }), 400, 'VALIDATION_ERROR', field);
    expect((await asset(a.id))?.tags).toEqual(['before']);
  });

  it('takes 1 to 1,000 distinct ids', async () => {
    const a = await makeAsset(t.database.db, ws);
    expectError(await bulk({ action: 'delete', asset_ids: Array.from({ length: 1001 }, (_, i) => i + 1) }), 400, 'VALIDATION_ERROR', 'asset_ids');
    expectError(await bulk({ action: 'delete', asset_ids: [] }), 400, 'VALIDATION_ERROR', 'asset_ids');
    expectError(await bulk({ action: 'delete', asset_ids: [a.id, a.id] }), 400, 'VALIDATION_ERROR', 'asset_ids');
    const many = Array.from({ length: 1000 }, (_, i) => 900_000_000 + i);
    const answered = await results({ action: 'set_visibility', asset_ids: [a.id, ...many.slice(1)], visibility: 2 });
    expect(answered).toHaveLength(1000);
    expect(answered[0]).toEqual({ id: a.id, ok: true });
    expect(answered.filter((r) => !r.ok)).toHaveLength(999);
  });

  it('is for managers and admins of the workspace', async () => {
    const a = await makeAsset(t.database.db, ws);
    expectError(await bulk({ action: 'delete', asset_ids: [a.id] }, team.viewer), 403, 'FORBIDDEN');
    expectError(await bulk({ action: 'delete', asset_ids: [a.id] }, team.outsider), 404, 'NOT_FOUND');
    expect(await asset(a.id)).not.toBeNull();
    expect(await results({ action: 'delete', asset_ids: [a.id] }, team.owner)).toEqual([{ id: a.id, ok: true }]);
  });
});
