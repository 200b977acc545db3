import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PageView } from '../src/contracts/catalog.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import {
  expectError,
  makeAsset,
  makeCollection,
  makeFolder,
  makeTeam,
  postData,
  type CollectionJson,
  type FolderJson,
  type Team,
} from './helpers/catalog-factories.js';
import type { Envelope } from './helpers/factories.js';
import { dialects } from './helpers/databases.js';

describe.each(dialects)('folders on %s', (dialect) => {
  let t: TestApp;
  let team: Team;

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    team = await makeTeam(t);
  });
  afterAll(() => t.close());

  const get = (url: string, token: string) => t.request({ method: 'GET', url, token });
  const post = (token: string, payload: object) => t.request({ method: 'POST', url: '/dam/folders', token, payload });
  const patch = (id: number, token: string, payload: object) => t.request({ method: 'PATCH', url: `/dam/folders/${id}`, token, payload });
  const del = (id: number, token: string, qs = '') => t.request({ method: 'DELETE', url: `/dam/folders/${id}${qs}`, token });
  const exists = async (id: number) => (await get(`/dam/folders/${id}`, team.owner.token)).statusCode === 200;

  describe('POST /dam/folders', () => {
    it('creates a top-level folder with defaults, then a nested one', async () => {
      const res = await post(team.manager.token, { workspace_id: team.ws, name: 'Brand' });
      expect(res.statusCode, res.body).toBe(201);
      const folder = res.json<Envelope<FolderJson>>().data;
      expect(res.json()).toEqual({
        success: true,
        data: {
          id: folder.id,
          workspace_id: team.ws,
          parent_id: null,
          name: 'Brand',
          visibility: 0,
          tags: [],
          created_at: expect.any(Number) as number,
          modified_at: folder.created_at,
        },
      });
      const child = await makeFolder(t, team.owner, team.ws, { parent_id: folder.id, name: 'Logos', visibility: 1, tags: ['svg'] });
      expect(child).toMatchObject({ parent_id: folder.id, name: 'Logos', visibility: 1, tags: ['svg'], workspace_id: team.ws });
    });

    it('forbids viewers and hides workspaces the caller is not in', async () => {
      expectError(await post(team.viewer.token, { workspace_id: team.ws, name: 'X' }), 403, 'FORBIDDEN');
      expectError(await post(team.outsider.token, { workspace_id: team.ws, name: 'X' }), 404, 'NOT_FOUND');
    });

    it('refuses a parent of another workspace', async () => {
      const foreign = await makeFolder(t, team.outsider, team.otherWs);
      expectError(await post(team.owner.token, { workspace_id: team.ws, name: 'X', parent_id: foreign.id }), 400, 'VALIDATION_ERROR', 'parent_id');
    });

    it.each([
      ['no workspace_id', { name: 'X' }, 'workspace_id'],
      ['an empty name', { name: '' }, 'name'],
      ['a blank name', { name: '   ' }, 'name'],
      ['visibility -1', { name: 'X', visibility: -1 }, 'visibility'],
      ['a tag that is not a string', { name: 'X', tags: [{}] }, 'tags.0'],
      ['an unknown property', { name: 'X', colour: 'red' }, 'colour'],
    ])('rejects %s naming the field', async (_what, payload, field) => {
      const missing = field === 'workspace_id';
      const body = missing ? payload : { workspace_id: team.ws, ...payload };
      expectError(await post(team.owner.token, body), 400, missing ? 'MISSING_PARAMETER' : 'VALIDATION_ERROR', field);
    });
  });

  describe('GET /dam/folders', () => {
    let ws: number;
    let top: FolderJson;
    let child: FolderJson;
    let grandchild: FolderJson;
    let top2: FolderJson;

    beforeAll(async () => {
      const created = await t.request({ method: 'POST', url: '/workspaces', token: team.owner.token, payload: { name: 'Tree' } });
      ws = created.json<Envelope<{ id: number }>>().data.id;
      await t.request({ method: 'POST', url: `/workspaces/${ws}/members`, token: team.owner.token, payload: { email: team.viewer.user.email, role: 'viewer' } });
      top = await makeFolder(t, team.owner, ws);
      child = await makeFolder(t, team.owner, ws, { parent_id: top.id });
      grandchild = await makeFolder(t, team.owner, ws, { parent_id: child.id });
      top2 = await makeFolder(t, team.owner, ws);
    });

    const ids = async (qs: string) => {
      const res = await get(`/dam/folders?workspaceId=${ws}${qs}`, team.viewer.token);
      expect(res.statusCode, res.body).toBe(200);
      return res.json<Envelope<PageView<FolderJson>>>().data;
    };

    it('lists every folder, the top level, or the children of one', async () => {
      expect((await ids('')).items.map((f) => f.id)).toEqual([top.id, child.id, grandchild.id, top2.id]);
      expect((await ids('&parent_id=root')).items.map((f) => f.id)).toEqual([top.id, top2.id]);
      expect((await ids(`&parent_id=${top.id}`)).items.map((f) => f.id)).toEqual([child.id]);
      expect((await ids(`&parent_id=${grandchild.id}`)).items).toEqual([]);
    });

    it('pages', async () => {
      const page = await ids('&per_page=3&page=2');
      expect(page).toMatchObject({ page: 2, per_page: 3, total: 4 });
      expect(page.items.map((f) => f.id)).toEqual([top2.id]);
    });

    it('refuses bad filters and non-members', async () => {
      const foreign = await makeFolder(t, team.outsider, team.otherWs);
      expectError(await get(`/dam/folders?workspaceId=${ws}&parent_id=${foreign.id}`, team.owner.token), 400, 'VALIDATION_ERROR', 'parent_id');
      expectError(await get(`/dam/folders?workspaceId=${ws}&per_page=0`, team.owner.token), 400, 'VALIDATION_ERROR', 'per_page');
      expectError(await get(`/dam/folders?workspaceId=${ws}`, team.outsider.token), 404, 'NOT_FOUND');
    });
  });

  describe('GET /dam/folders/:id', () => {
    it('reads for viewers; other workspaces look missing', async () => {
      const folder = await makeFolder(t, team.owner, team.ws, { name: 'Readable' });
      const res = await get(`/dam/folders/${folder.id}`, team.viewer.token);
      // With its custom fields (issue #30): none defined here.
      expect(res.json()).toEqual({ success: true, data: { ...folder, custom_fields: {}, missing_fields: [] } });
      const hidden = await get(`/dam/folders/${folder.id}`, team.outsider.token);
      expectError(hidden, 404, 'NOT_FOUND');
      expect(hidden.json()).toEqual((await get('/dam/folders/99999999', team.outsider.token)).json());
    });
  });

  describe('PATCH /dam/folders/:id', () => {
    it('renames, retags and moves, moving modified_at', async () => {
      const a = await makeFolder(t, team.owner, team.ws);
      const b = await makeFolder(t, team.owner, team.ws);
      t.advanceClock(90);
      const res = await patch(b.id, team.manager.token, { name: 'Moved', parent_id: a.id, tags: ['x'], visibility: 3 });
      expect(res.statusCode, res.body).toBe(200);
      const moved = res.json<Envelope<FolderJson>>().data;
      expect(moved).toMatchObject({ id: b.id, name: 'Moved', parent_id: a.id, tags: ['x'], visibility: 3, created_at: b.created_at });
      expect(moved.modified_at).toBeGreaterThanOrEqual(b.modified_at + 90);
      const back = await patch(b.id, team.manager.token, { parent_id: null });
      expect(back.json<Envelope<FolderJson>>().data).toMatchObject({ parent_id: null, name: 'Moved' });
    });

    it('refuses to make a folder its own ancestor', async () => {
      const a = await makeFolder(t, team.owner, team.ws);
      const b = await makeFolder(t, team.owner, team.ws, { parent_id: a.id });
      const c = await makeFolder(t, team.owner, team.ws, { parent_id: b.id });
      expectError(await patch(a.id, team.owner.token, { parent_id: a.id }), 400, 'VALIDATION_ERROR', 'parent_id');
      expectError(await patch(a.id, team.owner.token, { parent_id: c.id }), 400, 'VALIDATION_ERROR', 'parent_id');
      expectError(await patch(a.id, team.owner.token, { parent_id: b.id }), 400, 'VALIDATION_ERROR', 'parent_id');
      expect((await get(`/dam/folders/${a.id}`, team.owner.token)).json<Envelope<FolderJson>>().data.parent_id).toBeNull();
      // Moving down a sibling branch is fine.
      const d = await makeFolder(t, team.owner, team.ws);
      expect((await patch(c.id, team.owner.token, { parent_id: d.id })).statusCode).toBe(200);
    });

    it('refuses a parent of another workspace; forbids viewers; hides from outsiders', async () => {
      const a = await makeFolder(t, team.owner, team.ws);
      const foreign = await makeFolder(t, team.outsider, team.otherWs);
      expectError(await patch(a.id, team.owner.token, { parent_id: foreign.id }), 400, 'VALIDATION_ERROR', 'parent_id');
      expectError(await patch(foreign.id, team.owner.token, { name: 'mine' }), 404, 'NOT_FOUND');
      expectError(await patch(a.id, team.viewer.token, { name: 'Nope' }), 403, 'FORBIDDEN');
      expectError(await patch(a.id, team.owner.token, {}), 400, 'VALIDATION_ERROR', 'body');
      expectError(await patch(a.id, team.owner.token, { workspace_id: team.otherWs }), 400, 'VALIDATION_ERROR', 'workspace_id');
    });
  });

  describe('DELETE /dam/folders/:id', () => {
    it('deletes an empty folder; forbids viewers; hides from outsiders', async () => {
      const f = await makeFolder(t, team.owner, team.ws);
      expectError(await del(f.id, team.viewer.token), 403, 'FORBIDDEN');
      expectError(await del(f.id, team.outsider.token), 404, 'NOT_FOUND');
      const res = await del(f.id, team.manager.token);
      expect(res.json()).toEqual({ success: true, data: { id: f.id, deleted_folders: 1, deleted_assets: 0 } });
      expect(await exists(f.id)).toBe(false);
    });

    it('is 409 for a folder with a subfolder or an asset', async () => {
      const withChild = await makeFolder(t, team.owner, team.ws);
      await makeFolder(t, team.owner, team.ws, { parent_id: withChild.id });
      expectError(await del(withChild.id, team.owner.token), 409, 'NOT_EMPTY');
      const withAsset = await makeFolder(t, team.owner, team.ws);
      await makeAsset(t.database.db, team.ws, { folder_id: withAsset.id });
      expectError(await del(withAsset.id, team.owner.token, '?recursive=false'), 409, 'NOT_EMPTY');
      expect(await exists(withChild.id)).toBe(true);
      expect(await exists(withAsset.id)).toBe(true);
    });

    it('with recursive=true (and permanent=true) deletes the subtree and its assets, nothing else', async () => {
      const root = await makeFolder(t, team.owner, team.ws);
      const sub = await makeFolder(t, team.owner, team.ws, { parent_id: root.id });
      const subsub = await makeFolder(t, team.owner, team.ws, { parent_id: sub.id });
      const sibling = await makeFolder(t, team.owner, team.ws);
      const inRoot = await makeAsset(t.database.db, team.ws, { folder_id: root.id });
      const deep = await makeAsset(t.database.db, team.ws, { folder_id: subsub.id });
      const elsewhere = await makeAsset(t.database.db, team.ws, { folder_id: sibling.id });
      const loose = await makeAsset(t.database.db, team.ws);
      const coll = await makeCollection(t, team.owner, team.ws);
      await postData<CollectionJson>(t, team.owner, `/dam/collections/${coll.id}/assets`, { asset_ids: [inRoot.id, elsewhere.id, deep.id, loose.id] }, 200);

      // Deleted at once (the trash has its own tests in test/trash.test.ts), so the positions close up.
      const res = await del(root.id, team.owner.token, '?recursive=true&permanent=true');
      expect(res.json()).toEqual({ success: true, data: { id: root.id, deleted_folders: 3, deleted_assets: 2 } });
      for (const id of [root.id, sub.id, subsub.id]) expect(await exists(id)).toBe(false);
      expect(await exists(sibling.id)).toBe(true);
      expectError(await get(`/dam/assets/${inRoot.id}`, team.owner.token), 404, 'NOT_FOUND');
      expectError(await get(`/dam/assets/${deep.id}`, team.owner.token), 404, 'NOT_FOUND');
      expect((await get(`/dam/assets/${elsewhere.id}`, team.owner.token)).statusCode).toBe(200);
      expect((await get(`/dam/assets/${loose.id}`, team.owner.token)).statusCode).toBe(200);

      const after = (await get(`/dam/collections/${coll.id}`, team.owner.token)).json<Envelope<CollectionJson>>().data;
      expect(after.asset_ids).toEqual([elsewhere.id, loose.id]);
      const positions = await t.database.db.selectFrom('collection_assets').select('position').where('collection_id', '=', coll.id).orderBy('position').execute();
      expect(positions.map((p) => p.position)).toEqual([0, 1]);
    });

    it('rejects a recursive flag that is not a boolean', async () => {
      const f = await makeFolder(t, team.owner, team.ws);
      expectError(await del(f.id, team.owner.token, '?recursive=maybe'), 400, 'VALIDATION_ERROR', 'recursive');
    });
  });
});
