import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerUser, type Account } from './helpers/factories.js';
import { createShare, jpeg, textFile, uploadInto, viewShare } from './helpers/shares.js';
import { STORE_KINDS, startS3Server, startStorageApp, type S3Server, type StorageTestApp } from './helpers/uploads.js';
import { readZip } from './helpers/zip.js';

/** A shared link's files on both object stores: thumbnails, downloads with Range and the ZIP, as a browser fetches them. */
describe.each(STORE_KINDS)('shared links on the %s store', (kind) => {
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

  it('serves thumbnails, whole and ranged downloads and the ZIP of a password-protected link over HTTP', async () => {
    const photo = await jpeg(300, 200);
    const image = await uploadInto(t, owner, { bytes: photo, name: 'Café.jpg', type: 'image/jpeg' });
    const notes = await uploadInto(t, owner, textFile('notes.txt', 'stored on the store'));
    await t.app.jobs.drain();
    const link = await createShare(t, owner, { asset_ids: [image.id, notes.id], password: 'let me in please', max_downloads: 10 });

    // As the web client would: unlock, then follow the URLs the API hands out.
    const unlock = await fetch(`${t.baseUrl}/shared/public/${link.key}/unlock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ password: 'let me in please' }),
    });
    expect(unlock.status).toBe(200);
    const { token } = ((await unlock.json()) as { data: { token: string } }).data;
    expect((await fetch(`${t.baseUrl}/shared/public/${link.key}`)).status).toBe(401);
    const view = await viewShare(t, link.key, '', token);
    const [img, txt] = view.items;

    const thumb = await fetch(img!.thumbnail_url);
    expect(thumb.status).toBe(200);
    expect(thumb.headers.get('content-type')).toBe('image/webp');

    const st = `?st=${encodeURIComponent(token)}`;
    const whole = await fetch(`${img!.download_url}${st}`);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-disposition')).toContain("filename*=UTF-8''Caf%C3%A9.jpg");
    expect(Buffer.compare(Buffer.from(await whole.arrayBuffer()), photo)).toBe(0);
    const ranged = await fetch(`${txt!.download_url}${st}`, { headers: { range: 'bytes=10-' } });
    expect(ranged.status).toBe(206);
    expect(await ranged.text()).toBe('the store');

    const zip = await fetch(`${view.zip_url}${st}`);
    expect(zip.status).toBe(200);
    const { entries } = await readZip(Buffer.from(await zip.arrayBuffer()));
    expect(entries.map((e) => e.name)).toEqual(['Café.jpg', 'notes.txt']);
    expect(Buffer.compare(entries[0]!.data, photo)).toBe(0);
    expect(entries[1]!.data.toString()).toBe('stored on the store');

    const managed = await t.request({ method: 'GET', url: `/shared/${link.id}`, token: owner.token });
    // The image, the text fetched from byte 10 without a download grant (a new download, issue #28), and the ZIP.
    expect(managed.json<{ data: { download_count: number } }>().data.download_count).toBe(3);
  });

  it('serves the web client\'s page for /s/{key} (or a note that it is not built) to browsers, unindexed', async () => {
    const res = await fetch(`${t.baseUrl}/s/AAAAAAAAAAAAAAAAAAAAAAAA`, { headers: { accept: 'application/json' } });
    expect([200, 503]).toContain(res.status);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.headers.get('x-robots-tag')).toBe('noindex, nofollow');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  });
});
