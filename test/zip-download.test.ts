import { rmSync } from 'node:fs';
import path from 'node:path';
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import contentDisposition from 'content-disposition';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from './helpers/databases.js';
import { expectError, makeCollection, makeFolder, makeTeam, type Team } from './helpers/catalog-factories.js';
import { makeJpeg, s3Client, STORE_KINDS, startS3Server, startStorageApp, type S3Server, type StorageTestApp } from './helpers/uploads.js';
import { hasUnzip, readZip, unzipTest, uploadAsset } from './helpers/zip.js';

const combos = dialects.flatMap((dialect) => STORE_KINDS.map((store) => [dialect, store] as const));

/** Removes an asset's object behind the database's back, to make a read fail mid-download. */
async function dropObject(t: StorageTestApp, key: string): Promise<void> {
  const storage = t.config.storage;
  if (storage.kind === 'local') {
    rmSync(path.join(t.config.dataDir, 'storage', 'objects', `${key}.obj`), { recursive: true, force: true });
    return;
  }
  const client = s3Client(storage);
  await client.send(new DeleteObjectCommand({ Bucket: storage.bucket, Key: key }));
  client.destroy();
}

describe.each(combos)('GET /zip/download on %s with the %s store', (dialect, store) => {
  let s3: S3Server | undefined;
  let t: StorageTestApp;
  let team: Team;
  let jpeg: Buffer;
  const text = Buffer.from('Notizen zum Urlaub\n'.repeat(2000));

  beforeAll(async () => {
    if (store === 's3') s3 = await startS3Server();
    t = await startStorageApp(store, s3, { dialect, config: { zip: { downloadMaxEntries: 50, maxEntries: 100, maxUncompressed: 1 << 30, maxRatio: 100, linkTtl: 300 } } });
    team = await makeTeam(t);
    jpeg = await makeJpeg(200, 150);
  });
  afterAll(async () => {
    await t?.close();
    await s3?.close();
  });

  const get = (who: { token: string }, query: string) => t.request({ method: 'GET', url: `/zip/download?${query}`, token: who.token });

  it('streams a folder recursively: sub-folders as directories, media stored, text deflated, names made unique', async () => {
    const { owner, viewer, ws } = team;
    const root = await makeFolder(t, owner, ws, { name: 'Ferien 2024 – Strand' });
    const sub = await makeFolder(t, owner, ws, { name: 'Tag 1', parent_id: root.id });
    await makeFolder(t, owner, ws, { name: 'Leer', parent_id: root.id });
    await uploadAsset(t, owner, { bytes: jpeg, name: 'Möwe.jpg', type: 'image/jpeg' }, { folderId: root.id });
    await uploadAsset(t, owner, { bytes: jpeg, name: 'möwe.JPG', type: 'image/jpeg' }, { folderId: root.id });
    await uploadAsset(t, owner, { bytes: text, name: 'notes.txt', type: 'text/plain' }, { folderId: sub.id });
    await uploadAsset(t, owner, { bytes: text, name: 'outside.txt', type: 'text/plain' });

    // Viewers may download.
    const res = await get(viewer, `workspaceId=${ws}&folder_id=${root.id}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const disposition = contentDisposition.parse(String(res.headers['content-disposition']));
    expect(disposition.type).toBe('attachment');
    expect(disposition.parameters.filename).toBe('Ferien 2024 – Strand.zip');
    expect(String(res.headers['content-disposition'])).toContain("filename*=UTF-8''Ferien%202024%20%E2%80%93%20Strand.zip");

    const { entries } = await readZip(res.rawPayload);
    expect(entries.map((e) => e.name).sort()).toEqual(['Leer/', 'Möwe.jpg', 'Tag 1/', 'Tag 1/notes.txt', 'möwe (2).JPG'].sort());
    const photo = entries.find((e) => e.name === 'Möwe.jpg')!;
    expect(photo.compressionMethod).toBe(0);
    expect(photo.data.equals(jpeg)).toBe(true);
    const notes = entries.find((e) => e.name === 'Tag 1/notes.txt')!;
    expect(notes.compressionMethod).toBe(8);
    expect(notes.data.equals(text)).toBe(true);
    if (hasUnzip) expect(await unzipTest(res.rawPayload)).toMatch(/No errors detected/);
  });

  it('downloads a list of assets in the order given and a collection by its name; trashed assets are left out', async () => {
    const { owner, ws } = team;
    const a = await uploadAsset(t, owner, { bytes: Buffer.from('first'), name: 'same.txt', type: 'text/plain' });
    const b = await uploadAsset(t, owner, { bytes: Buffer.from('second'), name: 'same.txt', type: 'text/plain' });
    const c = await uploadAsset(t, owner, { bytes: jpeg, name: '日本の写真.jpg', type: 'image/jpeg' });

    const list = await get(owner, `workspaceId=${ws}&asset_ids=${b},${a},${c},${a}`);
    expect(list.statusCode, list.body).toBe(200);
    expect(contentDisposition.parse(String(list.headers['content-disposition'])).parameters.filename).toBe('assets.zip');
    const listed = (await readZip(list.rawPayload)).entries;
    expect(listed.map((e) => [e.name, e.data.toString('latin1').slice(0, 6)])).toEqual([
      ['same.txt', 'second'],
      ['same (2).txt', 'first'],
      ['日本の写真.jpg', jpeg.toString('latin1').slice(0, 6)],
    ]);

    const collection = await makeCollection(t, owner, ws, { name: 'Auswahl' });
    const added = await t.request({ method: 'POST', url: `/dam/collections/${collection.id}/assets`, token: owner.token, payload: { asset_ids: [c, a, b] } });
    expect(added.statusCode, added.body).toBe(200);
    expect((await t.request({ method: 'DELETE', url: `/dam/assets/${b}`, token: owner.token })).statusCode).toBe(200);
    const coll = await get(owner, `workspaceId=${ws}&collection_id=${collection.id}`);
    expect(coll.statusCode, coll.body).toBe(200);
    expect(contentDisposition.parse(String(coll.headers['content-disposition'])).parameters.filename).toBe('Auswahl.zip');
    expect((await readZip(coll.rawPayload)).entries.map((e) => e.name)).toEqual(['日本の写真.jpg', 'same.txt']);
    // A trashed asset named in the list is as missing.
    expectError(await get(owner, `workspaceId=${ws}&asset_ids=${a},${b}`), 404, 'NOT_FOUND');
  });

  it('keeps workspaces apart and checks its input', async () => {
    const { owner, outsider, ws, otherWs } = team;
    const theirs = await uploadAsset(t, outsider, { bytes: Buffer.from('secret'), name: 'secret.txt', type: 'text/plain' });
    const theirFolder = await makeFolder(t, outsider, otherWs);
    const theirCollection = await makeCollection(t, outsider, otherWs);
    expectError(await get(owner, `workspaceId=${ws}&asset_ids=${theirs}`), 404, 'NOT_FOUND');
    expectError(await get(owner, `workspaceId=${ws}&folder_id=${theirFolder.id}`), 404, 'NOT_FOUND');
    expectError(await get(owner, `workspaceId=${ws}&collection_id=${theirCollection.id}`), 404, 'NOT_FOUND');
    expectError(await get(owner, `workspaceId=${otherWs}&asset_ids=${theirs}`), 404, 'NOT_FOUND');
    expectError(await get(owner, `workspaceId=${ws}`), 400, 'VALIDATION_ERROR');
    expectError(await get(owner, `workspaceId=${ws}&folder_id=1&collection_id=1`), 400, 'VALIDATION_ERROR');
    expectError(await get(owner, `workspaceId=${ws}&asset_ids=1,,2`), 400, 'VALIDATION_ERROR');
    expect((await t.request({ method: 'GET', url: `/zip/download?workspaceId=${ws}&asset_ids=1` })).statusCode).toBe(401);
  });

  it('refuses a selection over the entry limit before the first byte', async () => {
    const limited = await startStorageApp(store, s3, { dialect, config: { zip: { downloadMaxEntries: 5, maxEntries: 100, maxUncompressed: 1 << 30, maxRatio: 100, linkTtl: 300 } } });
    try {
      const who = await makeTeam(limited);
      const folder = await makeFolder(limited, who.owner, who.ws, { name: 'Many' });
      for (let i = 0; i < 6; i++) await makeFolder(limited, who.owner, who.ws, { name: `Sub ${i}`, parent_id: folder.id });
      const res = await limited.request({ method: 'GET', url: `/zip/download?workspaceId=${who.ws}&folder_id=${folder.id}`, token: who.owner.token });
      expectError(res, 422, 'ZIP_TOO_MANY_ENTRIES');
      expect(res.json<{ entries: number; limit: number }>()).toMatchObject({ entries: 6, limit: 5 });
    } finally {
      await limited.close();
    }
  });

  it('cuts the connection when a file cannot be read mid-archive, rather than ending a valid-looking ZIP', async () => {
    const { owner, ws } = team;
    const folder = await makeFolder(t, owner, ws, { name: 'Broken' });
    const first = Buffer.alloc(2 * 1024 * 1024, 7);
    await uploadAsset(t, owner, { bytes: first, name: 'big.bin', type: 'application/octet-stream' }, { folderId: folder.id });
    const gone = await uploadAsset(t, owner, { bytes: Buffer.from('lost'), name: 'lost.txt', type: 'text/plain' }, { folderId: folder.id });
    await dropObject(t, `${ws}/digital_assets/${gone}`);
    const res = await fetch(`${t.baseUrl}/zip/download?workspaceId=${ws}&folder_id=${folder.id}`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(res.status).toBe(200);
    await expect(res.arrayBuffer()).rejects.toThrow();
  });
});
