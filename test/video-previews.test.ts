import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, testConfig, type TestApp } from './helpers/app.js';
import { dialects } from './helpers/databases.js';
import { registerUser, type Account } from './helpers/factories.js';
import { haveFfmpeg, probe, testClip, undecodableMedia } from './helpers/media.js';
import { listVersions, pathOf, serverUpload, uploadVersion, type FilePart, type VersionJson } from './helpers/versions.js';

/** Web-playable previews of uploaded videos (issue #15), on every dialect. */
describe.skipIf(!haveFfmpeg && process.env.CI !== 'true').each(dialects)('video previews (%s)', (dialect) => {
  let t: TestApp;
  let owner: Account;

  beforeAll(async () => {
    t = await startTestApp({ dialect, config: { jobs: { ...testConfig().jobs, concurrency: 0 } } });
    owner = await registerUser(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  async function uploaded(file: FilePart): Promise<VersionJson> {
    const asset = await serverUpload(t, owner, file);
    const [v1] = await listVersions(t, owner, asset.id);
    return v1!;
  }
  async function current(assetId: number): Promise<VersionJson> {
    return (await listVersions(t, owner, assetId))[0]!;
  }

  it('transcodes what browsers cannot play (MKV, AVI, over 720p) to an H.264/AAC MP4 within 720p, +faststart, served with ranges', async () => {
    const files = {
      mkv: { bytes: testClip({ seconds: 1, size: '640x360', container: 'mkv' }), name: 'clip.mkv', type: 'video/x-matroska' },
      avi: { bytes: testClip({ seconds: 1, container: 'avi', videoCodec: ['-c:v', 'mpeg4'] }), name: 'clip.avi', type: 'video/x-msvideo' },
      large: { bytes: testClip({ seconds: 1, size: '1920x1080', rate: 5 }), name: 'large.mp4', type: 'video/mp4' },
      portrait: { bytes: testClip({ seconds: 1, size: '720x1280', rate: 5, sound: false, container: 'mov' }), name: 'tall.mov', type: 'video/quicktime' },
    };
    const versions: Record<string, VersionJson> = {};
    for (const [name, file] of Object.entries(files)) versions[name] = await uploaded(file);
    expect(versions.mkv!.video_preview).toEqual({ status: 'pending', url: null, mime_type: null, source: null, note: null });
    await t.app.jobs.drain();
    const expected = { mkv: [640, 360, true], avi: [320, 240, true], large: [1280, 720, true], portrait: [720, 1280, false] } as const;
    for (const [name, [width, height, sound]] of Object.entries(expected)) {
      const v = await current(versions[name]!.asset_id);
      expect(v.preview_status, name).toBe('ready');
      expect(v.video_preview, name).toMatchObject({ status: 'ready', source: 'transcode', mime_type: 'video/mp4', note: null });
      expect(pathOf(v.video_preview!.url!)).toMatch(new RegExp(`^/media/versions/${v.id}/video\\?expires=`));
      const res = await t.request({ method: 'GET', url: pathOf(v.video_preview!.url!) });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('video/mp4');
      expect(String(res.headers['content-disposition'])).toMatch(/^inline/);
      const found = probe(res.rawPayload);
      expect(found.streams.map((s) => s.codec_name), name).toEqual(sound ? ['h264', 'aac'] : ['h264']);
      expect(found.streams[0], name).toMatchObject({ width, height, pix_fmt: 'yuv420p' });
      expect(res.rawPayload.indexOf('moov')).toBeLessThan(res.rawPayload.indexOf('mdat'));
      const range = await t.request({ method: 'GET', url: pathOf(v.video_preview!.url!), headers: { range: 'bytes=0-99' } });
      expect(range.statusCode).toBe(206);
      expect(range.rawPayload.length).toBe(100);
    }
  });

  it('plays the file itself when it already plays everywhere (H.264 + AAC MP4 within 720p): no copy is made', async () => {
    const v = await uploaded({ bytes: testClip({ seconds: 1 }), name: 'web.mp4', type: 'video/mp4' });
    await t.app.jobs.drain();
    const done = await current(v.asset_id);
    expect(done.video_preview).toMatchObject({ status: 'ready', source: 'original', url: done.file_url });
    const renditions = await t.database.db.selectFrom('version_renditions').select('kind').where('version_id', '=', v.id).execute();
    expect(renditions.map((r) => r.kind).sort()).toEqual(['preview', 'thumbnail']);
  });

  it('says why a video has none, gives each new version its own, and leaves other files without one', async () => {
    const broken = await uploaded({ bytes: undecodableMedia(5000), name: 'broken.mp4', type: 'video/mp4' });
    const image = await uploaded({ bytes: Buffer.from('just text'), name: 'notes.txt', type: 'text/plain' });
    await t.app.jobs.drain();
    const b = await current(broken.asset_id);
    expect(b.video_preview).toMatchObject({ status: 'unavailable', url: null });
    // Fixed words (issue #27): ffprobe's own name the work directory.
    expect(b.video_preview!.note).toBe('This file is not a playable video.');
    expect((await current(image.asset_id)).video_preview).toBeNull();

    const v2 = await uploadVersion(t, owner, broken.asset_id, { bytes: testClip({ seconds: 1, container: 'mkv' }), name: 'fixed.mkv', type: 'video/x-matroska' });
    expect(v2.video_preview).toMatchObject({ status: 'pending' });
    await t.app.jobs.drain();
    const [now, before] = await listVersions(t, owner, broken.asset_id);
    expect(now).toMatchObject({ version: 'v2', video_preview: { status: 'ready', source: 'transcode' } });
    expect(before!.video_preview).toMatchObject({ status: 'unavailable' });
    // Deleting the version queues its preview's object for deletion with the others.
    const key = (await t.database.db.selectFrom('version_renditions').select('storage_key').where('version_id', '=', now!.id).where('kind', '=', 'video').executeTakeFirstOrThrow()).storage_key;
    await uploadVersion(t, owner, broken.asset_id, { bytes: Buffer.from('text now'), name: 'n.txt', type: 'text/plain' });
    expect((await t.request({ method: 'DELETE', url: `/dam/versions/${now!.id}`, token: owner.token })).statusCode).toBe(200);
    expect(await t.database.db.selectFrom('version_renditions').select('kind').where('version_id', '=', now!.id).execute()).toEqual([]);
    expect(key).toMatch(/\/renditions\/\d+\/video\.mp4$/);
  });
});

describe('video previews turned off (DAM_VIDEO_PREVIEWS=false)', () => {
  it('queues none and answers video_preview null', async () => {
    const t = await startTestApp({ config: { jobs: { ...testConfig().jobs, concurrency: 0 }, convert: { ...testConfig().convert, videoPreviews: false } } });
    try {
      const owner = await registerUser(t);
      const asset = await serverUpload(t, owner, { bytes: randomBytes(100), name: 'clip.mkv', type: 'video/x-matroska' });
      const [v1] = await listVersions(t, owner, asset.id);
      expect(v1!.video_preview).toBeNull();
      const jobs = await t.database.db.selectFrom('jobs').select('kind').where('kind', '=', 'version.video_preview').execute();
      expect(jobs).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
