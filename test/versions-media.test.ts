import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { locateFfmpeg } from '../src/media/ffmpeg.js';
import { startHttpTestApp, type TestApp } from './helpers/app.js';
import { tempDir } from './helpers/databases.js';
import { expectError } from './helpers/catalog-factories.js';
import { registerUser, type Account } from './helpers/factories.js';
import { objectExists } from './helpers/uploads.js';
import { listVersions, serverUpload, text, uploadVersion, type FilePart, type VersionJson } from './helpers/versions.js';

type HttpApp = TestApp & { baseUrl: string };

/** A JPEG stored 600 x 400 with its left half red, shown (EXIF orientation 6, turned 90° clockwise) 400 x 600 with the red half on top. */
async function rotatedJpeg(): Promise<Buffer> {
  return sharp({ create: { width: 600, height: 400, channels: 3, background: '#0000ff' } })
    .composite([{ input: { create: { width: 300, height: 400, channels: 3, background: '#ff0000' } }, left: 0, top: 0 }])
    .withMetadata({ orientation: 6 })
    .jpeg({ quality: 95 })
    .toBuffer();
}

/** A 2 s, 320 x 240 H.264 video of ffmpeg's test pattern. */
function testVideo(ffmpeg: string): Buffer {
  const file = path.join(tempDir('dam-video-'), 'testsrc.mp4');
  execFileSync(ffmpeg, ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=duration=2:size=320x240:rate=10', '-pix_fmt', 'yuv420p', file]);
  return readFileSync(file);
}

/** Fetches a URL the API handed out as a browser would: no Authorization header. */
async function fetchPublic(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: Buffer }> {
  const res = await fetch(url, { headers });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

async function currentVersion(t: TestApp, who: Account, assetId: number): Promise<VersionJson> {
  return (await listVersions(t, who, assetId))[0]!;
}

const jpegPart = (bytes: Buffer, name = 'photo.jpg'): FilePart => ({ bytes, name, type: 'image/jpeg' });

const ffmpegPath = await locateFfmpeg(undefined);

describe('thumbnails and previews', () => {
  let t: HttpApp;
  let owner: Account;

  beforeAll(async () => {
    t = await startHttpTestApp();
    owner = await registerUser(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('makes a 256 px thumbnail and a preview of a JPEG with its EXIF orientation applied, served by signed URLs', async () => {
    const asset = await serverUpload(t, owner, jpegPart(await rotatedJpeg()));
    await t.app.jobs.drain();
    const v1 = await currentVersion(t, owner, asset.id);
    expect(v1.preview_status).toBe('ready');

    const thumb = await fetchPublic(v1.thumbnail_url);
    expect(thumb.status).toBe(200);
    expect(thumb.headers.get('content-type')).toBe('image/webp');
    expect(thumb.headers.get('content-disposition')).toMatch(/^inline/);
    const { data, info } = await sharp(thumb.body).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([171, 256]);
    const pixel = (x: number, y: number) => Array.from(data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3));
    const [top, bottom] = [pixel(85, 20), pixel(85, 235)];
    expect(top[0]).toBeGreaterThan(200); // red on top, as shown
    expect(top[2]).toBeLessThan(60);
    expect(bottom[2]).toBeGreaterThan(200); // blue below
    expect(bottom[0]).toBeLessThan(60);

    const preview = await t.request({ method: 'GET', url: `/dam/versions/${v1.id}/preview`, token: owner.token });
    expect(preview.statusCode).toBe(200);
    const body = preview.json<{ success: true; data: { url: string; mime_type: string; width: number; height: number } }>();
    // Smaller than 1440 px: not enlarged.
    expect(body).toMatchObject({ success: true, data: { mime_type: 'image/webp', width: 400, height: 600 } });
    const served = await fetchPublic(body.data.url);
    expect(served.status).toBe(200);
    expect(await sharp(served.body).metadata()).toMatchObject({ width: 400, height: 600, format: 'webp' });
  });

  it('bounds the preview at 1440 px and the thumbnail at 256 px on the longest edge', async () => {
    const big = await sharp({ create: { width: 2000, height: 1000, channels: 3, background: '#336699' } }).jpeg().toBuffer();
    const asset = await serverUpload(t, owner, jpegPart(big));
    await t.app.jobs.drain();
    const v1 = await currentVersion(t, owner, asset.id);
    expect(await sharp((await fetchPublic(v1.thumbnail_url)).body).metadata()).toMatchObject({ width: 256, height: 128 });
    const preview = (await t.request({ method: 'GET', url: `/dam/versions/${v1.id}/preview`, token: owner.token })).json<{ data: { url: string; width: number; height: number } }>();
    expect(preview.data).toMatchObject({ width: 1440, height: 720 });
    expect(await sharp((await fetchPublic(preview.data.url)).body).metadata()).toMatchObject({ width: 1440, height: 720 });
  });

  // CI installs ffmpeg (.ci/run) and runs this always; a machine without it skips it (the service works without it).
  it.skipIf(!ffmpegPath && process.env.CI !== 'true')('makes a poster frame of a short video with ffmpeg', async () => {
    const ffmpeg = ffmpegPath;
    if (!ffmpeg) throw new Error('ffmpeg is not installed: `apt-get install ffmpeg` (.ci/run installs it)');
    const asset = await serverUpload(t, owner, { bytes: testVideo(ffmpeg), name: 'clip.mp4', type: 'video/mp4' });
    await t.app.jobs.drain();
    const v1 = await currentVersion(t, owner, asset.id);
    expect(v1.preview_status).toBe('ready');
    const thumb = await sharp((await fetchPublic(v1.thumbnail_url)).body).stats();
    // The test pattern's colour bars, not a blank frame.
    expect(Math.max(...thumb.channels.map((c) => c.stdev))).toBeGreaterThan(20);
    expect(await sharp((await fetchPublic(v1.thumbnail_url)).body).metadata()).toMatchObject({ width: 256, height: 192 });
    const preview = (await t.request({ method: 'GET', url: `/dam/versions/${v1.id}/preview`, token: owner.token })).json<{ data: object }>();
    expect(preview.data).toMatchObject({ mime_type: 'image/webp', width: 320, height: 240 });
  });

  it('gives documents and undecodable images the file type\'s icon, and a 404 preview that says why', async () => {
    const doc = await serverUpload(t, owner, { bytes: Buffer.from('%PDF-1.4 not really'), name: 'a.pdf', type: 'application/pdf' });
    const broken = await serverUpload(t, owner, jpegPart(randomBytes(2000), 'broken.jpg'));
    await t.app.jobs.drain();
    for (const [asset, icon] of [
      [doc, 'document'],
      [broken, 'image'],
    ] as const) {
      const v1 = await currentVersion(t, owner, asset.id);
      expect(v1.preview_status).toBe('unavailable');
      expect(v1.thumbnail_url).toBe(`${t.baseUrl}/media/icons/${icon}.svg`);
      const res = await t.request({ method: 'GET', url: `/dam/versions/${v1.id}/preview`, token: owner.token });
      expectError(res, 404, 'NOT_FOUND');
      expect(res.json()).toMatchObject({ preview_status: 'unavailable' });
    }
    const icon = await fetchPublic(`${t.baseUrl}/media/icons/document.svg`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(icon.body.toString()).toContain('<svg');
    expect((await fetchPublic(`${t.baseUrl}/media/icons/nothing.svg`)).status).toBe(404);
  });

  it('a preview still being made is a 404 saying so', async () => {
    const stopped = await startHttpTestApp({ config: { jobs: { concurrency: 0, pollIntervalMs: 200, leaseSeconds: 300, maxAttempts: 5, retryBaseSeconds: 10 } } });
    try {
      const who = await registerUser(stopped);
      const asset = await serverUpload(stopped, who, jpegPart(await rotatedJpeg()));
      const v1 = await currentVersion(stopped, who, asset.id);
      expect(v1.preview_status).toBe('pending');
      expect(v1.thumbnail_url).toBe(`${stopped.baseUrl}/media/icons/image.svg`);
      const res = await stopped.request({ method: 'GET', url: `/dam/versions/${v1.id}/preview`, token: who.token });
      expectError(res, 404, 'NOT_FOUND');
      expect(res.json()).toMatchObject({ preview_status: 'pending' });
    } finally {
      await stopped.close();
    }
  });

  it('file_url serves the file without a token (ranges too); tampered or expired signatures are 403', async () => {
    const html = await serverUpload(t, owner, text('<script>alert(1)</script>', 'page.html', 'text/html'));
    const jpeg = await sharp({ create: { width: 10, height: 10, channels: 3, background: '#000' } }).jpeg().toBuffer();
    const v2 = await uploadVersion(t, owner, html.id, jpegPart(jpeg));
    const [, v1] = await listVersions(t, owner, html.id);

    const image = await fetchPublic(v2.file_url);
    expect(image.status).toBe(200);
    expect(Buffer.compare(image.body, jpeg)).toBe(0);
    expect(image.headers.get('content-disposition')).toBe('inline; filename="photo.jpg"');
    expect(image.headers.get('cache-control')).toMatch(/^private, max-age=\d+$/);
    const part = await fetchPublic(v2.file_url, { range: 'bytes=0-3' });
    expect(part.status).toBe(206);
    expect(Buffer.compare(part.body, jpeg.subarray(0, 4))).toBe(0);

    // Markup is never rendered from our origin: an attachment, sandboxed.
    const page = await fetchPublic(v1!.file_url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-disposition')).toMatch(/^attachment/);
    expect(page.headers.get('content-security-policy')).toContain('sandbox');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');

    const url = new URL(v2.file_url);
    const other = new URL(v1!.file_url);
    const forged = [
      `${url.origin}${url.pathname}?expires=${url.searchParams.get('expires')}&signature=${other.searchParams.get('signature')}`,
      `${url.origin}${url.pathname.replace('/file', '/thumbnail')}${url.search}`,
      `${url.origin}${url.pathname}?expires=${Number(url.searchParams.get('expires')) + 600}&signature=${url.searchParams.get('signature')}`,
      `${url.origin}${url.pathname}`,
    ];
    for (const f of forged) {
      const res = await fetchPublic(f);
      expect(res.status, f).toBe(403);
      expect((JSON.parse(res.body.toString()) as { code: string }).code).toBe('INVALID_SIGNATURE');
    }
    t.advanceClock(2 * 3600);
    const late = await fetchPublic(v2.file_url);
    expect(late.status).toBe(403);
    expect((JSON.parse(late.body.toString()) as { code: string }).code).toBe('URL_EXPIRED');
    t.advanceClock(-2 * 3600);
  });
});

describe('without ffmpeg', () => {
  let t: HttpApp;

  beforeAll(async () => {
    t = await startHttpTestApp({ config: { ffmpegPath: '/nonexistent/ffmpeg' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('a video gets the video icon and says its preview is unavailable; the job succeeds, nothing crashes', async () => {
    const owner = await registerUser(t);
    const asset = await serverUpload(t, owner, { bytes: randomBytes(4000), name: 'clip.mp4', type: 'video/mp4' });
    await t.app.jobs.drain();
    const v1 = await currentVersion(t, owner, asset.id);
    expect(v1.preview_status).toBe('unavailable');
    expect(v1.thumbnail_url).toBe(`${t.baseUrl}/media/icons/video.svg`);
    const res = await t.request({ method: 'GET', url: `/dam/versions/${v1.id}/preview`, token: owner.token });
    expectError(res, 404, 'NOT_FOUND');
    expect(res.json<{ error: string }>().error).toContain('ffmpeg');
    const jobs = await t.request({ method: 'GET', url: '/admin/jobs', token: owner.token });
    // Its renditions, its embedded metadata (issue #12) and its video preview (issue #15), which says why there is none;
    // and the hash backfill job of migration 0022. Its SHA-256 (issue #19) was recorded as it was stored, with no job.
    expect(jobs.json<{ data: { counts: Record<string, number> } }>().data.counts).toMatchObject({ succeeded: 4, failed: 0, queued: 0 });
    expect(v1.video_preview).toMatchObject({ status: 'unavailable', url: null });
    expect(v1.video_preview?.note).toContain('ffmpeg');
  });
});

describe('objects of versions and renditions', () => {
  let t: HttpApp;

  beforeAll(async () => {
    // Housekeeping (which deletes queued objects) runs from a one-minute setInterval, driven here.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    t = await startHttpTestApp();
  });
  afterAll(async () => {
    vi.useRealTimers();
    await t.close();
  });

  it('go with a deleted version at once, and with a deleted asset on the next housekeeping run', async () => {
    const owner = await registerUser(t);
    const ws = owner.workspaceId;
    const asset = await serverUpload(t, owner, jpegPart(await rotatedJpeg()));
    await uploadVersion(t, owner, asset.id, jpegPart(await rotatedJpeg(), 'second.jpg'));
    await t.app.jobs.drain();
    const [v2, v1] = await listVersions(t, owner, asset.id);
    const keysOf = (v: VersionJson, own: string) => [own, ...['thumbnail', 'preview'].map((k) => `${ws}/digital_assets/${asset.id}/renditions/${v.id}/${k}.webp`)];
    const v1Keys = keysOf(v1!, `${ws}/digital_assets/${asset.id}`);
    const v2Keys = keysOf(v2!, `${ws}/digital_assets/${asset.id}/versions/${v2!.id}`);
    for (const key of [...v1Keys, ...v2Keys]) expect(await objectExists(t, key), key).toBe(true);

    expect((await t.request({ method: 'DELETE', url: `/dam/versions/${v1!.id}`, token: owner.token })).statusCode).toBe(200);
    for (const key of v1Keys) expect(await objectExists(t, key), key).toBe(false);
    for (const key of v2Keys) expect(await objectExists(t, key), key).toBe(true);

    // permanent=true: from the trash they would go only when it is emptied or purged (test/trash.test.ts).
    expect((await t.request({ method: 'DELETE', url: `/dam/assets/${asset.id}?permanent=true`, token: owner.token })).statusCode).toBe(200);
    vi.advanceTimersByTime(60_000);
    await vi.waitFor(async () => {
      for (const key of v2Keys) expect(await objectExists(t, key), key).toBe(false);
    });
  });
});
