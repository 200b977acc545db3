import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AssetView, PageView } from '../src/contracts/catalog.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { expectError, makeAsset, makeCollection, makeFolder, makeTeam, postData, type CollectionJson, type Team } from './helpers/catalog-factories.js';
import type { Envelope } from './helpers/factories.js';
import { dialects } from './helpers/databases.js';

describe.each(dialects)('assets on %s', (dialect) => {
  let t: TestApp;
  let team: Team;

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    team = await makeTeam(t);
  });
  afterAll(() => t.close());

  const get = (url: string, token: string) => t.request({ method: 'GET', url, token });
  const patch = (id: number, token: string, payload: object) => t.request({ method: 'PATCH', url: `/dam/assets/${id}`, token, payload });

  describe('GET /dam/assets', () => {
    let ws: number;
    let ids: number[];
    let folderId: number;

    beforeAll(async () => {
      // A fresh workspace of the owner so that counts are exact.
      const created = await t.request({ method: 'POST', url: '/workspaces', token: team.owner.token, payload: { name: 'Listing' } });
      ws = created.json<Envelope<{ id: number }>>().data.id;
      await t.request({ method: 'POST', url: `/workspaces/${ws}/members`, token: team.owner.token, payload: { email: team.viewer.user.email, role: 'viewer' } });
      folderId = (await makeFolder(t, team.owner, ws)).id;
      const a = await makeAsset(t.database.db, ws);
      const b = await makeAsset(t.database.db, ws, { folder_id: folderId });
      const c = await makeAsset(t.database.db, ws);
      ids = [a.id, b.id, c.id];
    });

    it('pages through the assets in id order with the list envelope', async () => {
      const p1 = await get(`/dam/assets?workspaceId=${ws}&per_page=2`, team.viewer.token);
      expect(p1.statusCode).toBe(200);
      const body = p1.json<Envelope<PageView<AssetView>>>();
      expect(body.success).toBe(true);
      expect(body.data).toMatchObject({ page: 1, per_page: 2, total: 3 });
      expect(body.data.items.map((a) => a.id)).toEqual(ids.slice(0, 2));
      const p2 = await get(`/dam/assets?workspaceId=${ws}&per_page=2&page=2`, team.viewer.token);
      expect(p2.json<Envelope<PageView<AssetView>>>().data).toMatchObject({ page: 2, per_page: 2, total: 3 });
      expect(p2.json<Envelope<PageView<AssetView>>>().data.items.map((a) => a.id)).toEqual([ids[2]]);
      const all = await get(`/dam/assets?workspaceId=${ws}`, team.viewer.token);
      expect(all.json<Envelope<PageView<AssetView>>>().data).toMatchObject({ page: 1, per_page: 50, total: 3 });
    });

    it('filters by folder: a folder id, root, or everything', async () => {
      const inFolder = await get(`/dam/assets?workspaceId=${ws}&folder_id=${folderId}`, team.owner.token);
      expect(inFolder.json<Envelope<PageView<AssetView>>>().data.items.map((a) => a.id)).toEqual([ids[1]]);
      const root = await get(`/dam/assets?workspaceId=${ws}&folder_id=root`, team.owner.token);
      expect(root.json<Envelope<PageView<AssetView>>>().data.items.map((a) => a.id)).toEqual([ids[0], ids[2]]);
      expect(root.json<Envelope<PageView<AssetView>>>().data.total).toBe(2);
    });

    it('refuses a folder of another workspace as filter', async () => {
      const foreign = await makeFolder(t, team.outsider, team.otherWs);
      expectError(await get(`/dam/assets?workspaceId=${ws}&folder_id=${foreign.id}`, team.owner.token), 400, 'VALIDATION_ERROR', 'folder_id');
    });

    it('answers 404 to a non-member and 401 without a token', async () => {
      expectError(await get(`/dam/assets?workspaceId=${ws}`, team.outsider.token), 404, 'NOT_FOUND');
      expectError(await t.request({ method: 'GET', url: `/dam/assets?workspaceId=${ws}` }), 401, 'UNAUTHORIZED');
    });

    it.each([
      ['per_page=0', 'per_page'],
      ['per_page=251', 'per_page'],
      ['page=0', 'page'],
      ['page=abc', 'page'],
      ['folder_id=nope', 'folder_id'],
      ['colour=red', 'colour'],
    ])('rejects %s naming the field', async (qs, field) => {
      expectError(await get(`/dam/assets?workspaceId=${ws}&${qs}`, team.owner.token), 400, 'VALIDATION_ERROR', field);
    });

    it('requires workspaceId', async () => {
      expectError(await get('/dam/assets', team.owner.token), 400, 'MISSING_PARAMETER', 'workspaceId');
    });
  });

  describe('GET /dam/assets/:id', () => {
    it('returns the whole asset object with derived file_type and orientation', async () => {
      const before = Math.floor(Date.now() / 1000);
      const asset = await makeAsset(t.database.db, team.ws, {
        file_name: 'scan.pdf',
        display_file_name: 'Quarterly scan',
        mime_type: 'application/pdf',
        file_size: 123456,
        width: 600,
        height: 900,
        tags: ['finance', 'q3'],
        visibility: 1,
        metadata: { source: 'scanner', pages: 3 },
        created_by: 'alice',
        // Private (visibility 1): the viewer reads it as its uploader (test/private-visibility.test.ts has the rule).
        uploaded_by: team.viewer.user.id,
        created_at: before,
      });
      const res = await get(`/dam/assets/${asset.id}`, team.viewer.token);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        success: true,
        data: {
          id: asset.id,
          workspace_id: team.ws,
          folder_id: null,
          display_file_name: 'Quarterly scan',
          file_name: 'scan.pdf',
          file_type: 'document',
          mime_type: 'application/pdf',
          file_size: 123456,
          width: 600,
          height: 900,
          orientation: 'portrait',
          page_count: null,
          // Issue #19: a factory asset has no stored file to hash.
          sha256: null,
          tags: ['finance', 'q3'],
          visibility: 1,
          metadata: { source: 'scanner', pages: 3 },
          created_by: 'alice',
          created_at: before,
          modified_at: before,
          // Embedded metadata (issue #12): nothing read from a file yet.
          ...Object.fromEntries(
            ['taken_at', 'camera_make', 'camera_model', 'lens', 'iso', 'exposure', 'aperture', 'focal_length', 'gps_lat', 'gps_lon', 'duration', 'color_space', 'caption', 'creator', 'copyright', 'usage_terms', 'metadata_version_id'].map((f) => [f, null]),
          ),
          keywords: [],
          metadata_edited: [],
          embedded_metadata: {},
          // Custom fields (issue #30): none defined in this workspace.
          custom_fields: {},
          missing_fields: [],
          // Issue #27: nothing found wrong with the file.
          unreadable: false,
          unreadable_reason: null,
        },
      });
    });

    it('gives null orientation without dimensions', async () => {
      const asset = await makeAsset(t.database.db, team.ws, { mime_type: 'audio/mpeg', width: null, height: null });
      const data = (await get(`/dam/assets/${asset.id}`, team.owner.token)).json<Envelope<AssetView>>().data;
      expect(data).toMatchObject({ file_type: 'audio', orientation: null, width: null, height: null });
    });

    it("answers the same 404 for another workspace's asset and a missing one", async () => {
      const foreign = await makeAsset(t.database.db, team.otherWs);
      const hidden = await get(`/dam/assets/${foreign.id}`, team.owner.token);
      const missing = await get('/dam/assets/99999999', team.owner.token);
      expectError(hidden, 404, 'NOT_FOUND');
      expect(hidden.json()).toEqual(missing.json());
      expect((await get(`/dam/assets/${foreign.id}`, team.outsider.token)).statusCode).toBe(200);
    });

    it('does not show an asset whose upload is still open', async () => {
      const created = await t.request({ method: 'POST', url: '/workspaces', token: team.owner.token, payload: { name: 'Uploads' } });
      const ws = created.json<Envelope<{ id: number }>>().data.id;
      const ready = await makeAsset(t.database.db, ws);
      const pending = await makeAsset(t.database.db, ws, { status: 'uploading' });
      const list = (await get(`/dam/assets?workspaceId=${ws}`, team.owner.token)).json<Envelope<PageView<AssetView>>>().data;
      expect(list.items.map((a) => a.id)).toEqual([ready.id]);
      expect(list.total).toBe(1);
      expectError(await get(`/dam/assets/${pending.id}`, team.owner.token), 404, 'NOT_FOUND');
      expectError(await patch(pending.id, team.owner.token, { tags: ['x'] }), 404, 'NOT_FOUND');
      const coll = await makeCollection(t, team.owner, ws);
      const add = await t.request({ method: 'POST', url: `/dam/collections/${coll.id}/assets`, token: team.owner.token, payload: { asset_ids: [pending.id] } });
      expectError(add, 400, 'VALIDATION_ERROR', 'asset_ids');
    });

    it('rejects a non-numeric id', async () => {
      expectError(await get('/dam/assets/abc', team.owner.token), 400, 'VALIDATION_ERROR', 'id');
    });
  });

  describe('PATCH /dam/assets/:id', () => {
    it('edits the editable properties and moves modified_at', async () => {
      const asset = await makeAsset(t.database.db, team.ws, { tags: ['old'] });
      const folder = await makeFolder(t, team.manager, team.ws);
      t.advanceClock(120);
      const res = await patch(asset.id, team.manager.token, {
        display_file_name: 'Renamed',
        tags: ['a', 'b'],
        visibility: 2,
        folder_id: folder.id,
        metadata: { k: [1, 2], nested: { x: true } },
      });
      expect(res.statusCode, res.body).toBe(200);
      const data = res.json<Envelope<AssetView>>().data;
      expect(data).toMatchObject({
        display_file_name: 'Renamed',
        file_name: asset.file_name,
        tags: ['a', 'b'],
        visibility: 2,
        folder_id: folder.id,
        metadata: { k: [1, 2], nested: { x: true } },
        created_at: asset.created_at,
      });
      expect(data.modified_at).toBeGreaterThanOrEqual(asset.modified_at + 120);
      // The change is stored, not just echoed (read by the owner: the asset is private now, which hides it from the viewer).
      expect((await get(`/dam/assets/${asset.id}`, team.owner.token)).json<Envelope<AssetView>>().data).toEqual(data);

      t.advanceClock(60);
      const out = await patch(asset.id, team.owner.token, { folder_id: null });
      const moved = out.json<Envelope<AssetView>>().data;
      expect(moved.folder_id).toBeNull();
      expect(moved.tags).toEqual(['a', 'b']);
      expect(moved.modified_at).toBeGreaterThanOrEqual(data.modified_at + 60);
    });

    it('forbids viewers and hides other workspaces', async () => {
      const asset = await makeAsset(t.database.db, team.ws);
      expectError(await patch(asset.id, team.viewer.token, { tags: ['x'] }), 403, 'FORBIDDEN');
      const hidden = await patch(asset.id, team.outsider.token, { tags: ['x'] });
      expectError(hidden, 404, 'NOT_FOUND');
      expect(hidden.json()).toEqual((await patch(99999999, team.outsider.token, { tags: ['x'] })).json());
      expect((await get(`/dam/assets/${asset.id}`, team.owner.token)).json<Envelope<AssetView>>().data.tags).toEqual([]);
    });

    it("cannot move an asset into another workspace's folder", async () => {
      const asset = await makeAsset(t.database.db, team.ws);
      const foreign = await makeFolder(t, team.outsider, team.otherWs);
      expectError(await patch(asset.id, team.owner.token, { folder_id: foreign.id }), 400, 'VALIDATION_ERROR', 'folder_id');
      expectError(await patch(asset.id, team.owner.token, { folder_id: 99999999 }), 400, 'VALIDATION_ERROR', 'folder_id');
      expect((await get(`/dam/assets/${asset.id}`, team.owner.token)).json<Envelope<AssetView>>().data.folder_id).toBeNull();
    });

    it.each([
      [{ visibility: -1 }, 'visibility'],
      [{ tags: [{ a: 1 }] }, 'tags.0'],
      [{ tags: [''] }, 'tags.0'],
      [{ tags: ['x', 'x'] }, 'tags'],
      [{ display_file_name: '' }, 'display_file_name'],
      [{ metadata: [1, 2] }, 'metadata'],
      [{ file_name: 'other.jpg' }, 'file_name'],
      [{}, 'body'],
    ])('rejects %j naming the field', async (payload, field) => {
      const asset = await makeAsset(t.database.db, team.ws);
      expectError(await patch(asset.id, team.owner.token, payload), 400, 'VALIDATION_ERROR', field);
    });
  });

  describe('DELETE /dam/assets/:id', () => {
    it('forbids viewers, hides other workspaces, deletes for managers', async () => {
      const asset = await makeAsset(t.database.db, team.ws);
      const del = (token: string) => t.request({ method: 'DELETE', url: `/dam/assets/${asset.id}`, token });
      expectError(await del(team.viewer.token), 403, 'FORBIDDEN');
      expectError(await del(team.outsider.token), 404, 'NOT_FOUND');
      const res = await del(team.manager.token);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ success: true, data: { id: asset.id } });
      expectError(await get(`/dam/assets/${asset.id}`, team.owner.token), 404, 'NOT_FOUND');
      expectError(await del(team.manager.token), 404, 'NOT_FOUND');
    });

    it('with permanent=true takes the asset out of its collections and closes the gap', async () => {
      const [a, b, c] = await Promise.all([1, 2, 3].map(() => makeAsset(t.database.db, team.ws)));
      const coll = await makeCollection(t, team.owner, team.ws);
      await postData<CollectionJson>(t, team.owner, `/dam/collections/${coll.id}/assets`, { asset_ids: [a!.id, b!.id, c!.id] }, 200);
      // Deleted at once; a trashed member keeps its position for a restore (test/trash.test.ts).
      expect((await t.request({ method: 'DELETE', url: `/dam/assets/${b!.id}?permanent=true`, token: team.owner.token })).statusCode).toBe(200);
      const after = (await get(`/dam/collections/${coll.id}`, team.owner.token)).json<Envelope<CollectionJson>>().data;
      expect(after.asset_ids).toEqual([a!.id, c!.id]);
      expect(after.asset_count).toBe(2);
      const positions = await t.database.db
        .selectFrom('collection_assets')
        .select(['asset_id', 'position'])
        .where('collection_id', '=', coll.id)
        .orderBy('position')
        .execute();
      expect(positions).toEqual([
        { asset_id: a!.id, position: 0 },
        { asset_id: c!.id, position: 1 },
      ]);
    });
  });
});
