import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';
import { expectError, makeTeam, type Team } from './helpers/catalog-factories.js';
import { makeJpeg } from './helpers/uploads.js';
import {
  getAssetJson,
  listRequest,
  listVersions,
  pathOf,
  postVersion,
  serverUpload,
  text,
  uploadVersion,
  type AssetJson,
  type VersionJson,
} from './helpers/versions.js';

/** The version endpoints of seed 4.5 and the transitions of seed 3, through HTTP on SQLite. */
describe('asset versions', () => {
  let t: TestApp;
  let team: Team;

  beforeAll(async () => {
    t = await startTestApp();
    team = await makeTeam(t);
  });
  afterAll(async () => {
    await t.close();
  });

  const download = (id: number, headers: Record<string, string> = {}) =>
    t.request({ method: 'GET', url: `/dam/versions/${id}/download`, token: team.owner.token, headers });
  const restore = (id: number, who = team.owner) => t.request({ method: 'POST', url: `/dam/versions/${id}/restore`, token: who.token });
  const remove = (id: number, who = team.owner) => t.request({ method: 'DELETE', url: `/dam/versions/${id}`, token: who.token });

  it('the first upload makes v1, answered exactly as seed 2.5 describes (plus preview_status)', async () => {
    const asset = await serverUpload(t, team.owner, text('first', 'first.txt'));
    const versions = await listVersions(t, team.owner, asset.id);
    expect(versions).toHaveLength(1);
    const [v1] = versions as [VersionJson];
    expect(Object.keys(v1).sort()).toEqual(
      [
        'id',
        'version',
        'asset_id',
        'file_name',
        'display_file_name',
        'file_size',
        'mime_type',
        'created_at',
        'created_by',
        'thumbnail_url',
        'file_url',
        'is_current',
        'metadata',
        'preview_status',
        'page_count',
        'restored_from',
        'video_preview',
        // Issue #19: the file's SHA-256, null until its job has run.
        'sha256',
      ].sort(),
    );
    expect(v1).toMatchObject({
      version: 'v1',
      asset_id: asset.id,
      file_name: 'first.txt',
      display_file_name: 'first.txt',
      file_size: 5,
      mime_type: 'text/plain',
      created_by: team.owner.user.name,
      is_current: true,
      metadata: {},
      // Not a video: no preview to play.
      video_preview: null,
    });
    expect(typeof v1.id).toBe('number');
    // ISO 8601 in UTC, within a minute of now.
    expect(v1.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Math.abs(Date.parse(v1.created_at) - Date.now())).toBeLessThan(60_000);
    expect(v1.file_url).toMatch(/^http:\/\/127\.0\.0\.1:0\/media\/versions\/\d+\/file\?expires=\d+&signature=/);
  });

  it('a new version becomes current; the asset\'s file, name, size, type, dimensions and modified_at follow it', async () => {
    const asset = await serverUpload(t, team.owner, text('plain text', 'draft.txt'));
    t.advanceClock(5);
    const jpeg = await makeJpeg(300, 200);
    const v2 = await uploadVersion(t, team.manager, asset.id, { bytes: jpeg, name: 'final.jpg', type: 'image/jpeg' });
    expect(v2).toMatchObject({ version: 'v2', is_current: true, file_name: 'final.jpg', file_size: jpeg.length, created_by: team.manager.user.name });
    // The display name is the asset's; the file name is the version's.
    expect(v2.display_file_name).toBe('draft.txt');

    const versions = await listVersions(t, team.viewer, asset.id);
    expect(versions.map((v) => [v.version, v.is_current])).toEqual([
      ['v2', true],
      ['v1', false],
    ]);
    const after = await getAssetJson(t, team.owner, asset.id);
    expect(after).toMatchObject({
      file_name: 'final.jpg',
      display_file_name: 'draft.txt',
      mime_type: 'image/jpeg',
      file_type: 'image',
      file_size: jpeg.length,
      width: 300,
      height: 200,
      orientation: 'landscape',
    });
    expect(after.modified_at).toBeGreaterThanOrEqual(asset.modified_at + 5);

    // The asset key serves the current file; each version serves its own, with its own name.
    const current = await t.request({
      method: 'GET',
      url: `/storage/download?key=${asset.workspace_id}/digital_assets/${asset.id}&workspaceId=${asset.workspace_id}`,
      token: team.viewer.token,
    });
    expect(Buffer.compare(current.rawPayload, jpeg)).toBe(0);
    const old = await download(versions[1]!.id);
    expect(old.statusCode).toBe(200);
    expect(old.body).toBe('plain text');
    expect(old.headers['content-disposition']).toBe('attachment; filename="draft.txt"');
    expect(old.headers['content-type']).toBe('text/plain');
    const range = await download(v2.id, { range: 'bytes=0-9' });
    expect(range.statusCode).toBe(206);
    expect(range.headers['content-range']).toBe(`bytes 0-9/${jpeg.length}`);
    expect(Buffer.compare(range.rawPayload, jpeg.subarray(0, 10))).toBe(0);
  });

  it('takes any single file part name; no file or bad metadata is 400, a second file 413', async () => {
    const asset = await serverUpload(t, team.owner, text('a'));
    const named = await postVersion(t, team.owner, asset.id, text('b', 'b.txt'), { field: 'attachment' });
    expect(named.statusCode).toBe(201);
    expect(named.json<VersionJson>().version).toBe('v2');

    expectError(await postVersion(t, team.owner, asset.id, undefined, { metadata: '{}' }), 400, 'MISSING_PARAMETER', 'file');
    const two = await postVersion(t, team.owner, asset.id, text('c'), { fields: { other: text('d') } });
    // @fastify/multipart stops at the second file part (limit files: 1).
    expectError(two, 413, 'PAYLOAD_TOO_LARGE');
    expectError(await postVersion(t, team.owner, asset.id, text('e'), { metadata: '[1,2]' }), 400, 'VALIDATION_ERROR', 'metadata');
    expectError(await postVersion(t, team.owner, asset.id, text('e'), { metadata: 'not json' }), 400, 'VALIDATION_ERROR', 'metadata');
    // A JSON body that names a file on the server is not a file part.
    const json = await t.request({
      method: 'POST',
      url: `/dam/assets/${asset.id}/versions`,
      token: team.owner.token,
      payload: { file: { path: '/etc/passwd', size: 1, filename: 'passwd', mimetype: 'text/plain' } },
    });
    expect(json.statusCode).toBe(415);
    const lfi = await t.request({
      method: 'POST',
      url: '/api/upload-asset',
      token: team.owner.token,
      payload: { workspaceId: team.ws, file: { path: '/etc/passwd', size: 1, filename: 'passwd', mimetype: 'text/plain' } },
    });
    expect(lfi.statusCode).toBe(415);
    expect((await listVersions(t, team.owner, asset.id)).map((v) => v.version)).toEqual(['v2', 'v1']);
  });

  it('metadata: a new version starts from the current metadata merged with the upload\'s; history keeps its own; restore brings it back', async () => {
    const asset = await serverUpload(t, team.owner, text('one'));
    const patched = await t.request({ method: 'PATCH', url: `/dam/assets/${asset.id}`, token: team.owner.token, payload: { metadata: { camera: 'X100', rating: 3 } } });
    expect(patched.statusCode).toBe(200);
    expect((await listVersions(t, team.owner, asset.id))[0]!.metadata).toEqual({ camera: 'X100', rating: 3 });

    const v2 = await uploadVersion(t, team.owner, asset.id, text('two'), { rating: 5, edited: true });
    expect(v2.metadata).toEqual({ camera: 'X100', rating: 5, edited: true });
    expect((await getAssetJson(t, team.owner, asset.id)).metadata).toEqual({ camera: 'X100', rating: 5, edited: true });
    const [, v1] = await listVersions(t, team.owner, asset.id);
    expect(v1!.metadata).toEqual({ camera: 'X100', rating: 3 });

    const res = await restore(v1!.id);
    expect(res.statusCode).toBe(200);
    expect(res.json<AssetJson>().metadata).toEqual({ camera: 'X100', rating: 3 });
    const [v3, again2] = await listVersions(t, team.owner, asset.id);
    expect(v3).toMatchObject({ version: 'v3', is_current: true, metadata: { camera: 'X100', rating: 3 } });
    expect(again2).toMatchObject({ version: 'v2', is_current: false, metadata: { camera: 'X100', rating: 5, edited: true } });
  });

  it('restore creates a new label with the restored file; the previous current becomes history; restoring the current one is 409', async () => {
    const asset = await serverUpload(t, team.owner, text('original', 'a.txt'));
    const jpeg = await makeJpeg(40, 60);
    await uploadVersion(t, team.owner, asset.id, { bytes: jpeg, name: 'b.jpg', type: 'image/jpeg' });
    const [v2, v1] = await listVersions(t, team.owner, asset.id);

    const res = await restore(v1!.id, team.manager);
    expect(res.statusCode).toBe(200);
    const restored = res.json<AssetJson>();
    // The updated asset object (the catalog's AssetSchema), bare as seed 4.5 says.
    expect(restored).toMatchObject({ id: asset.id, file_name: 'a.txt', mime_type: 'text/plain', file_type: 'document', file_size: 8, width: null, height: null });
    const versions = await listVersions(t, team.owner, asset.id);
    expect(versions.map((v) => [v.version, v.is_current, v.file_name])).toEqual([
      ['v3', true, 'a.txt'],
      ['v2', false, 'b.jpg'],
      ['v1', false, 'a.txt'],
    ]);
    expect(versions[0]!.created_by).toBe(team.manager.user.name);
    expect((await download(versions[0]!.id)).body).toBe('original');
    expectError(await restore(versions[0]!.id), 409, 'CONFLICT');
    // Restoring v2 again gives v4, not a reuse of v2.
    expect((await restore(v2!.id)).statusCode).toBe(200);
    expect((await listVersions(t, team.owner, asset.id))[0]).toMatchObject({ version: 'v4', is_current: true, file_name: 'b.jpg', file_size: jpeg.length });
  });

  it('deleting the current version is 409; a history version goes, and its label is never reused', async () => {
    const asset = await serverUpload(t, team.owner, text('1'));
    await uploadVersion(t, team.owner, asset.id, text('2'));
    const v3 = await uploadVersion(t, team.owner, asset.id, text('3'));
    const [, v2, v1] = await listVersions(t, team.owner, asset.id);

    expectError(await remove(v3.id), 409, 'CONFLICT');
    const gone = await remove(v2!.id, team.manager);
    expect(gone.statusCode).toBe(200);
    expect(gone.json()).toEqual({ success: true, data: { id: v2!.id } });
    expectError(await remove(v2!.id), 404, 'NOT_FOUND');
    expectError(await download(v2!.id), 404, 'NOT_FOUND');
    expect(await listVersions(t, team.owner, asset.id)).toHaveLength(2);

    // Deleting v1 (whose file lives at the asset's own key) keeps the asset key serving the current file.
    expect((await remove(v1!.id)).statusCode).toBe(200);
    const current = await t.request({
      method: 'GET',
      url: `/storage/download?key=${asset.workspace_id}/digital_assets/${asset.id}&workspaceId=${asset.workspace_id}`,
      token: team.owner.token,
    });
    expect(current.body).toBe('3');
    expect((await uploadVersion(t, team.owner, asset.id, text('4'))).version).toBe('v4');
    expect((await listVersions(t, team.owner, asset.id)).map((v) => v.version)).toEqual(['v4', 'v3']);
  });

  it('the multipart flow with assetId adds a version; its key downloads it; an aborted one leaves the asset as it was', async () => {
    const asset = await serverUpload(t, team.owner, text('v1 bytes'));
    const start = (query: string) => t.request({ method: 'GET', url: `/storage/start-upload?${query}`, token: team.manager.token });
    const res = await start(`workspaceId=${team.ws}&fileType=application/pdf&fileName=report.pdf&assetId=${asset.id}`);
    expect(res.statusCode).toBe(200);
    const { uploadId, assetId } = res.json<{ uploadId: string; assetId: number }>();
    expect(assetId).toBe(asset.id);
    // Parts go to the local store's part route (signed URL); inject follows it by path.
    const bytes = randomBytes(300);
    const urlRes = await t.request({
      method: 'GET',
      url: `/storage/get-upload-url?PartNumber=1&UploadId=${uploadId}&assetId=${asset.id}&workspaceId=${team.ws}`,
      token: team.manager.token,
    });
    const put = await t.request({ method: 'PUT', url: pathOf(urlRes.json<{ url: string }>().url), payload: bytes, headers: { 'content-type': 'application/octet-stream' } });
    expect(put.statusCode).toBe(200);
    // Until completion the version is not listed.
    expect((await listVersions(t, team.owner, asset.id)).map((v) => v.version)).toEqual(['v1']);
    const done = await t.request({
      method: 'POST',
      url: '/storage/complete-upload',
      token: team.manager.token,
      payload: { uploadId, assetId, workspaceId: team.ws, parts: [{ PartNumber: 1, ETag: put.headers.etag }] },
    });
    expect(done.statusCode).toBe(200);
    const answer = done.json<{ key: string; location: string }>();
    const [v2] = await listVersions(t, team.owner, asset.id);
    expect(v2).toMatchObject({ version: 'v2', is_current: true, file_name: 'report.pdf', mime_type: 'application/pdf', file_size: 300 });
    expect(answer.key).toBe(`${team.ws}/digital_assets/${asset.id}/versions/${v2!.id}`);
    const byKey = await t.request({ method: 'GET', url: pathOf(answer.location), token: team.viewer.token });
    expect(Buffer.compare(byKey.rawPayload, bytes)).toBe(0);
    expect((await getAssetJson(t, team.owner, asset.id)).file_type).toBe('document');
    // A version key is not deleted through /storage/delete.
    expectError(await t.request({ method: 'DELETE', url: `/storage/delete?key=${answer.key}&workspaceId=${team.ws}`, token: team.owner.token }), 400, 'VALIDATION_ERROR', 'key');

    const aborted = (await start(`workspaceId=${team.ws}&fileType=text/plain&assetId=${asset.id}`)).json<{ uploadId: string }>();
    const abort = await t.request({
      method: 'DELETE',
      url: `/storage/abort-upload?UploadId=${aborted.uploadId}&assetId=${asset.id}&workspaceId=${team.ws}`,
      token: team.manager.token,
    });
    expect(abort.statusCode).toBe(200);
    expect((await getAssetJson(t, team.owner, asset.id)).file_size).toBe(300);
    expect((await listVersions(t, team.owner, asset.id)).map((v) => v.version)).toEqual(['v2', 'v1']);

    // assetId must be a ready asset of that workspace; a new version stays in its asset's folder.
    const theirs = await serverUpload(t, team.outsider, text('theirs'));
    expectError(await start(`workspaceId=${team.ws}&fileType=text/plain&assetId=${theirs.id}`), 404, 'NOT_FOUND');
    expectError(await start(`workspaceId=${team.ws}&fileType=text/plain&assetId=999999`), 404, 'NOT_FOUND');
    expectError(await start(`workspaceId=${team.ws}&fileType=text/plain&assetId=${asset.id}&folderId=1`), 400, 'VALIDATION_ERROR', 'folderId');
  });

  describe('permissions (seed 5.5)', () => {
    let asset: AssetJson;
    let history: VersionJson;
    let current: VersionJson;

    beforeAll(async () => {
      asset = await serverUpload(t, team.owner, text('base'));
      current = await uploadVersion(t, team.owner, asset.id, text('newer'));
      history = (await listVersions(t, team.owner, asset.id))[1]!;
    });

    const actions = {
      list: (who: Team['owner']) => listRequest(t, who, asset.id),
      download: (who: Team['owner']) => t.request({ method: 'GET', url: `/dam/versions/${history.id}/download`, token: who.token }),
      preview: (who: Team['owner']) => t.request({ method: 'GET', url: `/dam/versions/${history.id}/preview`, token: who.token }),
      upload: (who: Team['owner']) => postVersion(t, who, asset.id, text('by someone')),
      restore: (who: Team['owner']) => restore(history.id, who),
      delete: (who: Team['owner']) => remove(history.id, who),
    };

    it('viewers list, download and preview; they may not upload, restore or delete (403)', async () => {
      expect((await actions.list(team.viewer)).statusCode).toBe(200);
      expect((await actions.download(team.viewer)).statusCode).toBe(200);
      // A text file has no preview: 404 with a reason, not 403.
      expectError(await actions.preview(team.viewer), 404, 'NOT_FOUND');
      expectError(await actions.upload(team.viewer), 403, 'FORBIDDEN');
      expectError(await actions.restore(team.viewer), 403, 'FORBIDDEN');
      expectError(await actions.delete(team.viewer), 403, 'FORBIDDEN');
      expect((await listVersions(t, team.owner, asset.id)).map((v) => v.id)).toEqual([current.id, history.id]);
    });

    it('members of other workspaces get 404 from every version endpoint', async () => {
      for (const action of Object.values(actions)) expectError(await action(team.outsider), 404, 'NOT_FOUND');
      expectError(await t.request({ method: 'GET', url: `/dam/versions/${current.id}/download` }), 401, 'UNAUTHORIZED');
      expect((await listVersions(t, team.owner, asset.id)).map((v) => v.id)).toEqual([current.id, history.id]);
    });

    it.each(['manager', 'owner'] as const)('the %s (manager / admin) lists, downloads, uploads, restores and deletes', async (role) => {
      const who = team[role];
      const base = await serverUpload(t, team.owner, text('base'));
      await uploadVersion(t, team.owner, base.id, text('two'));
      const [, first] = await listVersions(t, who, base.id);
      expect((await t.request({ method: 'GET', url: `/dam/versions/${first!.id}/download`, token: who.token })).statusCode).toBe(200);
      expect((await postVersion(t, who, base.id, text('three'))).statusCode).toBe(201);
      expect((await restore(first!.id, who)).statusCode).toBe(200);
      expect((await remove(first!.id, who)).statusCode).toBe(200);
      expect((await listVersions(t, who, base.id)).map((v) => v.version)).toEqual(['v4', 'v3', 'v2']);
    });
  });
});
