import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, testConfig, type TestApp } from './helpers/app.js';
import { expectError, makeCollection, makeFolder, makeTeam, type Team } from './helpers/catalog-factories.js';
import { dialects } from './helpers/databases.js';
import type { Envelope } from './helpers/factories.js';
import {
  accessLog,
  createShare,
  jpeg,
  publicRequest,
  textFile,
  unlock,
  uploadInto,
  viewShare,
  type ShareJson,
} from './helpers/shares.js';
import { haveFfmpeg, probe, testClip } from './helpers/media.js';
import { listVersions, pathOf, uploadVersion } from './helpers/versions.js';

const GONE = { error: 'Shared link not found: it does not exist, has expired or was revoked', code: 'NOT_FOUND' };

/** Shared links, the public side (issue #14): what a visitor sees, passwords and their throttle, expiry, rate limits. */
describe.each(dialects)('shared links: public side (%s)', (dialect) => {
  let t: TestApp;
  let team: Team;
  const logs: string[] = [];

  beforeAll(async () => {
    t = await startTestApp({ dialect, config: { logLevel: 'info', sessionTtl: 30 * 86_400 }, logStream: { write: (line) => logs.push(line) } });
    team = await makeTeam(t);
  });
  afterAll(() => t.close());

  const owner = () => team.owner;
  const trash = (kind: 'assets' | 'folders' | 'collections', id: number, query = '') =>
    t.request({ method: 'DELETE', url: `/dam/${kind}/${id}${query}`, token: owner().token });
  const restore = (payload: object) => t.request({ method: 'POST', url: '/dam/trash/restore', token: owner().token, payload: { workspaceId: team.ws, ...payload } });

  it('shows a list of assets in the given order, with signed thumbnail and preview URLs that load without a token', async () => {
    const photo = await uploadInto(t, owner(), { bytes: await jpeg(), name: 'photo.jpg', type: 'image/jpeg' });
    const notes = await uploadInto(t, owner(), textFile('notes.txt'));
    await t.app.jobs.drain();
    const link = await createShare(t, owner(), { asset_ids: [notes.id, photo.id], description: 'Two files' });
    const res = await publicRequest(t, `/shared/public/${link.key}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('private, no-store');
    const view = res.json<Envelope<{ items: unknown[] }>>().data as Awaited<ReturnType<typeof viewShare>>;
    expect(view).toMatchObject({ name: null, description: 'Two files', target: 'assets', allow_download: true, downloads_left: null, total: 2, page: 1 });
    expect(view.zip_url).toBe(`${t.config.publicUrl}/shared/public/${link.key}/zip`);
    expect(view.items.map((i) => i.id)).toEqual([notes.id, photo.id]);
    const [text, image] = view.items;
    expect(image).toMatchObject({ display_file_name: 'photo.jpg', file_type: 'image', mime_type: 'image/jpeg', width: 64, height: 48, version: 'v1', folder_path: [] });
    expect(image!.download_url).toBe(`${t.config.publicUrl}/shared/public/${link.key}/assets/${photo.id}/download`);
    const thumb = await t.request({ method: 'GET', url: pathOf(image!.thumbnail_url) });
    expect(thumb.statusCode).toBe(200);
    expect(thumb.headers['content-type']).toBe('image/webp');
    expect((await t.request({ method: 'GET', url: pathOf(image!.preview_url!) })).statusCode).toBe(200);
    expect(text!.file_type).toBe('document');
    // A text file's preview is its first lines drawn as an image.
    expect(text!.preview_url).toContain('/preview?');
    // Paged.
    const second = await viewShare(t, link.key, '?per_page=1&page=2');
    expect(second.items.map((i) => i.id)).toEqual([photo.id]);
    expect(second).toMatchObject({ total: 2, per_page: 1, page: 2 });
  });

  it('shows a folder with its sub-folders, naming each file\'s folder path; deleted and trashed items disappear', async () => {
    const top = await makeFolder(t, owner(), team.ws, { name: 'Holiday' });
    const beach = await makeFolder(t, owner(), team.ws, { name: 'Beach', parent_id: top.id });
    const dunes = await makeFolder(t, owner(), team.ws, { name: 'Dunes', parent_id: beach.id });
    const outside = await makeFolder(t, owner(), team.ws, { name: 'Elsewhere' });
    const a = await uploadInto(t, owner(), textFile('a.txt'), { folderId: top.id });
    const b = await uploadInto(t, owner(), textFile('b.txt'), { folderId: beach.id });
    const c = await uploadInto(t, owner(), textFile('c.txt'), { folderId: dunes.id });
    await uploadInto(t, owner(), textFile('x.txt'), { folderId: outside.id });
    await uploadInto(t, owner(), textFile('root.txt'));
    const link = await createShare(t, owner(), { folder_id: top.id });

    const view = await viewShare(t, link.key);
    expect(view).toMatchObject({ name: 'Holiday', target: 'folder', total: 3 });
    expect(view.items.map((i) => [i.display_file_name, i.folder_path])).toEqual([
      ['a.txt', []],
      ['b.txt', ['Beach']],
      ['c.txt', ['Beach', 'Dunes']],
    ]);

    // An asset uploaded later appears; one in the trash or deleted for good disappears, as does a trashed sub-folder's.
    const d = await uploadInto(t, owner(), textFile('d.txt'), { folderId: dunes.id });
    expect((await trash('assets', b.id)).statusCode).toBe(200);
    expect((await trash('assets', a.id, '?permanent=true')).statusCode).toBe(200);
    expect((await viewShare(t, link.key)).items.map((i) => i.id)).toEqual([c.id, d.id]);
    expect((await trash('folders', dunes.id, '?recursive=true')).statusCode).toBe(200);
    expect((await viewShare(t, link.key)).items).toEqual([]);
    // Items outside the link are 404 whatever their id.
    expectError(await publicRequest(t, `/shared/public/${link.key}/assets/${c.id}/download`), 404, 'NOT_FOUND');

    // The shared folder itself in the trash: the link is gone until it is restored.
    expect((await trash('folders', top.id, '?recursive=true')).statusCode).toBe(200);
    const gone = await publicRequest(t, `/shared/public/${link.key}`);
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toEqual(GONE);
    expect((await restore({ folder_ids: [top.id, dunes.id], asset_ids: [b.id] })).statusCode).toBe(200);
    expect((await viewShare(t, link.key)).items.map((i) => i.display_file_name).sort()).toEqual(['b.txt', 'c.txt', 'd.txt']);

    // Deleted for good: the link's folder becomes null and the link stays gone.
    expect((await trash('folders', top.id, '?recursive=true&permanent=true')).statusCode).toBe(200);
    expect((await publicRequest(t, `/shared/public/${link.key}`)).json()).toEqual(GONE);
    const managed = await t.request({ method: 'GET', url: `/shared/${link.id}`, token: owner().token });
    expect(managed.json<Envelope<ShareJson>>().data).toMatchObject({ folder_id: null, status: 'active' });
  });

  it('shows a collection in its order, following its members', async () => {
    const x = await uploadInto(t, owner(), textFile('x.txt'));
    const y = await uploadInto(t, owner(), textFile('y.txt'));
    const collection = await makeCollection(t, owner(), team.ws, { name: 'Picks' });
    const add = (ids: number[]) => t.request({ method: 'POST', url: `/dam/collections/${collection.id}/assets`, token: owner().token, payload: { asset_ids: ids } });
    expect((await add([y.id, x.id])).statusCode).toBe(200);
    const link = await createShare(t, owner(), { collection_id: collection.id });
    expect(await viewShare(t, link.key)).toMatchObject({ name: 'Picks', target: 'collection', items: [{ id: y.id }, { id: x.id }] });
    const z = await uploadInto(t, owner(), textFile('z.txt'));
    expect((await add([z.id])).statusCode).toBe(200);
    expect((await viewShare(t, link.key)).items.map((i) => i.id)).toEqual([y.id, x.id, z.id]);
    expect((await trash('collections', collection.id)).statusCode).toBe(200);
    expect((await publicRequest(t, `/shared/public/${link.key}`)).json()).toEqual(GONE);
  });

  it('a version link keeps showing its version after newer ones are uploaded', async () => {
    const v1Bytes = await jpeg(40, 30);
    const asset = await uploadInto(t, owner(), { bytes: v1Bytes, name: 'logo.jpg', type: 'image/jpeg' });
    await t.app.jobs.drain();
    const [v1] = await listVersions(t, owner(), asset.id);
    const link = await createShare(t, owner(), { version_id: v1!.id });
    await uploadVersion(t, owner(), asset.id, textFile('logo-notes.txt', 'not the logo'));
    await t.app.jobs.drain();
    const view = await viewShare(t, link.key);
    expect(view).toMatchObject({ name: 'logo.jpg', target: 'version', total: 1 });
    expect(view.items[0]).toMatchObject({ id: asset.id, version: 'v1', mime_type: 'image/jpeg', file_size: v1Bytes.length, width: 40, height: 30 });
    expect(view.items[0]!.thumbnail_url).toContain(`/media/versions/${v1!.id}/thumbnail`);
    const file = await publicRequest(t, `/shared/public/${link.key}/assets/${asset.id}/download`);
    expect(file.statusCode).toBe(200);
    expect(Buffer.compare(file.rawPayload, v1Bytes)).toBe(0);
    // A link to assets shows the current version instead.
    const current = await createShare(t, owner(), { asset_ids: [asset.id] });
    expect((await viewShare(t, current.key)).items[0]).toMatchObject({ version: 'v2', mime_type: 'text/plain' });
    // The version deleted: the link is gone.
    expect((await t.request({ method: 'DELETE', url: `/dam/versions/${v1!.id}`, token: owner().token })).statusCode).toBe(200);
    expect((await publicRequest(t, `/shared/public/${link.key}`)).json()).toEqual(GONE);
  });

  it.skipIf(!haveFfmpeg && process.env.CI !== 'true')(
    'gives videos a signed video_url once their web-playable preview is ready (a transcode, or the file itself), null otherwise',
    async () => {
      // Jobs only when drained, so "not ready yet" is not a race with the background loop.
      const app = await startTestApp({ dialect, config: { jobs: { ...testConfig().jobs, concurrency: 0 } } });
      const member = (await makeTeam(app)).owner;
      try {
        // An MKV is transcoded; an H.264/AAC MP4 within 720p plays as it is.
        const mkv = await uploadInto(app, member, { bytes: testClip({ seconds: 1, size: '640x360', container: 'mkv' }), name: 'clip.mkv', type: 'video/x-matroska' });
        const mp4Bytes = testClip({ seconds: 1 });
        const mp4 = await uploadInto(app, member, { bytes: mp4Bytes, name: 'web.mp4', type: 'video/mp4' });
        const photo = await uploadInto(app, member, { bytes: await jpeg(), name: 'still.jpg', type: 'image/jpeg' });
        const link = await createShare(app, member, { asset_ids: [mkv.id, mp4.id, photo.id], allow_download: false });
        // Not made yet: no URL (the poster is not there either).
        expect((await viewShare(app, link.key)).items.map((i) => i.video_url)).toEqual([null, null, null]);
        await app.app.jobs.drain();

        const [transcoded, original, image] = (await viewShare(app, link.key)).items;
        expect(image!.video_url).toBeNull();
        const [v1] = await listVersions(app, member, mkv.id);
        const [m1] = await listVersions(app, member, mp4.id);
        expect(pathOf(transcoded!.video_url!)).toMatch(new RegExp(`^/media/versions/${v1!.id}/video\\?expires=\\d+&signature=`));
        expect(pathOf(original!.video_url!)).toMatch(new RegExp(`^/media/versions/${m1!.id}/video\\?expires=`));
        expect(transcoded!.preview_url).toContain(`/media/versions/${v1!.id}/preview?`);
        // Both play without a token, seek with ranges, and are H.264 MP4; the original is the file itself, no copy.
        for (const item of [transcoded!, original!]) {
          const res = await app.request({ method: 'GET', url: pathOf(item.video_url!) });
          expect(res.statusCode).toBe(200);
          expect(res.headers['content-type']).toBe('video/mp4');
          expect(String(res.headers['content-disposition'])).toMatch(/^inline/);
          expect(probe(res.rawPayload).streams.map((s) => s.codec_name)).toEqual(['h264', 'aac']);
          const range = await app.request({ method: 'GET', url: pathOf(item.video_url!), headers: { range: 'bytes=0-99' } });
          expect(range.statusCode).toBe(206);
        }
        const whole = await app.request({ method: 'GET', url: pathOf(original!.video_url!) });
        expect(Buffer.compare(whole.rawPayload, mp4Bytes)).toBe(0);
        // A tampered signature is refused; a trashed asset's video is no longer an item, and its URL answers 404.
        expectError(await app.request({ method: 'GET', url: pathOf(transcoded!.video_url!).replace(/signature=./, 'signature=0') }), 403, 'INVALID_SIGNATURE');
        expect((await app.request({ method: 'DELETE', url: `/dam/assets/${mkv.id}`, token: member.token })).statusCode).toBe(200);
        expect((await viewShare(app, link.key)).items.map((i) => i.id)).toEqual([mp4.id, photo.id]);
        expectError(await app.request({ method: 'GET', url: pathOf(transcoded!.video_url!) }), 404, 'NOT_FOUND');

        // A version link shows its pinned version's preview, not the current one's.
        const pinned = await createShare(app, member, { version_id: m1!.id });
        await uploadVersion(app, member, mp4.id, { bytes: testClip({ seconds: 1, container: 'mkv' }), name: 'web-v2.mkv', type: 'video/x-matroska' });
        const [pinnedItem] = (await viewShare(app, pinned.key)).items;
        expect(pathOf(pinnedItem!.video_url!)).toMatch(new RegExp(`^/media/versions/${m1!.id}/video\\?`));
        // The current version's is still being made: a link to the asset has no video URL until it is ready.
        const current = await createShare(app, member, { asset_ids: [mp4.id] });
        expect((await viewShare(app, current.key)).items[0]!.video_url).toBeNull();
      } finally {
        await app.close();
      }
    },
  );

  it('unknown, revoked and expired keys answer the same 404; a malformed key is a 400', async () => {
    const asset = await uploadInto(t, owner(), textFile('e.txt'));
    const now = Math.floor(Date.now() / 1000);
    const expiring = await createShare(t, owner(), { asset_ids: [asset.id], expires_at: now + 60 });
    expect((await publicRequest(t, `/shared/public/${expiring.key}`)).statusCode).toBe(200);
    const revoked = await createShare(t, owner(), { asset_ids: [asset.id] });
    await t.request({ method: 'DELETE', url: `/shared/${revoked.id}`, token: owner().token });
    t.advanceClock(61);
    try {
      for (const key of [expiring.key, revoked.key, 'unknownkeyunknownkey1234']) {
        for (const suffix of ['', '/zip', `/assets/${asset.id}/download`]) {
          const res = await publicRequest(t, `/shared/public/${key}${suffix}`);
          expect(res.statusCode).toBe(404);
          expect(res.json()).toEqual(GONE);
        }
        expect((await unlock(t, key, 'x')).json()).toEqual(GONE);
      }
    } finally {
      t.advanceClock(-61);
    }
    expectError(await publicRequest(t, '/shared/public/not%20a%20key'), 400, 'VALIDATION_ERROR', 'key');
  });

  describe('passwords', () => {
    let link: ShareJson;
    let assetId: number;

    beforeAll(async () => {
      assetId = (await uploadInto(t, owner(), textFile('secret.txt'))).id;
      link = await createShare(t, owner(), { asset_ids: [assetId], password: 'correct horse' });
    });

    const tokenOf = async (password: string, address: string) => {
      const res = await unlock(t, link.key, password, { 'x-forwarded-for': address });
      expect(res.statusCode, res.body).toBe(200);
      return res.json<Envelope<{ token: string; expires_at: number }>>().data;
    };

    it('answers 401 SHARE_PASSWORD_REQUIRED until unlocked; the token works as X-Share-Token or ?st=', async () => {
      for (const suffix of ['', '/zip', `/assets/${assetId}/download`]) {
        expectError(await publicRequest(t, `/shared/public/${link.key}${suffix}`), 401, 'SHARE_PASSWORD_REQUIRED');
      }
      const wrong = await unlock(t, link.key, 'wrong horse', { 'x-forwarded-for': '10.0.0.1' });
      expectError(wrong, 401, 'SHARE_PASSWORD_WRONG');
      expect(wrong.json<{ attempts_left: number }>().attempts_left).toBe(9);

      const { token, expires_at } = await tokenOf('correct horse', '10.0.0.1');
      expect(expires_at - Math.floor(Date.now() / 1000)).toBeGreaterThan(3500);
      expect((await viewShare(t, link.key, '', token)).items.map((i) => i.id)).toEqual([assetId]);
      const viaQuery = await publicRequest(t, `/shared/public/${link.key}/assets/${assetId}/download?st=${encodeURIComponent(token)}`);
      expect(viaQuery.statusCode).toBe(200);
      expect(viaQuery.body).toBe('content of secret.txt');
      expectError(await publicRequest(t, `/shared/public/${link.key}`, { shareToken: `${token}x` }), 401, 'SHARE_PASSWORD_REQUIRED');

      // Not a token of another link, nor a session token.
      const other = await createShare(t, owner(), { asset_ids: [assetId], password: 'correct horse' });
      expectError(await publicRequest(t, `/shared/public/${other.key}`, { shareToken: token }), 401, 'SHARE_PASSWORD_REQUIRED');
      expectError(await publicRequest(t, `/shared/public/${link.key}`, { shareToken: owner().token }), 401, 'SHARE_PASSWORD_REQUIRED');
      expectError(await t.request({ method: 'GET', url: `/shared/${link.id}`, headers: { authorization: `Bearer ${token}` } }), 401, 'INVALID_TOKEN');
    });

    it('tokens expire (DAM_SHARE_TOKEN_TTL) and end when the password changes', async () => {
      const { token } = await tokenOf('correct horse', '10.0.0.2');
      t.advanceClock(3601);
      try {
        expectError(await publicRequest(t, `/shared/public/${link.key}`, { shareToken: token }), 401, 'SHARE_PASSWORD_REQUIRED');
      } finally {
        t.advanceClock(-3601);
      }
      expect((await publicRequest(t, `/shared/public/${link.key}`, { shareToken: token })).statusCode).toBe(200);
      const patch = (password: string | null) => t.request({ method: 'PATCH', url: `/shared/${link.id}`, token: owner().token, payload: { password } });
      expect((await patch('battery staple')).statusCode).toBe(200);
      expectError(await publicRequest(t, `/shared/public/${link.key}`, { shareToken: token }), 401, 'SHARE_PASSWORD_REQUIRED');
      expectError(await unlock(t, link.key, 'correct horse', { 'x-forwarded-for': '10.0.0.2' }), 401, 'SHARE_PASSWORD_WRONG');
      const fresh = await tokenOf('battery staple', '10.0.0.2');
      expect((await publicRequest(t, `/shared/public/${link.key}`, { shareToken: fresh.token })).statusCode).toBe(200);
      // Without a password the link opens for everyone; back with one, the old tokens stay dead.
      expect((await patch(null)).statusCode).toBe(200);
      expect((await publicRequest(t, `/shared/public/${link.key}`)).statusCode).toBe(200);
      expect((await patch('correct horse')).statusCode).toBe(200);
      expectError(await publicRequest(t, `/shared/public/${link.key}`, { shareToken: fresh.token }), 401, 'SHARE_PASSWORD_REQUIRED');
    });

    it('throttles wrong passwords per link and address: 10 per 15 minutes, then every try is 429, logged as it goes', async () => {
      const from = { 'x-forwarded-for': '10.9.9.9' };
      for (let i = 0; i < 10; i++) expectError(await unlock(t, link.key, `guess ${i}`, from), 401, 'SHARE_PASSWORD_WRONG');
      const blocked = await unlock(t, link.key, 'guess 10', from);
      expectError(blocked, 429, 'RATE_LIMITED');
      expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(800);
      // The right password too: otherwise the throttle would still answer which guess is right.
      expectError(await unlock(t, link.key, 'correct horse', from), 429, 'RATE_LIMITED');
      // Another address, and the same address on another link, are not affected.
      await tokenOf('correct horse', '10.9.9.8');
      const log = await accessLog(t, owner(), link.id);
      expect(log.filter((e) => e.address === '10.9.9.9').map((e) => e.action)).toEqual(Array(10).fill('unlock-failed'));
      t.advanceClock(15 * 60 + 1);
      try {
        await tokenOf('correct horse', '10.9.9.9');
      } finally {
        t.advanceClock(-(15 * 60 + 1));
      }
    });

    it('concurrent wrong passwords cannot pass the limit together', async () => {
      const from = { 'x-forwarded-for': '10.7.7.7' };
      const answers = await Promise.all(Array.from({ length: 14 }, (_, i) => unlock(t, link.key, `parallel ${i}`, from)));
      const statuses = answers.map((r) => r.statusCode).sort();
      expect(statuses.filter((s) => s === 401)).toHaveLength(10);
      expect(statuses.filter((s) => s === 429)).toHaveLength(4);
    });

    it('counts an IPv6 /64 as one address, and an IPv4-mapped address as its IPv4 address (issue #28)', async () => {
      const own = await createShare(t, owner(), { asset_ids: [assetId], password: 'correct horse' });
      for (let i = 0; i < 10; i++) {
        expectError(await unlock(t, own.key, `guess ${i}`, { 'x-forwarded-for': `2001:db8:1:2::${(i + 1).toString(16)}` }), 401, 'SHARE_PASSWORD_WRONG');
      }
      expectError(await unlock(t, own.key, 'correct horse', { 'x-forwarded-for': '2001:db8:1:2:ffff:ffff:ffff:fffe' }), 429, 'RATE_LIMITED');
      expect((await unlock(t, own.key, 'correct horse', { 'x-forwarded-for': '2001:db8:1:3::1' })).statusCode).toBe(200);
      for (let i = 0; i < 10; i++) expectError(await unlock(t, own.key, `mapped ${i}`, { 'x-forwarded-for': '::ffff:10.5.5.5' }), 401, 'SHARE_PASSWORD_WRONG');
      expectError(await unlock(t, own.key, 'correct horse', { 'x-forwarded-for': '10.5.5.5' }), 429, 'RATE_LIMITED');
    });

    it('locks the link for everyone after 50 wrong passwords from all addresses together, each in its access log (issue #28)', async () => {
      const own = await createShare(t, owner(), { asset_ids: [assetId], password: 'correct horse' });
      // Each address's ten guesses at once (the count is atomic, as the test above shows): fifty scrypt checks in a row
      // took 16-20 s on a loaded 2-core machine.
      for (let a = 0; a < 5; a++) {
        const guesses = await Promise.all(Array.from({ length: 10 }, (_, i) => unlock(t, own.key, `guess ${a}.${i}`, { 'x-forwarded-for': `10.60.0.${a}` })));
        for (const guess of guesses) expectError(guess, 401, 'SHARE_PASSWORD_WRONG');
      }
      const locked = await unlock(t, own.key, 'correct horse', { 'x-forwarded-for': '10.61.0.1' });
      expectError(locked, 429, 'RATE_LIMITED');
      expect(locked.json<{ error: string }>().error).toContain('This link is locked after 50 wrong passwords');
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(800);
      const log = await accessLog(t, owner(), own.id);
      expect(log.filter((e) => e.action === 'unlock-failed')).toHaveLength(50);
      t.advanceClock(15 * 60 + 1);
      try {
        expect((await unlock(t, own.key, 'correct horse', { 'x-forwarded-for': '10.61.0.1' })).statusCode).toBe(200);
      } finally {
        t.advanceClock(-(15 * 60 + 1));
      }
    }, 60_000);

    it('refuses a new password shorter than 8 characters, on create and on change (issue #28)', async () => {
      const short = await t.request({ method: 'POST', url: '/shared', token: owner().token, payload: { workspaceId: team.ws, asset_ids: [assetId], password: 'letmein' } });
      expect(short.statusCode).toBe(400);
      expect(short.json()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'password' });
      const own = await createShare(t, owner(), { asset_ids: [assetId], password: 'eight ch' });
      const patched = await t.request({ method: 'PATCH', url: `/shared/${own.id}`, token: owner().token, payload: { password: 'x' } });
      expect(patched.statusCode).toBe(400);
      expect(patched.json()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'password' });
      expect((await unlock(t, own.key, 'eight ch', { 'x-forwarded-for': '10.62.0.1' })).statusCode).toBe(200);
    });
  });

  it('limits public requests per client address and per link (429 RATE_LIMITED with Retry-After)', async () => {
    const limited = await startTestApp({ dialect, config: { shares: { rateLimit: 4, linkRateLimit: 6, tokenTtl: 3600, logDays: 365 } } });
    try {
      const member = (await makeTeam(limited)).owner;
      const asset = await uploadInto(limited, member, textFile('busy.txt'));
      const link = await createShare(limited, member, { asset_ids: [asset.id] });
      const other = await createShare(limited, member, { asset_ids: [asset.id] });
      const get = (key: string, address: string) => publicRequest(limited, `/shared/public/${key}`, { headers: { 'x-forwarded-for': address } });
      for (let i = 0; i < 4; i++) expect((await get(link.key, '10.1.0.1')).statusCode).toBe(200);
      const perAddress = await get(other.key, '10.1.0.1');
      expectError(perAddress, 429, 'RATE_LIMITED');
      expect(perAddress.json<{ error: string }>().error).toContain('from this address');
      expect(Number(perAddress.headers['retry-after'])).toBeGreaterThan(0);
      expect((await get(link.key, '10.1.0.2')).statusCode).toBe(200);
      expect((await get(link.key, '10.1.0.3')).statusCode).toBe(200);
      const perLink = await get(link.key, '10.1.0.4');
      expectError(perLink, 429, 'RATE_LIMITED');
      expect(perLink.json<{ error: string }>().error).toContain('for this shared link');
      expect((await get(other.key, '10.1.0.4')).statusCode).toBe(200);
      // A malformed request is refused before it is counted.
      for (let i = 0; i < 10; i++) expect((await get('bad key', '10.1.0.5')).statusCode).toBe(400);
      expect((await get(other.key, '10.1.0.5')).statusCode).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('never writes a key, a share token or a password into the log', async () => {
    const asset = await uploadInto(t, owner(), textFile('log.txt'));
    const link = await createShare(t, owner(), { asset_ids: [asset.id], password: 'do not log me' });
    const res = await unlock(t, link.key, 'do not log me');
    const token = res.json<Envelope<{ token: string }>>().data.token;
    await publicRequest(t, `/shared/public/${link.key}?st=${token}`);
    await publicRequest(t, `/s/${link.key}`, { headers: { accept: 'text/html' } });
    const text = logs.join('\n');
    expect(text).toContain('/shared/public/[redacted]');
    expect(text).not.toContain(link.key);
    expect(text).not.toContain(token);
    expect(text).not.toContain('do not log me');
  });
});
