import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerUser, type Account } from './helpers/factories.js';
import { STORE_KINDS, objectExists, startS3Server, startStorageApp, type S3Server, type StorageTestApp } from './helpers/uploads.js';
import { listVersions, serverUpload, text, uploadVersion } from './helpers/versions.js';

/** Versions on both object stores: restore copies the file (local: hard links; S3: CopyObject), renditions are stored and served. */
describe.each(STORE_KINDS)('versions on the %s store', (kind) => {
  let s3: S3Server | undefined;
  let t: StorageTestApp;
  let owner: Account;

  beforeAll(async () => {
    if (kind === 's3') s3 = await startS3Server();
    t = await startStorageApp(kind, s3);
    owner = await registerUser(t);
  });
  afterAll(async () => {
    await t.close();
    await s3?.close();
  });

  it('stores each version under its own key, restores by copy, serves renditions and deletes a version\'s objects', async () => {
    const jpeg = await sharp({ create: { width: 320, height: 200, channels: 3, background: '#0a0' } }).jpeg().toBuffer();
    const asset = await serverUpload(t, owner, { bytes: jpeg, name: 'green.jpg', type: 'image/jpeg' });
    await uploadVersion(t, owner, asset.id, text('second'));
    await t.app.jobs.drain();
    const [, v1] = await listVersions(t, owner, asset.id);
    expect(v1!.preview_status).toBe('ready');
    const thumb = await fetch(v1!.thumbnail_url);
    expect(thumb.status).toBe(200);
    expect(await sharp(Buffer.from(await thumb.arrayBuffer())).metadata()).toMatchObject({ width: 256, height: 160, format: 'webp' });

    const restored = await t.request({ method: 'POST', url: `/dam/versions/${v1!.id}/restore`, token: owner.token });
    expect(restored.statusCode).toBe(200);
    const [v3] = await listVersions(t, owner, asset.id);
    expect(v3).toMatchObject({ version: 'v3', is_current: true, file_size: jpeg.length });
    const ws = owner.workspaceId;
    const v3Key = `${ws}/digital_assets/${asset.id}/versions/${v3!.id}`;
    expect(await objectExists(t, v3Key)).toBe(true);
    const file = await fetch(v3!.file_url);
    expect(Buffer.compare(Buffer.from(await file.arrayBuffer()), jpeg)).toBe(0);

    // v1's objects go; the copy made for v3 stays whole.
    expect((await t.request({ method: 'DELETE', url: `/dam/versions/${v1!.id}`, token: owner.token })).statusCode).toBe(200);
    expect(await objectExists(t, `${ws}/digital_assets/${asset.id}`)).toBe(false);
    expect(await objectExists(t, `${ws}/digital_assets/${asset.id}/renditions/${v1!.id}/thumbnail.webp`)).toBe(false);
    const again = await t.request({ method: 'GET', url: `/dam/versions/${v3!.id}/download`, token: owner.token });
    expect(Buffer.compare(again.rawPayload, jpeg)).toBe(0);
    const current = await t.request({ method: 'GET', url: `/storage/download?key=${ws}/digital_assets/${asset.id}&workspaceId=${ws}`, token: owner.token });
    expect(Buffer.compare(current.rawPayload, jpeg)).toBe(0);
  });
});
