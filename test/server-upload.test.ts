import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, registerUser, type Account } from './helpers/factories.js';
import {
  STORE_KINDS,
  downloadRequest,
  expectError,
  keyOf,
  makeJpeg,
  objectExists,
  startS3Server,
  startStorageApp,
  type S3Server,
  type StorageTestApp,
} from './helpers/uploads.js';

interface UploadAnswer {
  success: true;
  data: { id: number; workspace_id: number; file_name: string; display_file_name: string; mime_type: string; file_type: string; file_size: number; width: number | null; height: number | null; orientation: string | null; tags: string[]; visibility: number; folder_id: number | null };
}

/** seed 4.6 POST /api/upload-asset: a whole file through the server, on both stores. */
describe.each(STORE_KINDS)('server upload on the %s store', (kind) => {
  let s3: S3Server | undefined;
  let t: StorageTestApp;
  let owner: Account;
  let viewer: Account;
  let stranger: Account;

  beforeAll(async () => {
    if (kind === 's3') s3 = await startS3Server();
    t = await startStorageApp(kind, s3, { config: { maxFileSize: 64 * 1024 } });
    owner = await registerUser(t);
    viewer = await registerUser(t);
    stranger = await registerUser(t);
    await addMember(t, owner, owner.workspaceId, viewer, 'viewer');
  });
  afterAll(async () => {
    await t.close();
    await s3?.close();
  });

  /** Sends a real multipart/form-data body over HTTP, as a browser form would. */
  function upload(who: Account | undefined, fields: Record<string, string>, file?: { bytes: Uint8Array; name: string; type: string }) {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.set(name, value);
    if (file) form.set('file', new Blob([file.bytes], { type: file.type }), file.name);
    return fetch(`${t.baseUrl}/api/upload-asset`, {
      method: 'POST',
      body: form,
      headers: who ? { authorization: `Bearer ${who.token}` } : {},
    });
  }
  const asResponse = async (res: Response) => ({ statusCode: res.status, json: (await res.json()) });
  const fail = async (res: Response, status: number, code: string, mentions?: string) => {
    const { statusCode, json } = await asResponse(res);
    expectError({ statusCode, json: () => json }, status, code, mentions);
  };

  it('stores the file and creates the asset with its dimensions, tags, visibility and name', async () => {
    const jpeg = await makeJpeg(120, 300);
    const res = await upload(
      owner,
      { workspaceId: String(owner.workspaceId), tags: '["red", "tall", "red"]', visibility: '1', display_file_name: 'Tall red' },
      { bytes: jpeg, name: 'Größe.jpg', type: 'image/jpeg' },
    );
    expect(res.status).toBe(201);
    const { data } = (await res.json()) as UploadAnswer;
    expect(data).toMatchObject({
      workspace_id: owner.workspaceId,
      file_name: 'Größe.jpg',
      display_file_name: 'Tall red',
      mime_type: 'image/jpeg',
      file_type: 'image',
      file_size: jpeg.length,
      width: 120,
      height: 300,
      orientation: 'portrait',
      tags: ['red', 'tall'],
      visibility: 1,
    });
    const key = keyOf({ workspaceId: owner.workspaceId, assetId: data.id });
    expect(await objectExists(t, key)).toBe(true);
    const download = await downloadRequest(t, owner, key, owner.workspaceId);
    expect(download.statusCode).toBe(200);
    expect(Buffer.compare(download.rawPayload, jpeg)).toBe(0);
    // Private (visibility 1) and the owner's: another viewer of the workspace cannot download it (issue #27).
    expect((await downloadRequest(t, viewer, key, owner.workspaceId)).statusCode).toBe(404);
  });

  it('accepts comma-separated tags and files into a folder of the workspace', async () => {
    const folder = await t.request({ method: 'POST', url: '/dam/folders', token: owner.token, payload: { workspace_id: owner.workspaceId, name: 'inbox' } });
    const folderId = folder.json<{ data: { id: number } }>().data.id;
    const res = await upload(
      owner,
      { workspaceId: String(owner.workspaceId), tags: ' a, b ,,c ', folder_id: String(folderId) },
      { bytes: Buffer.from('%PDF-1.4 tiny'), name: 'doc.pdf', type: 'application/pdf' },
    );
    expect(res.status).toBe(201);
    const { data } = (await res.json()) as UploadAnswer;
    expect(data).toMatchObject({ tags: ['a', 'b', 'c'], folder_id: folderId, file_type: 'document', width: null, orientation: null });
  });

  it('refuses bad input with a 4xx that names the problem, and stores nothing', async () => {
    const file = { bytes: randomBytes(10), name: 'x.bin', type: 'application/octet-stream' };
    await fail(await upload(owner, {}, file), 400, 'MISSING_PARAMETER', 'workspaceId');
    await fail(await upload(owner, { workspaceId: String(owner.workspaceId) }), 400, 'MISSING_PARAMETER', 'file');
    await fail(await upload(owner, { workspaceId: 'abc' }, file), 400, 'VALIDATION_ERROR', 'workspaceId');
    await fail(await upload(owner, { workspaceId: String(owner.workspaceId), tags: '[1, 2]' }, file), 400, 'VALIDATION_ERROR', 'tags');
    await fail(await upload(owner, { workspaceId: String(owner.workspaceId), tags: '["unclosed"' }, file), 400, 'VALIDATION_ERROR', 'tags');
    await fail(await upload(owner, { workspaceId: String(owner.workspaceId), visibility: '-1' }, file), 400, 'VALIDATION_ERROR', 'visibility');
    const foreign = await t.request({ method: 'POST', url: '/dam/folders', token: stranger.token, payload: { workspace_id: stranger.workspaceId, name: 'theirs' } });
    const foreignId = foreign.json<{ data: { id: number } }>().data.id;
    await fail(await upload(owner, { workspaceId: String(owner.workspaceId), folder_id: String(foreignId) }, file), 400, 'VALIDATION_ERROR', 'folder_id');
    const big = { bytes: randomBytes(64 * 1024 + 1), name: 'big.bin', type: 'application/octet-stream' };
    await fail(await upload(owner, { workspaceId: String(owner.workspaceId) }, big), 413, 'PAYLOAD_TOO_LARGE');

    const list = await t.request({ method: 'GET', url: `/dam/assets?workspaceId=${owner.workspaceId}&per_page=250`, token: owner.token });
    const names = list.json<{ data: { items: { file_name: string }[] } }>().data.items.map((a) => a.file_name);
    expect(names).not.toContain('x.bin');
    expect(names).not.toContain('big.bin');
  });

  it('needs a token, membership (404) and the manager role (403)', async () => {
    const file = { bytes: randomBytes(10), name: 'x.bin', type: 'application/octet-stream' };
    await fail(await upload(undefined, { workspaceId: String(owner.workspaceId) }, file), 401, 'UNAUTHORIZED');
    await fail(await upload(stranger, { workspaceId: String(owner.workspaceId) }, file), 404, 'NOT_FOUND');
    await fail(await upload(viewer, { workspaceId: String(owner.workspaceId) }, file), 403, 'FORBIDDEN');
  });
});
