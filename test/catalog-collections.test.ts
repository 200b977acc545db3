import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CollectionView, PageView } from '../src/contracts/catalog.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { expectError, makeAsset, makeCollection, makeTeam, type CollectionJson, type Team } from './helpers/catalog-factories.js';
import type { Envelope } from './helpers/factories.js';
import { dialects } from './helpers/databases.js';

describe.each(dialects)('collections on %s', (dialect) => {
  let t: TestApp;
  let team: Team;

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    team = await makeTeam(t);
  });
  afterAll(() => t.close());

  const get = (url: string, token: string) => t.request({ method: 'GET', url, token });
  const detail = async (id: number) => (await get(`/dam/collections/${id}`, team.owner.token)).json<Envelope<CollectionJson>>().data;
  const members = (id: number, method: 'POST' | 'DELETE', token: string, payload: object) =>
    t.request({ method, url: `/dam/collections/${id}/assets`, token, payload });
  const positions = async (id: number) =>
    (
      await t.database.db.selectFrom('collection_assets').select(['asset_id', 'position']).where('collection_id', '=', id).orderBy('position').execute()
    ).map((r) => [r.asset_id, r.position]);
  const assets = (n: number, ws = team.ws) => Promise.all(Array.from({ length: n }, () => makeAsset(t.database.db, ws)));

  describe('POST /dam/collections', () => {
    it('creates an empty collection', async () => {
      const res = await t.request({
        method: 'POST',
        url: '/dam/collections',
        token: team.manager.token,
        payload: { workspace_id: team.ws, name: 'Launch', description: 'Picks for the launch', tags: ['2025'], visibility: 1 },
      });
      expect(res.statusCode, res.body).toBe(201);
      const data = res.json<Envelope<CollectionJson>>().data;
      expect(res.json()).toEqual({
        success: true,
        data: {
          id: data.id,
          workspace_id: team.ws,
          name: 'Launch',
          description: 'Picks for the launch',
          visibility: 1,
          tags: ['2025'],
          asset_count: 0,
          asset_ids: [],
          custom_fields: {},
          missing_fields: [],
          created_at: expect.any(Number) as number,
          modified_at: data.created_at,
        },
      });
      expect(await makeCollection(t, team.owner, team.ws, { name: 'Plain' })).toMatchObject({ description: '', visibility: 0, tags: [] });
    });

    it('forbids viewers, hides foreign workspaces, validates', async () => {
      const post = (token: string, payload: object) => t.request({ method: 'POST', url: '/dam/collections', token, payload });
      expectError(await post(team.viewer.token, { workspace_id: team.ws, name: 'X' }), 403, 'FORBIDDEN');
      expectError(await post(team.outsider.token, { workspace_id: team.ws, name: 'X' }), 404, 'NOT_FOUND');
      expectError(await post(team.owner.token, { workspace_id: team.ws, name: 'X', visibility: -1 }), 400, 'VALIDATION_ERROR', 'visibility');
      expectError(await post(team.owner.token, { workspace_id: team.ws, name: 'X', tags: [{ nested: true }] }), 400, 'VALIDATION_ERROR', 'tags.0');
      expectError(await post(team.owner.token, { workspace_id: team.ws, name: 'X', asset_ids: [1] }), 400, 'VALIDATION_ERROR', 'asset_ids');
      expectError(await post(team.owner.token, { workspace_id: team.ws }), 400, 'MISSING_PARAMETER', 'name');
    });
  });

  describe('GET /dam/collections', () => {
    it('lists with asset counts and pages, for viewers; 404 for outsiders', async () => {
      const created = await t.request({ method: 'POST', url: '/workspaces', token: team.owner.token, payload: { name: 'Colls' } });
      const ws = created.json<Envelope<{ id: number }>>().data.id;
      await t.request({ method: 'POST', url: `/workspaces/${ws}/members`, token: team.owner.token, payload: { email: team.viewer.user.email, role: 'viewer' } });
      const c1 = await makeCollection(t, team.owner, ws);
      const c2 = await makeCollection(t, team.owner, ws);
      const c3 = await makeCollection(t, team.owner, ws);
      const [a, b] = await assets(2, ws);
      expect((await members(c2.id, 'POST', team.owner.token, { asset_ids: [a!.id, b!.id] })).statusCode).toBe(200);

      const res = await get(`/dam/collections?workspaceId=${ws}&per_page=2`, team.viewer.token);
      expect(res.statusCode, res.body).toBe(200);
      const page = res.json<Envelope<PageView<CollectionView>>>().data;
      expect(page).toMatchObject({ page: 1, per_page: 2, total: 3 });
      expect(page.items.map((c) => [c.id, c.asset_count])).toEqual([
        [c1.id, 0],
        [c2.id, 2],
      ]);
      expect(page.items[0]).not.toHaveProperty('asset_ids');
      const p2 = (await get(`/dam/collections?workspaceId=${ws}&per_page=2&page=2`, team.viewer.token)).json<Envelope<PageView<CollectionView>>>().data;
      expect(p2.items.map((c) => c.id)).toEqual([c3.id]);

      expectError(await get(`/dam/collections?workspaceId=${ws}`, team.outsider.token), 404, 'NOT_FOUND');
      expectError(await get(`/dam/collections?workspaceId=${ws}&per_page=251`, team.owner.token), 400, 'VALIDATION_ERROR', 'per_page');
    });
  });

  describe('GET /dam/collections/:id', () => {
    it('reads for viewers; a foreign collection looks missing', async () => {
      const c = await makeCollection(t, team.owner, team.ws);
      expect((await get(`/dam/collections/${c.id}`, team.viewer.token)).json()).toEqual({ success: true, data: c });
      const foreign = await makeCollection(t, team.outsider, team.otherWs);
      const hidden = await get(`/dam/collections/${foreign.id}`, team.owner.token);
      expectError(hidden, 404, 'NOT_FOUND');
      expect(hidden.json()).toEqual((await get('/dam/collections/99999999', team.owner.token)).json());
    });
  });

  describe('PATCH /dam/collections/:id', () => {
    it('edits and moves modified_at; forbids viewers; hides from outsiders; validates', async () => {
      const c = await makeCollection(t, team.owner, team.ws);
      const patch = (token: string, payload: object) => t.request({ method: 'PATCH', url: `/dam/collections/${c.id}`, token, payload });
      t.advanceClock(45);
      const res = await patch(team.manager.token, { name: 'Renamed', description: 'd', tags: ['t'], visibility: 0 });
      expect(res.statusCode, res.body).toBe(200);
      const data = res.json<Envelope<CollectionJson>>().data;
      expect(data).toMatchObject({ name: 'Renamed', description: 'd', tags: ['t'], visibility: 0, created_at: c.created_at, asset_ids: [] });
      expect(data.modified_at).toBeGreaterThanOrEqual(c.modified_at + 45);
      expect(await detail(c.id)).toEqual(data);

      expectError(await patch(team.viewer.token, { name: 'No' }), 403, 'FORBIDDEN');
      expectError(await patch(team.outsider.token, { name: 'No' }), 404, 'NOT_FOUND');
      expectError(await patch(team.owner.token, { name: '' }), 400, 'VALIDATION_ERROR', 'name');
      expectError(await patch(team.owner.token, { workspace_id: team.otherWs }), 400, 'VALIDATION_ERROR', 'workspace_id');
      expect((await detail(c.id)).name).toBe('Renamed');
    });
  });

  describe('collection membership', () => {
    it('appends in the given order and leaves present ids in place', async () => {
      const [a, b, c, d] = await assets(4);
      const coll = await makeCollection(t, team.owner, team.ws);
      t.advanceClock(30);
      const first = await members(coll.id, 'POST', team.manager.token, { asset_ids: [c!.id, a!.id] });
      expect(first.statusCode, first.body).toBe(200);
      expect(first.json<Envelope<CollectionJson>>().data).toMatchObject({ asset_ids: [c!.id, a!.id], asset_count: 2 });
      expect(first.json<Envelope<CollectionJson>>().data.modified_at).toBeGreaterThanOrEqual(coll.modified_at + 30);

      const second = await members(coll.id, 'POST', team.owner.token, { asset_ids: [d!.id, a!.id, b!.id] });
      expect(second.json<Envelope<CollectionJson>>().data.asset_ids).toEqual([c!.id, a!.id, d!.id, b!.id]);
      expect(await positions(coll.id)).toEqual([
        [c!.id, 0],
        [a!.id, 1],
        [d!.id, 2],
        [b!.id, 3],
      ]);
      expect((await detail(coll.id)).asset_ids).toEqual([c!.id, a!.id, d!.id, b!.id]);
    });

    it('removes ids, keeps the order dense, ignores ids not in the collection', async () => {
      const [a, b, c, d] = await assets(4);
      const coll = await makeCollection(t, team.owner, team.ws);
      await members(coll.id, 'POST', team.owner.token, { asset_ids: [a!.id, b!.id, c!.id, d!.id] });
      const res = await members(coll.id, 'DELETE', team.manager.token, { asset_ids: [c!.id, a!.id, 99999999] });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json<Envelope<CollectionJson>>().data).toMatchObject({ asset_ids: [b!.id, d!.id], asset_count: 2 });
      expect(await positions(coll.id)).toEqual([
        [b!.id, 0],
        [d!.id, 1],
      ]);
      // Re-adding goes to the end.
      const again = await members(coll.id, 'POST', team.owner.token, { asset_ids: [a!.id] });
      expect(again.json<Envelope<CollectionJson>>().data.asset_ids).toEqual([b!.id, d!.id, a!.id]);
      expect(await positions(coll.id)).toEqual([
        [b!.id, 0],
        [d!.id, 1],
        [a!.id, 2],
      ]);
      // Assets stay in the catalog.
      expect((await get(`/dam/assets/${c!.id}`, team.owner.token)).statusCode).toBe(200);
    });

    it("refuses another workspace's asset, and a missing one, changing nothing", async () => {
      const [a] = await assets(1);
      const [foreign] = await assets(1, team.otherWs);
      const coll = await makeCollection(t, team.owner, team.ws);
      expectError(await members(coll.id, 'POST', team.owner.token, { asset_ids: [a!.id, foreign!.id] }), 400, 'VALIDATION_ERROR', 'asset_ids');
      expectError(await members(coll.id, 'POST', team.owner.token, { asset_ids: [99999999] }), 400, 'VALIDATION_ERROR', 'asset_ids');
      expect((await detail(coll.id)).asset_ids).toEqual([]);
    });

    it.each([
      [{ asset_ids: [] }, 'asset_ids'],
      [{ asset_ids: [1, 1] }, 'asset_ids'],
      [{ asset_ids: ['x'] }, 'asset_ids.0'],
      [{ asset_ids: [0] }, 'asset_ids.0'],
      [{ asset_ids: [1], position: 0 }, 'position'],
    ])('rejects %j naming the field', async (payload, field) => {
      const coll = await makeCollection(t, team.owner, team.ws);
      expectError(await members(coll.id, 'POST', team.owner.token, payload), 400, 'VALIDATION_ERROR', field);
      expectError(await members(coll.id, 'DELETE', team.owner.token, payload), 400, 'VALIDATION_ERROR', field);
    });

    it('forbids viewers and hides foreign collections', async () => {
      const [a] = await assets(1);
      const coll = await makeCollection(t, team.owner, team.ws);
      for (const method of ['POST', 'DELETE'] as const) {
        expectError(await members(coll.id, method, team.viewer.token, { asset_ids: [a!.id] }), 403, 'FORBIDDEN');
        expectError(await members(coll.id, method, team.outsider.token, { asset_ids: [a!.id] }), 404, 'NOT_FOUND');
      }
      expect((await detail(coll.id)).asset_ids).toEqual([]);
    });
  });

  describe('DELETE /dam/collections/:id', () => {
    it('deletes the collection but keeps its assets; forbids viewers; hides from outsiders', async () => {
      const [a] = await assets(1);
      const coll = await makeCollection(t, team.owner, team.ws);
      await members(coll.id, 'POST', team.owner.token, { asset_ids: [a!.id] });
      const del = (token: string) => t.request({ method: 'DELETE', url: `/dam/collections/${coll.id}`, token });
      expectError(await del(team.viewer.token), 403, 'FORBIDDEN');
      expectError(await del(team.outsider.token), 404, 'NOT_FOUND');
      const res = await del(team.manager.token);
      expect(res.json()).toEqual({ success: true, data: { id: coll.id } });
      expectError(await get(`/dam/collections/${coll.id}`, team.owner.token), 404, 'NOT_FOUND');
      expect((await get(`/dam/assets/${a!.id}`, team.owner.token)).statusCode).toBe(200);
      // In the trash, the membership is kept for a restore; a permanent deletion (admins) takes it.
      expect(await positions(coll.id)).toEqual([[a!.id, 0]]);
      const other = await makeCollection(t, team.owner, team.ws);
      await members(other.id, 'POST', team.owner.token, { asset_ids: [a!.id] });
      expectError(await t.request({ method: 'DELETE', url: `/dam/collections/${other.id}?permanent=true`, token: team.manager.token }), 403, 'FORBIDDEN');
      expect((await t.request({ method: 'DELETE', url: `/dam/collections/${other.id}?permanent=true`, token: team.owner.token })).statusCode).toBe(200);
      expect(await positions(other.id)).toEqual([]);
      expect((await get(`/dam/assets/${a!.id}`, team.owner.token)).statusCode).toBe(200);
    });
  });

  it('documents the catalog routes in OpenAPI under their tags', async () => {
    const doc = (await t.request({ method: 'GET', url: '/openapi.json' })).json<{ paths: Record<string, Record<string, { tags?: string[]; summary?: string }>> }>();
    expect(doc.paths['/dam/assets']?.get?.tags).toEqual(['assets']);
    expect(doc.paths['/dam/folders/{id}']?.delete?.tags).toEqual(['folders']);
    expect(doc.paths['/dam/collections/{id}/assets']?.post?.tags).toEqual(['collections']);
    expect(doc.paths['/dam/collections/{id}/assets']?.delete?.summary).toBeTruthy();
  });
});
