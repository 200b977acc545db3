import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';
import { expectError, makeFolder, makeTeam, type Team } from './helpers/catalog-factories.js';
import { dialects } from './helpers/databases.js';
import type { Envelope } from './helpers/factories.js';
import { accessLog, createShare, jpeg, publicRequest, textFile, uploadInto, viewShare, type ShareJson } from './helpers/shares.js';
import { readZip } from './helpers/zip.js';

/** Shared links' downloads (issue #14): files with Range, the download limit under concurrency, the ZIP of a link. */
describe.each(dialects)('shared links: downloads (%s)', (dialect) => {
  let t: TestApp;
  let team: Team;

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    team = await makeTeam(t);
  });
  afterAll(() => t.close());

  const managed = async (id: number) =>
    (await t.request({ method: 'GET', url: `/shared/${id}`, token: team.owner.token })).json<Envelope<ShareJson>>().data;
  const download = (key: string, assetId: number, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') =>
    publicRequest(t, `/shared/public/${key}/assets/${assetId}/download`, { headers, method });

  it('streams a file as an attachment with its UTF-8 name, answers ranges with 206, and counts each download once (a resume with its grant is not counted)', async () => {
    const content = 'Grüße aus dem Süden – 0123456789';
    const asset = await uploadInto(t, team.owner, { bytes: Buffer.from(content), name: 'Größe – 写真.txt', type: 'text/plain' });
    const link = await createShare(t, team.owner, { asset_ids: [asset.id] });

    const whole = await download(link.key, asset.id);
    expect(whole.statusCode).toBe(200);
    expect(whole.body).toBe(content);
    expect(whole.headers['content-length']).toBe(String(Buffer.byteLength(content)));
    expect(whole.headers['accept-ranges']).toBe('bytes');
    expect(whole.headers['x-content-type-options']).toBe('nosniff');
    const disposition = String(whole.headers['content-disposition']);
    expect(disposition).toMatch(/^attachment; filename="Grosse - __\.txt"; filename\*=UTF-8''/);
    expect(decodeURIComponent(disposition.split("UTF-8''")[1]!)).toBe('Größe – 写真.txt');

    const head = await download(link.key, asset.id, { range: 'bytes=0-3' });
    expect(head.statusCode).toBe(206);
    expect(head.headers['content-range']).toBe(`bytes 0-3/${Buffer.byteLength(content)}`);
    expect(head.rawPayload.toString()).toBe('Grü');
    // The rest, resumed with the grant the first part answered (issue #28): the same download, not counted again.
    const grant = String(head.headers['x-download-grant']);
    const tail = await download(link.key, asset.id, { range: 'bytes=4-', 'x-download-grant': grant });
    expect(tail.statusCode).toBe(206);
    expect(Buffer.concat([head.rawPayload, tail.rawPayload]).toString()).toBe(content);
    expectError(await download(link.key, asset.id, { range: 'bytes=999-' }), 416, 'RANGE_NOT_SATISFIABLE');
    // HEAD counts nothing.
    expect((await download(link.key, asset.id, {}, 'HEAD')).statusCode).toBe(200);

    const counted = await managed(link.id);
    expect(counted.download_count).toBe(2);
    expect(counted.last_accessed_at).toBeGreaterThan(0);
    const log = await accessLog(t, team.owner, link.id);
    expect(log.map((e) => [e.action, e.asset_id])).toEqual([
      ['download', asset.id],
      ['download', asset.id],
    ]);
    expect(log[0]).toMatchObject({ address: '127.0.0.1', user_agent: 'share-test/1.0' });
  });

  it('refuses downloads when the link does not allow them (403), but still shows the items', async () => {
    const asset = await uploadInto(t, team.owner, textFile('look.txt'));
    const link = await createShare(t, team.owner, { asset_ids: [asset.id], allow_download: false });
    const view = await viewShare(t, link.key);
    expect(view).toMatchObject({ allow_download: false, zip_url: null, items: [{ id: asset.id, download_url: null }] });
    expectError(await download(link.key, asset.id), 403, 'SHARE_DOWNLOADS_DISABLED');
    expectError(await publicRequest(t, `/shared/public/${link.key}/zip`), 403, 'SHARE_DOWNLOADS_DISABLED');
    await t.request({ method: 'PATCH', url: `/shared/${link.id}`, token: team.owner.token, payload: { allow_download: true } });
    expect((await download(link.key, asset.id)).statusCode).toBe(200);
  });

  it('enforces max_downloads: 410 SHARE_DOWNLOAD_LIMIT once reached, ranges included; of concurrent requests for the last slot one wins', async () => {
    const asset = await uploadInto(t, team.owner, textFile('limited.txt'));
    const link = await createShare(t, team.owner, { asset_ids: [asset.id], max_downloads: 3 });
    expect((await download(link.key, asset.id)).statusCode).toBe(200);
    expect((await viewShare(t, link.key)).downloads_left).toBe(2);
    expect((await download(link.key, asset.id)).statusCode).toBe(200);

    const race = await Promise.all(Array.from({ length: 6 }, () => download(link.key, asset.id)));
    const statuses = race.map((r) => r.statusCode).sort();
    expect(statuses).toEqual([200, 410, 410, 410, 410, 410]);
    for (const loser of race.filter((r) => r.statusCode === 410)) expect(loser.json<{ code: string }>().code).toBe('SHARE_DOWNLOAD_LIMIT');
    expect(await managed(link.id)).toMatchObject({ download_count: 3, max_downloads: 3 });
    expect((await viewShare(t, link.key)).downloads_left).toBe(0);

    expectError(await download(link.key, asset.id, { range: 'bytes=3-' }), 410, 'SHARE_DOWNLOAD_LIMIT');
    expectError(await publicRequest(t, `/shared/public/${link.key}/zip`), 410, 'SHARE_DOWNLOAD_LIMIT');
    // The items stay visible; raising the limit opens downloads again.
    expect((await viewShare(t, link.key)).items).toHaveLength(1);
    await t.request({ method: 'PATCH', url: `/shared/${link.id}`, token: team.owner.token, payload: { max_downloads: 4 } });
    expect((await download(link.key, asset.id)).statusCode).toBe(200);
    expectError(await download(link.key, asset.id), 410, 'SHARE_DOWNLOAD_LIMIT');
  });

  it('a ZIP of the link is one download, with the folder tree as directories and the bytes of each file', async () => {
    const top = await makeFolder(t, team.owner, team.ws, { name: 'Shoot 2024' });
    const sub = await makeFolder(t, team.owner, team.ws, { name: 'Raw/Edits', parent_id: top.id });
    const photo = await jpeg();
    await uploadInto(t, team.owner, { bytes: photo, name: 'cover.jpg', type: 'image/jpeg' }, { folderId: top.id });
    await uploadInto(t, team.owner, textFile('Ünïcode notes.txt', 'notes'), { folderId: sub.id });
    await uploadInto(t, team.owner, textFile('same.txt', 'one'), { folderId: sub.id });
    await uploadInto(t, team.owner, textFile('same.txt', 'two'), { folderId: sub.id });
    const link = await createShare(t, team.owner, { folder_id: top.id, max_downloads: 5 });

    const res = await publicRequest(t, `/shared/public/${link.key}/zip`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    expect(String(res.headers['content-disposition'])).toContain('filename="Shoot 2024.zip"');
    const { entries } = await readZip(res.rawPayload);
    const files = entries.filter((e) => !e.isDirectory);
    expect(files.map((e) => e.name).sort()).toEqual(['Raw_Edits/same (2).txt', 'Raw_Edits/same.txt', 'Raw_Edits/Ünïcode notes.txt', 'cover.jpg'].sort());
    expect(entries.filter((e) => e.isDirectory).map((e) => e.name)).toEqual(['Raw_Edits/']);
    expect(Buffer.compare(files.find((e) => e.name === 'cover.jpg')!.data, photo)).toBe(0);
    expect(files.filter((e) => e.name.includes('same')).map((e) => e.data.toString()).sort()).toEqual(['one', 'two']);

    expect(await managed(link.id)).toMatchObject({ download_count: 1 });
    expect((await accessLog(t, team.owner, link.id)).map((e) => e.action)).toEqual(['zip']);
    // HEAD: the headers only, nothing counted.
    const head = await publicRequest(t, `/shared/public/${link.key}/zip`, { method: 'HEAD' });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-type']).toBe('application/zip');
    expect((await managed(link.id)).download_count).toBe(1);
  });

  it('a ZIP of a link to assets keeps their names; a link whose items are all gone answers an empty archive and counts nothing', async () => {
    const a = await uploadInto(t, team.owner, textFile('a.txt', 'A'));
    const b = await uploadInto(t, team.owner, textFile('b.txt', 'B'));
    const link = await createShare(t, team.owner, { asset_ids: [a.id, b.id] });
    const first = await readZip((await publicRequest(t, `/shared/public/${link.key}/zip`)).rawPayload);
    expect(first.entries.map((e) => [e.name, e.data.toString()])).toEqual([
      ['a.txt', 'A'],
      ['b.txt', 'B'],
    ]);
    for (const id of [a.id, b.id]) await t.request({ method: 'DELETE', url: `/dam/assets/${id}`, token: team.owner.token });
    const empty = await publicRequest(t, `/shared/public/${link.key}/zip`);
    expect(empty.statusCode).toBe(200);
    expect((await readZip(empty.rawPayload)).entries).toEqual([]);
    expect((await managed(link.id)).download_count).toBe(1);
  });

  it('counts a visit per first page read, not per page or HEAD', async () => {
    const asset = await uploadInto(t, team.owner, textFile('seen.txt'));
    const link = await createShare(t, team.owner, { asset_ids: [asset.id] });
    await viewShare(t, link.key);
    await viewShare(t, link.key, '?page=2');
    await publicRequest(t, `/shared/public/${link.key}`, { method: 'HEAD' });
    await viewShare(t, link.key, '?page=1&per_page=10');
    expect(await managed(link.id)).toMatchObject({ view_count: 2, download_count: 0 });
    expect((await accessLog(t, team.owner, link.id)).map((e) => e.action)).toEqual(['view', 'view']);
  });
});
