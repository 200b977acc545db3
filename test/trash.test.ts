import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../src/config.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { expectError, makeAsset, makeCollection, makeFolder, makeTeam, postData, type CollectionJson, type FolderJson, type Team } from './helpers/catalog-factories.js';
import { dialects } from './helpers/databases.js';
import type { Account, Envelope } from './helpers/factories.js';
import { search, searchAssets } from './helpers/search-fixtures.js';
import { downloadRequest, makeJpeg, objectExists } from './helpers/uploads.js';
import { listVersions, multipart, pathOf, serverUpload, text, uploadVersion } from './helpers/versions.js';

interface TrashItem {
  kind: 'asset' | 'folder' | 'collection';
  id: number;
  name: string;
  folder_id: number | null;
  deleted_at: number;
  purge_at: number;
  deleted_by: string | null;
  file_type: string | null;
  mime_type: string | null;
  file_size: number | null;
  thumbnail_url: string | null;
}
interface Page<T> {
  items: T[];
  total: number;
}
interface Result {
  kind?: string;
  id: number;
  ok: boolean;
  code?: string;
  error?: string;
}

const DAY = 86_400;

describe('DAM_TRASH_DAYS', () => {
  const base = { DAM_DATA_DIR: '/tmp/dam-config-trash', DAM_JWT_SECRET: 'a-secret-that-is-long-enough-0123456789' };
  it('defaults to 30 days, takes 0 and up, refuses anything else', () => {
    expect(loadConfig(base).trashDays).toBe(30);
    expect(loadConfig({ ...base, DAM_TRASH_DAYS: '0' }).trashDays).toBe(0);
    expect(loadConfig({ ...base, DAM_TRASH_DAYS: '7' }).trashDays).toBe(7);
    for (const bad of ['-1', '1.5', 'week']) expect(() => loadConfig({ ...base, DAM_TRASH_DAYS: bad })).toThrow(/DAM_TRASH_DAYS/);
  });
});

/**
 * The trash (issue #11): DELETE moves assets, folders and collections there; they vanish from
 * every list, search, collection and file route until restored; admins empty it, housekeeping
 * purges it after DAM_TRASH_DAYS, and only then are files removed.
 */
describe.each(dialects)('trash on %s', (dialect) => {
  let t: TestApp;
  let team: Team;
  let ws: number;

  beforeAll(async () => {
    // Housekeeping runs from a one-minute setInterval, driven here; sessions outlive the clock moves of the purge test.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    t = await startTestApp({ dialect, config: { sessionTtl: 400 * DAY } });
    team = await makeTeam(t);
    ws = team.ws;
  });
  afterAll(async () => {
    await t.close();
    vi.useRealTimers();
  });

  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, who: Account = team.owner, payload?: object) =>
    t.request({ method, url, token: who.token, ...(payload && { payload }) });
  const data = <T>(res: { statusCode: number; body: string; json: <U>() => U }, status = 200): T => {
    expect(res.statusCode, res.body).toBe(status);
    return res.json<Envelope<T>>().data;
  };
  const trashList = async (who: Account = team.viewer, qs = '') => data<Page<TrashItem>>(await call('GET', `/dam/trash?workspaceId=${ws}${qs}`, who));
  const inTrash = async (kind: TrashItem['kind'], id: number) => (await trashList(team.owner, '&per_page=250')).items.find((i) => i.kind === kind && i.id === id);
  const restore = async (body: object, who: Account = team.manager) =>
    data<{ results: Result[] }>(await call('POST', '/dam/trash/restore', who, { workspaceId: ws, ...body })).results;
  const assetIds = async (qs = '') => data<Page<{ id: number }>>(await call('GET', `/dam/assets?workspaceId=${ws}&per_page=250${qs}`)).items.map((a) => a.id);
  const folderIds = async () => data<Page<{ id: number }>>(await call('GET', `/dam/folders?workspaceId=${ws}&per_page=250`)).items.map((f) => f.id);
  const found = async (q: string, kind = 'digital_assets') => (await search(t, team.owner, { request: { q, collections: [kind] } }))[0]!.found;
  const suggestions = async (q: string) => data<string[]>(await call('GET', `/search-engine/suggestions?q=${q}&workspaceId=${ws}`));
  /** The newest activity entries of the workspace (or of one asset): action, actor id, subject id, changes. */
  const activity = async (qs = '') =>
    data<{ items: { action: string; actor: { id: number | null }; subject: { id: number }; changes: Record<string, unknown> }[] }>(
      await call('GET', `/dam/activity?workspaceId=${ws}${qs}`),
    ).items;

  it('trashes an asset: gone from lists, search, suggestions, collections, versions and downloads; restored in place', async () => {
    const photo = await serverUpload(t, team.owner, { bytes: await makeJpeg(64, 48), name: 'okapi-plains.jpg', type: 'image/jpeg' }, ws);
    await uploadVersion(t, team.owner, photo.id, { bytes: await makeJpeg(64, 48), name: 'okapi-v2.jpg', type: 'image/jpeg' });
    await t.app.jobs.drain();
    data(await call('PATCH', `/dam/assets/${photo.id}`, team.owner, { tags: ['quaggatag'] }));
    const [before, after] = [await makeAsset(t.database.db, ws), await makeAsset(t.database.db, ws)];
    const coll = await makeCollection(t, team.owner, ws);
    await postData(t, team.owner, `/dam/collections/${coll.id}/assets`, { asset_ids: [before.id, photo.id, after.id] }, 200);
    const [v2, v1] = await listVersions(t, team.owner, photo.id);
    const key = `${ws}/digital_assets/${photo.id}`;

    expectError(await call('DELETE', `/dam/assets/${photo.id}`, team.viewer), 403, 'FORBIDDEN');
    expectError(await call('DELETE', `/dam/assets/${photo.id}`, team.outsider), 404, 'NOT_FOUND');
    expect(data(await call('DELETE', `/dam/assets/${photo.id}`, team.manager))).toEqual({ id: photo.id });

    expectError(await call('GET', `/dam/assets/${photo.id}`), 404, 'NOT_FOUND');
    expectError(await call('DELETE', `/dam/assets/${photo.id}`), 404, 'NOT_FOUND');
    expect(await assetIds()).not.toContain(photo.id);
    expect(await found('okapi')).toBe(0);
    expect((await searchAssets(t, team.owner, '*', `collection_id:=[${coll.id}]`)).hits.map((h) => Number(h.document.id))).toEqual(
      expect.not.arrayContaining([photo.id]),
    );
    expect(await suggestions('quagga')).toEqual([]);
    expect(await suggestions('okapi')).toEqual([]);
    const detail = data<CollectionJson>(await call('GET', `/dam/collections/${coll.id}`));
    expect(detail).toMatchObject({ asset_ids: [before.id, after.id], asset_count: 2 });
    const listed = data<Page<CollectionJson>>(await call('GET', `/dam/collections?workspaceId=${ws}&per_page=250`)).items.find((c) => c.id === coll.id);
    expect(listed?.asset_count).toBe(2);
    expectError(await call('POST', `/dam/collections/${coll.id}/assets`, team.owner, { asset_ids: [photo.id] }), 400, 'VALIDATION_ERROR', 'asset_ids');
    expectError(await call('GET', `/dam/assets/${photo.id}/versions`), 404, 'NOT_FOUND');
    expectError(await call('GET', `/dam/versions/${v1!.id}/download`), 404, 'NOT_FOUND');
    expectError(await call('POST', `/dam/versions/${v1!.id}/restore`), 404, 'NOT_FOUND');
    expectError(await downloadRequest(t, team.owner, key, ws), 404, 'NOT_FOUND');
    expectError(await call('DELETE', `/storage/delete?key=${key}&workspaceId=${ws}`), 404, 'NOT_FOUND');
    // Signed URLs handed out before: the file goes, the thumbnail stays for the trash view.
    expect((await t.request({ method: 'GET', url: pathOf(v2!.file_url) })).statusCode).toBe(404);
    expect((await t.request({ method: 'GET', url: pathOf(v2!.thumbnail_url) })).statusCode).toBe(200);
    // Its files stay stored (and counted) while it is in the trash.
    expect(await objectExists(t, key)).toBe(true);

    const item = await inTrash('asset', photo.id);
    expect(item).toMatchObject({
      name: 'okapi-plains.jpg',
      folder_id: null,
      deleted_by: team.manager.user.name,
      file_type: 'image',
      mime_type: 'image/jpeg',
      file_size: v2!.file_size,
    });
    expect(item!.purge_at).toBe(item!.deleted_at + 30 * DAY);
    expect(item!.thumbnail_url).toBe(v2!.thumbnail_url);
    expectError(await call('GET', `/dam/trash?workspaceId=${ws}`, team.outsider), 404, 'NOT_FOUND');

    expectError(await call('POST', '/dam/trash/restore', team.viewer, { workspaceId: ws, asset_ids: [photo.id] }), 403, 'FORBIDDEN');
    expect(await restore({ asset_ids: [photo.id] })).toEqual([{ kind: 'asset', id: photo.id, ok: true }]);
    expect((await activity(`&asset_id=${photo.id}`)).slice(0, 2).map((e) => [e.action, e.actor.id])).toEqual([
      ['asset.restore', team.manager.user.id],
      ['asset.trash', team.manager.user.id],
    ]);
    expect(await inTrash('asset', photo.id)).toBeUndefined();
    expect(await assetIds()).toContain(photo.id);
    expect(await found('okapi')).toBe(1);
    expect(await suggestions('quagga')).toEqual(['quaggatag']);
    expect(data<CollectionJson>(await call('GET', `/dam/collections/${coll.id}`)).asset_ids).toEqual([before.id, photo.id, after.id]);
    expect((await listVersions(t, team.owner, photo.id)).map((v) => v.id)).toEqual([v2!.id, v1!.id]);
    expect((await downloadRequest(t, team.owner, key, ws)).statusCode).toBe(200);
    expect((await t.request({ method: 'GET', url: pathOf(v2!.file_url) })).statusCode).toBe(200);

    const again = await restore({ asset_ids: [photo.id] });
    expect(again).toEqual([{ kind: 'asset', id: photo.id, ok: false, code: 'NOT_FOUND', error: expect.stringContaining('not in') as string }]);
  });

  it('trashes a folder tree as one batch and restores it together; what was trashed before stays', async () => {
    const top = await makeFolder(t, team.owner, ws, { name: 'Gnu top' });
    const sub = await makeFolder(t, team.owner, ws, { name: 'Gnu sub', parent_id: top.id });
    const deep = await makeFolder(t, team.owner, ws, { name: 'Gnu deep', parent_id: sub.id });
    const inTop = await makeAsset(t.database.db, ws, { file_name: 'gnu-1.png', folder_id: top.id });
    const inDeep = await makeAsset(t.database.db, ws, { file_name: 'gnu-2.png', folder_id: deep.id });
    const earlier = await makeAsset(t.database.db, ws, { file_name: 'gnu-3.png', folder_id: sub.id });
    data(await call('DELETE', `/dam/assets/${earlier.id}`));
    t.advanceClock(5);

    expectError(await call('DELETE', `/dam/folders/${top.id}`, team.manager), 409, 'NOT_EMPTY');
    expect(data(await call('DELETE', `/dam/folders/${top.id}?recursive=true`, team.manager))).toEqual({
      id: top.id,
      deleted_folders: 3,
      deleted_assets: 2,
    });
    for (const f of [top, sub, deep]) expectError(await call('GET', `/dam/folders/${f.id}`), 404, 'NOT_FOUND');
    expect(await folderIds()).not.toEqual(expect.arrayContaining([top.id]));
    expect(await found('gnu', 'digital_assets_categories')).toBe(0);
    expect(await found('gnu')).toBe(0);
    for (const a of [inTop, inDeep]) expect(await assetIds()).not.toContain(a.id);
    const items = (await trashList(team.owner, '&per_page=250')).items;
    const batch = items.filter((i) => [top.id, sub.id, deep.id].includes(i.id) && i.kind === 'folder');
    expect(batch.map((i) => i.deleted_at)).toEqual([batch[0]!.deleted_at, batch[0]!.deleted_at, batch[0]!.deleted_at]);
    expect((await inTrash('asset', inDeep.id))?.deleted_at).toBe(batch[0]!.deleted_at);
    expect((await inTrash('asset', earlier.id))!.deleted_at).toBeLessThan(batch[0]!.deleted_at);
    // Newest deletion first.
    expect(items.findIndex((i) => i.id === earlier.id && i.kind === 'asset')).toBeGreaterThan(items.findIndex((i) => i.id === top.id && i.kind === 'folder'));

    // Nothing goes into a trashed folder.
    expectError(await call('POST', '/dam/folders', team.owner, { workspace_id: ws, name: 'x', parent_id: sub.id }), 400, 'VALIDATION_ERROR', 'parent_id');
    const loose = await makeAsset(t.database.db, ws);
    expectError(await call('PATCH', `/dam/assets/${loose.id}`, team.owner, { folder_id: deep.id }), 400, 'VALIDATION_ERROR', 'folder_id');
    expectError(await call('GET', `/dam/assets?workspaceId=${ws}&folder_id=${top.id}`), 400, 'VALIDATION_ERROR', 'folder_id');
    const upload = await multipart({ workspaceId: String(ws), folder_id: String(top.id), file: text('x') });
    expectError(await t.request({ method: 'POST', url: '/api/upload-asset', token: team.owner.token, ...upload }), 400, 'VALIDATION_ERROR', 'folder_id');

    expect(await restore({ folder_ids: [top.id] })).toEqual([{ kind: 'folder', id: top.id, ok: true }]);
    expect(await folderIds()).toEqual(expect.arrayContaining([top.id, sub.id, deep.id]));
    expect(await assetIds(`&folder_id=${deep.id}`)).toEqual([inDeep.id]);
    expect(await assetIds(`&folder_id=${top.id}`)).toEqual([inTop.id]);
    expect(await found('gnu', 'digital_assets_categories')).toBe(3);
    // Trashed on its own before the folder: still in the trash, and back where it was when restored.
    expect(await assetIds(`&folder_id=${sub.id}`)).toEqual([]);
    expect(await restore({ asset_ids: [earlier.id] })).toEqual([{ kind: 'asset', id: earlier.id, ok: true }]);
    expect(await assetIds(`&folder_id=${sub.id}`)).toEqual([earlier.id]);
  });

  it('restoring an item inside a trashed folder brings back the folders above it, not their other contents', async () => {
    const outer = await makeFolder(t, team.owner, ws);
    const inner = await makeFolder(t, team.owner, ws, { parent_id: outer.id });
    const wanted = await makeAsset(t.database.db, ws, { folder_id: inner.id });
    const other = await makeAsset(t.database.db, ws, { folder_id: outer.id });
    data(await call('DELETE', `/dam/folders/${outer.id}?recursive=true`));

    expect(await restore({ asset_ids: [wanted.id] })).toEqual([{ kind: 'asset', id: wanted.id, ok: true }]);
    expect(data<FolderJson>(await call('GET', `/dam/folders/${inner.id}`)).parent_id).toBe(outer.id);
    expect((await call('GET', `/dam/folders/${outer.id}`)).statusCode).toBe(200);
    expect(await assetIds(`&folder_id=${inner.id}`)).toEqual([wanted.id]);
    expect(await assetIds(`&folder_id=${outer.id}`)).toEqual([]);
    expect(await inTrash('asset', other.id)).toBeDefined();

    // A folder and an asset of its batch in one request: both succeed.
    const f = await makeFolder(t, team.owner, ws);
    const a = await makeAsset(t.database.db, ws, { folder_id: f.id });
    data(await call('DELETE', `/dam/folders/${f.id}?recursive=true`));
    expect(await restore({ asset_ids: [a.id], folder_ids: [f.id], collection_ids: [999_999] })).toEqual([
      { kind: 'folder', id: f.id, ok: true },
      { kind: 'asset', id: a.id, ok: true },
      { kind: 'collection', id: 999_999, ok: false, code: 'NOT_FOUND', error: expect.any(String) as string },
    ]);
  });

  it('restores an item whose folder was deleted for good at the top level', async () => {
    const gone = await makeFolder(t, team.owner, ws);
    const kept = await makeFolder(t, team.owner, ws, { parent_id: gone.id });
    const keptAsset = await makeAsset(t.database.db, ws, { folder_id: kept.id });
    const loose = await makeAsset(t.database.db, ws, { folder_id: gone.id });
    const live = await makeAsset(t.database.db, ws, { folder_id: gone.id });
    data(await call('DELETE', `/dam/assets/${loose.id}`));
    data(await call('DELETE', `/dam/folders/${kept.id}?recursive=true`));

    expect(data(await call('DELETE', `/dam/folders/${gone.id}?recursive=true&permanent=true`))).toEqual({ id: gone.id, deleted_folders: 1, deleted_assets: 1 });
    expect(await inTrash('folder', gone.id)).toBeUndefined();
    expectError(await call('GET', `/dam/assets/${live.id}`), 404, 'NOT_FOUND');
    expect(await inTrash('asset', loose.id)).toMatchObject({ folder_id: null });
    expect(await inTrash('folder', kept.id)).toMatchObject({ folder_id: null });

    expect((await restore({ asset_ids: [loose.id], folder_ids: [kept.id] })).every((r) => r.ok)).toBe(true);
    expect(data<{ folder_id: number | null }>(await call('GET', `/dam/assets/${loose.id}`)).folder_id).toBeNull();
    expect(data<FolderJson>(await call('GET', `/dam/folders/${kept.id}`)).parent_id).toBeNull();
    expect(await assetIds(`&folder_id=${kept.id}`)).toEqual([keptAsset.id]);
  });

  it('trashes a collection: gone from lists, GET and search; restored with its members in order', async () => {
    const [a, b] = [await makeAsset(t.database.db, ws), await makeAsset(t.database.db, ws)];
    const coll = await makeCollection(t, team.owner, ws, { name: 'Pangolin picks' });
    await postData(t, team.owner, `/dam/collections/${coll.id}/assets`, { asset_ids: [b.id, a.id] }, 200);
    expect(data(await call('DELETE', `/dam/collections/${coll.id}`, team.manager))).toEqual({ id: coll.id });

    expectError(await call('GET', `/dam/collections/${coll.id}`), 404, 'NOT_FOUND');
    expectError(await call('POST', `/dam/collections/${coll.id}/assets`, team.owner, { asset_ids: [a.id] }), 404, 'NOT_FOUND');
    const list = data<Page<CollectionJson>>(await call('GET', `/dam/collections?workspaceId=${ws}&per_page=250`));
    expect(list.items.map((c) => c.id)).not.toContain(coll.id);
    expect(list.total).toBe(list.items.length);
    expect(await found('pangolin', 'dam_collections')).toBe(0);
    expect((await searchAssets(t, team.owner, '*', `collection_id:=[${coll.id}]`)).found).toBe(0);
    expect(await inTrash('collection', coll.id)).toMatchObject({ name: 'Pangolin picks', folder_id: null, file_type: null, thumbnail_url: null });

    expect(await restore({ collection_ids: [coll.id] })).toEqual([{ kind: 'collection', id: coll.id, ok: true }]);
    expect(data<CollectionJson>(await call('GET', `/dam/collections/${coll.id}`))).toMatchObject({ asset_ids: [b.id, a.id], asset_count: 2 });
    expect(await found('pangolin', 'dam_collections')).toBe(1);
  });

  it('deletes at once with permanent=true, for workspace admins only', async () => {
    const asset = await serverUpload(t, team.owner, text('permanent', 'permanent.txt'), ws);
    const folder = await makeFolder(t, team.owner, ws);
    const coll = await makeCollection(t, team.owner, ws);
    for (const url of [`/dam/assets/${asset.id}`, `/dam/folders/${folder.id}`, `/dam/collections/${coll.id}`]) {
      expectError(await call('DELETE', `${url}?permanent=true`, team.manager), 403, 'FORBIDDEN');
      expectError(await call('DELETE', `${url}?permanent=true`, team.viewer), 403, 'FORBIDDEN');
      expectError(await call('DELETE', `${url}?permanent=yes`), 400, 'VALIDATION_ERROR', 'permanent');
      expect((await call('DELETE', `${url}?permanent=true`)).statusCode).toBe(200);
      expectError(await call('GET', url), 404, 'NOT_FOUND');
    }
    for (const [kind, id] of [['asset', asset.id], ['folder', folder.id], ['collection', coll.id]] as const) expect(await inTrash(kind, id)).toBeUndefined();
    const queued = await t.database.db.selectFrom('object_deletions').select('storage_key').execute();
    expect(queued.map((q) => q.storage_key)).toContain(`${ws}/digital_assets/${asset.id}`);
  });

  it('empties the trash (admins): rows go at once, files with the next housekeeping run', async () => {
    const photo = await serverUpload(t, team.owner, text('emptied', 'emptied.txt'), ws);
    const v2 = await uploadVersion(t, team.owner, photo.id, text('emptied again', 'emptied-2.txt'));
    const keys = [`${ws}/digital_assets/${photo.id}`, `${ws}/digital_assets/${photo.id}/versions/${v2.id}`];
    const folder = await makeFolder(t, team.owner, ws);
    data(await call('DELETE', `/dam/assets/${photo.id}`));
    data(await call('DELETE', `/dam/folders/${folder.id}`));
    const before = await trashList(team.owner);
    expect(before.total).toBeGreaterThanOrEqual(2);

    expectError(await call('DELETE', `/dam/trash?workspaceId=${ws}`, team.manager), 403, 'FORBIDDEN');
    expectError(await call('DELETE', `/dam/trash?workspaceId=${ws}`, team.outsider), 404, 'NOT_FOUND');
    for (const key of keys) expect(await objectExists(t, key)).toBe(true);
    const emptied = data<{ deleted_assets: number; deleted_folders: number; deleted_collections: number }>(await call('DELETE', `/dam/trash?workspaceId=${ws}`));
    expect(emptied.deleted_assets + emptied.deleted_folders + emptied.deleted_collections).toBe(before.total);
    const [logged] = await activity();
    expect(logged).toMatchObject({ action: 'workspace.empty_trash', actor: { id: team.owner.user.id }, subject: { id: ws } });
    expect(logged!.changes.assets).toEqual({ before: emptied.deleted_assets, after: 0 });
    expect(await trashList()).toMatchObject({ items: [], total: 0 });
    expect(await t.database.db.selectFrom('assets').select('id').where('id', '=', photo.id).execute()).toEqual([]);
    const queued = (await t.database.db.selectFrom('object_deletions').select('storage_key').execute()).map((q) => q.storage_key);
    expect(queued).toEqual(expect.arrayContaining(keys));
    expect(await restore({ asset_ids: [photo.id] })).toMatchObject([{ ok: false, code: 'NOT_FOUND' }]);

    vi.advanceTimersByTime(60_000);
    await vi.waitFor(async () => {
      for (const key of keys) expect(await objectExists(t, key)).toBe(false);
    });
  });

  it('keeps other workspaces apart', async () => {
    const theirs = await makeAsset(t.database.db, team.otherWs);
    data(await call('DELETE', `/dam/assets/${theirs.id}`, team.outsider));
    expect((await trashList(team.owner, '&per_page=250')).items.map((i) => i.id)).not.toContain(theirs.id);
    expect(await restore({ asset_ids: [theirs.id] })).toMatchObject([{ id: theirs.id, ok: false, code: 'NOT_FOUND' }]);
    expectError(await call('POST', '/dam/trash/restore', team.owner, { workspaceId: team.otherWs, asset_ids: [theirs.id] }), 404, 'NOT_FOUND');
    expect((await t.database.db.selectFrom('assets').select('deleted_at').where('id', '=', theirs.id).executeTakeFirstOrThrow()).deleted_at).not.toBeNull();
    expectError(await call('POST', '/dam/trash/restore', team.owner, { workspaceId: ws }), 400, 'VALIDATION_ERROR', 'asset_ids');
  });

  // Last: it moves the clock by weeks.
  it('purges what has been in the trash longer than DAM_TRASH_DAYS, and only then removes its files', async () => {
    const old = await serverUpload(t, team.owner, text('old', 'old.txt'), ws);
    const oldFolder = await makeFolder(t, team.owner, ws);
    const oldColl = await makeCollection(t, team.owner, ws);
    const oldKey = `${ws}/digital_assets/${old.id}`;
    for (const url of [`/dam/assets/${old.id}`, `/dam/folders/${oldFolder.id}`, `/dam/collections/${oldColl.id}`]) data(await call('DELETE', url));
    t.advanceClock(29 * DAY);
    const recent = await serverUpload(t, team.owner, text('recent', 'recent.txt'), ws);
    data(await call('DELETE', `/dam/assets/${recent.id}`));

    vi.advanceTimersByTime(60_000);
    // Not yet 30 days: nothing goes.
    await vi.waitFor(async () => expect(await t.database.db.selectFrom('object_deletions').select('id').execute()).toEqual([]));
    expect(await inTrash('asset', old.id)).toBeDefined();
    expect(await objectExists(t, oldKey)).toBe(true);

    t.advanceClock(DAY + 1);
    vi.advanceTimersByTime(60_000);
    await vi.waitFor(async () => expect(await objectExists(t, oldKey)).toBe(false));
    expect(await inTrash('asset', old.id)).toBeUndefined();
    expect((await activity())[0]).toMatchObject({ action: 'workspace.purge_trash', actor: { id: null }, changes: { assets: { before: 1, after: 0 } } });
    expect(await inTrash('folder', oldFolder.id)).toBeUndefined();
    expect(await inTrash('collection', oldColl.id)).toBeUndefined();
    expect(await inTrash('asset', recent.id)).toBeDefined();
    expect(await objectExists(t, `${ws}/digital_assets/${recent.id}`)).toBe(true);
  });
});
