import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import type { AppConfig } from '../src/config.js';
import type { DatabaseHandle } from '../src/db/database.js';
import type { DialectName } from '../src/db/dialects/types.js';
import { startTestApp, testConfig, type TestApp } from './helpers/app.js';
import { expectError, makeFolder, makeTeam, type Team } from './helpers/catalog-factories.js';
import { dialects, openTestDatabase } from './helpers/databases.js';
import type { Account } from './helpers/factories.js';
import { haveFfmpeg, probe, processesMentioning, testClip, testTone, undecodableMedia, wrappedFfmpeg } from './helpers/media.js';
import { startS3Server, startStorageApp, type S3Server } from './helpers/uploads.js';
import { getAssetJson, listVersions, pathOf, serverUpload, type AssetJson, type FilePart } from './helpers/versions.js';

interface Conversion {
  id: number;
  kind: 'image' | 'video';
  workspace_id: number;
  asset_id: number;
  source_version_id: number;
  params: Record<string, unknown>;
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'canceled';
  progress: number;
  result_asset_id: number | null;
  result_version_id: number | null;
  error: string | null;
  requested_by: { id: number | null; name: string };
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
}

/** Small enough that a 200 x 100 image is over it, large enough for the 64 x 48 test pictures. */
const MAX_PIXELS = 10_000;

const png = async (width = 64, height = 48): Promise<FilePart> => ({
  bytes: await sharp({ create: { width, height, channels: 4, background: { r: 200, g: 40, b: 40, alpha: 0.5 } } })
    .png()
    .withExif({ IFD0: { Copyright: 'Example Photos' } })
    .toBuffer(),
  name: 'photo.png',
  type: 'image/png',
});

type App = TestApp;

function assetCount(t: App, workspaceId: number): Promise<number> {
  return t.database.db
    .selectFrom('assets')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow()
    .then((r) => Number(r.n));
}

/** An app whose worker runs only when a test drains it. */
function appConfig(overrides: Partial<AppConfig> = {}): Partial<AppConfig> {
  return {
    jobs: { ...testConfig().jobs, concurrency: 0 },
    convert: { ...testConfig().convert, maxPixels: MAX_PIXELS },
    ...overrides,
  };
}

const describeMedia = describe.skipIf(!haveFfmpeg && process.env.CI !== 'true');

describeMedia.each(dialects)('conversions (%s)', (dialect: DialectName) => {
  let t: App;
  let team: Team;
  let photo: AssetJson;
  let clip: AssetJson;
  let clipBytes: Buffer;

  beforeAll(async () => {
    t = await startTestApp({ dialect, config: appConfig() });
    team = await makeTeam(t);
    const folder = await makeFolder(t, team.owner, team.ws);
    photo = await serverUploadInto(t, team.manager, await png(), team.ws, folder.id);
    clipBytes = testClip({ seconds: 3 });
    clip = await serverUpload(t, team.manager, { bytes: clipBytes, name: 'clip.mov', type: 'video/quicktime' }, team.ws);
    await t.app.jobs.drain();
  });
  afterAll(async () => {
    await t?.close();
  });

  const post = (app: App, who: Account | undefined, kind: 'image' | 'video', payload: Record<string, unknown>) =>
    app.request({ method: 'POST', url: `/convert/${kind}`, token: who?.token, payload });

  async function start(app: App, who: Account, kind: 'image' | 'video', payload: Record<string, unknown>, expected = 202): Promise<Conversion> {
    const res = await post(app, who, kind, payload);
    expect(res.statusCode, res.body).toBe(expected);
    const conversion = res.json<{ success: true; data: Conversion }>().data;
    expect(res.headers.location).toBe(`/convert/status/${conversion.id}`);
    return conversion;
  }
  async function status(app: App, id: number, who: Account = team.owner): Promise<Conversion> {
    const res = await app.request({ method: 'GET', url: `/convert/status/${id}`, token: who.token });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ data: Conversion }>().data;
  }
  async function settle(app: App, id: number): Promise<Conversion> {
    await app.app.jobs.drain();
    return status(app, id);
  }
  const cancel = (app: App, who: Account, id: number) => app.request({ method: 'POST', url: `/convert/status/${id}/cancel`, token: who.token });

  it('converts an image to each format as a new asset beside it, with thumbnails, metadata and the upload in the activity log', async () => {
    const formats = { jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', avif: 'image/avif', tiff: 'image/tiff', gif: 'image/gif' } as const;
    const queued: Record<string, Conversion> = {};
    for (const format of Object.keys(formats)) {
      queued[format] = await start(t, team.manager, 'image', { assetId: photo.id, format, width: 32 });
    }
    const jpeg = queued.jpeg!;
    expect(jpeg).toMatchObject({
      kind: 'image',
      workspace_id: team.ws,
      asset_id: photo.id,
      status: 'queued',
      progress: 0,
      result_asset_id: null,
      params: { format: 'jpeg', width: 32, height: null, fit: 'inside', enlarge: false, quality: 80, strip_metadata: false, target: 'new_asset' },
      requested_by: { id: team.manager.user.id, name: team.manager.user.name },
    });
    await t.app.jobs.drain();
    for (const [format, mime] of Object.entries(formats)) {
      const done = await status(t, queued[format]!.id);
      expect(done, format).toMatchObject({ status: 'succeeded', progress: 100, error: null });
      expect(done.started_at).not.toBeNull();
      expect(done.finished_at).not.toBeNull();
      const result = await getAssetJson(t, team.owner, done.result_asset_id!);
      const ext = format === 'jpeg' ? 'jpg' : format === 'tiff' ? 'tif' : format;
      expect(result, format).toMatchObject({ mime_type: mime, file_type: 'image', width: 32, height: 24, file_name: `photo.${ext}`, display_file_name: `photo.${ext}` });
      expect((result as AssetJson & { folder_id: number | null }).folder_id).toBe((photo as AssetJson & { folder_id: number | null }).folder_id);
      const [v1] = await listVersions(t, team.owner, result.id);
      expect(v1).toMatchObject({ id: done.result_version_id, version: 'v1', preview_status: 'ready', created_by: team.manager.user.name });
      expect(result.metadata.converted_from).toEqual({ asset_id: photo.id, version_id: jpeg.source_version_id, version: 'v1', conversion_id: done.id, format });
    }
    // The file itself: WebP at 32 x 24, with the source's EXIF kept (strip_metadata false).
    const webp = await getAssetJson(t, team.owner, (await status(t, queued.webp!.id)).result_asset_id!);
    const [webpVersion] = await listVersions(t, team.owner, webp.id);
    const file = await t.request({ method: 'GET', url: pathOf(webpVersion!.file_url) });
    const meta = await sharp(file.rawPayload).metadata();
    expect(meta).toMatchObject({ format: 'webp', width: 32, height: 24, hasAlpha: true });
    expect(meta.exif?.toString('latin1')).toContain('Example Photos');
    // The upload is in the activity log, by the requester.
    const log = await t.request({ method: 'GET', url: `/dam/activity?workspaceId=${team.ws}&asset_id=${webp.id}`, token: team.owner.token });
    const entries = log.json<{ data: { items: { action: string; actor: { id: number } }[] } }>().data.items;
    expect(entries.map((e) => [e.action, e.actor.id])).toEqual([['asset.upload', team.manager.user.id]]);
  });

  it('resizes as asked: cover crops, strip_metadata drops EXIF, quality applies, never enlarged unless asked', async () => {
    const cover = await start(t, team.manager, 'image', { assetId: photo.id, format: 'jpeg', width: 20, height: 20, fit: 'cover', quality: 50, strip_metadata: true });
    const small = await start(t, team.manager, 'image', { assetId: photo.id, format: 'png', width: 96 });
    const big = await start(t, team.manager, 'image', { assetId: photo.id, format: 'png', width: 96, enlarge: true });
    await t.app.jobs.drain();
    const bytesOf = async (c: Conversion) => {
      const [v] = await listVersions(t, team.owner, (await status(t, c.id)).result_asset_id!);
      return (await t.request({ method: 'GET', url: pathOf(v!.file_url) })).rawPayload;
    };
    const coverMeta = await sharp(await bytesOf(cover)).metadata();
    expect(coverMeta).toMatchObject({ format: 'jpeg', width: 20, height: 20 });
    expect(coverMeta.exif).toBeUndefined();
    expect(await sharp(await bytesOf(small)).metadata()).toMatchObject({ width: 64, height: 48 });
    expect(await sharp(await bytesOf(big)).metadata()).toMatchObject({ width: 96, height: 72 });
  });

  it('target new_version adds the result as the next version of the source, as a version upload does', async () => {
    const own = await serverUpload(t, team.manager, await png(40, 30), team.ws);
    const queued = await start(t, team.manager, 'image', { assetId: own.id, format: 'webp', target: 'new_version' });
    const done = await settle(t, queued.id);
    expect(done).toMatchObject({ status: 'succeeded', result_asset_id: own.id });
    const [v2, v1] = await listVersions(t, team.owner, own.id);
    expect(v2).toMatchObject({ id: done.result_version_id, version: 'v2', is_current: true, mime_type: 'image/webp', file_name: 'photo.webp', created_by: team.manager.user.name });
    expect(v2!.metadata.converted_from).toMatchObject({ asset_id: own.id, version_id: v1!.id, version: 'v1', format: 'webp' });
    expect(v1).toMatchObject({ is_current: false, mime_type: 'image/png' });
    expect(await getAssetJson(t, team.owner, own.id)).toMatchObject({ mime_type: 'image/webp', display_file_name: 'photo.png' });
    const log = await t.request({ method: 'GET', url: `/dam/activity?workspaceId=${team.ws}&asset_id=${own.id}`, token: team.owner.token });
    expect(log.json<{ data: { items: { action: string }[] } }>().data.items[0]).toMatchObject({ action: 'version.upload' });

    // A queued new_version whose asset gets another version meanwhile fails rather than hide it.
    const late = await start(t, team.manager, 'image', { assetId: own.id, format: 'png', target: 'new_version' });
    await serverUploadVersion(t, team.manager, own.id, await png(10, 10));
    const failed = await settle(t, late.id);
    expect(failed).toMatchObject({ status: 'failed', result_version_id: null });
    expect(failed.error).toContain('new current version');
    expect((await listVersions(t, team.owner, own.id)).map((v) => v.version)).toEqual(['v3', 'v2', 'v1']);
  });

  it('converts a video to mp4, webm, gif, mp3 and m4a, and a clip of it, with progress; an audio asset to m4a', async () => {
    const tone = await serverUpload(t, team.manager, { bytes: testTone(2), name: 'tone.mp3', type: 'audio/mpeg' }, team.ws);
    const asked = {
      mp4: await start(t, team.manager, 'video', { assetId: clip.id, format: 'mp4', max_height: 120 }),
      webm: await start(t, team.manager, 'video', { assetId: clip.id, format: 'webm', audio: false }),
      gif: await start(t, team.manager, 'video', { assetId: clip.id, format: 'gif', max_height: 60, duration: 1 }),
      mp3: await start(t, team.manager, 'video', { assetId: clip.id, format: 'mp3' }),
      m4a: await start(t, team.manager, 'video', { assetId: clip.id, format: 'm4a' }),
      clip: await start(t, team.manager, 'video', { assetId: clip.id, format: 'mp4', start: 1, duration: 1, video_bitrate: 300 }),
      tone: await start(t, team.manager, 'video', { assetId: tone.id, format: 'm4a' }),
    };
    expect(asked.gif.params).toEqual({ format: 'gif', max_height: 60, video_bitrate: null, audio: false, start: 0, duration: 1, target: 'new_asset' });
    expect(asked.mp4.params).toMatchObject({ audio: true, start: 0, duration: null, video_bitrate: null });
    await t.app.jobs.drain();
    const results: Record<string, { asset: AssetJson; bytes: Buffer }> = {};
    for (const [name, queued] of Object.entries(asked)) {
      const done = await status(t, queued.id);
      expect(done, `${name}: ${done.error}`).toMatchObject({ status: 'succeeded', progress: 100 });
      const asset = await getAssetJson(t, team.owner, done.result_asset_id!);
      const [v1] = await listVersions(t, team.owner, asset.id);
      results[name] = { asset, bytes: (await t.request({ method: 'GET', url: pathOf(v1!.file_url) })).rawPayload };
    }
    const streams = (name: string) => probe(results[name]!.bytes).streams.map((s) => `${s.codec_type}:${s.codec_name}`);
    expect(results.mp4!.asset).toMatchObject({ mime_type: 'video/mp4', file_type: 'video', file_name: 'clip.mp4' });
    expect(streams('mp4')).toEqual(['video:h264', 'audio:aac']);
    expect(probe(results.mp4!.bytes).streams[0]).toMatchObject({ height: 120, width: 160, pix_fmt: 'yuv420p' });
    expect(results.webm!.asset).toMatchObject({ mime_type: 'video/webm', file_name: 'clip.webm' });
    expect(streams('webm')).toEqual(['video:vp9']);
    expect(results.gif!.asset).toMatchObject({ mime_type: 'image/gif', file_type: 'image', height: 60, width: 80 });
    expect(streams('mp3')).toEqual(['audio:mp3']);
    expect(results.mp3!.asset).toMatchObject({ mime_type: 'audio/mpeg', file_type: 'audio' });
    expect(streams('m4a')).toEqual(['audio:aac']);
    expect(results.m4a!.asset).toMatchObject({ file_type: 'audio', file_name: 'clip.m4a' });
    expect(results.tone!.asset).toMatchObject({ file_type: 'audio', file_name: 'tone.m4a' });
    // The clip: one second, from the second second.
    expect(Number(probe(results.clip!.bytes).format.duration)).toBeCloseTo(1, 0);
    // mp4 is +faststart: the index comes before the media data.
    const bytes = results.mp4!.bytes;
    expect(bytes.indexOf('moov')).toBeLessThan(bytes.indexOf('mdat'));
  });

  it('answers the same conversion for the same version and parameters (200), also when asked at once; a new one after a failure or once the result is gone', async () => {
    const payload = { assetId: photo.id, format: 'webp', width: 16 };
    const first = await start(t, team.manager, 'image', payload);
    // The defaults filled in, the same parameters: the same conversion.
    const again = await start(t, team.owner, 'image', { ...payload, fit: 'inside', quality: 80, target: 'new_asset' }, 200);
    expect(again.id).toBe(first.id);
    const burst = await Promise.all(Array.from({ length: 5 }, () => post(t, team.manager, 'image', { ...payload, width: 17 })));
    expect(burst.map((r) => r.statusCode).sort()).toEqual([200, 200, 200, 200, 202]);
    expect(new Set(burst.map((r) => r.json<{ data: Conversion }>().data.id)).size).toBe(1);

    const done = await settle(t, first.id);
    expect(done.status).toBe('succeeded');
    expect((await start(t, team.manager, 'image', payload, 200)).id).toBe(first.id);
    // Result deleted (to the trash): the same request converts again.
    expect((await t.request({ method: 'DELETE', url: `/dam/assets/${done.result_asset_id}`, token: team.manager.token })).statusCode).toBe(200);
    const fresh = await start(t, team.manager, 'image', payload);
    expect(fresh.id).not.toBe(first.id);
    // Canceled: asked again, it is a new one.
    const canceled = await cancel(t, team.manager, fresh.id);
    expect(canceled.json<{ data: Conversion }>().data.status).toBe('canceled');
    expect((await start(t, team.manager, 'image', payload)).id).not.toBe(fresh.id);
    await t.app.jobs.drain();
  });

  it('lets managers and admins convert and cancel, viewers read and list, and hides every conversion from other workspaces', async () => {
    expectError(await post(t, team.viewer, 'image', { assetId: photo.id, format: 'png' }), 403, 'FORBIDDEN');
    expectError(await post(t, team.outsider, 'image', { assetId: photo.id, format: 'png' }), 404, 'NOT_FOUND');
    expectError(await post(t, team.outsider, 'video', { assetId: clip.id, format: 'mp4' }), 404, 'NOT_FOUND');
    expect((await post(t, undefined, 'image', { assetId: photo.id, format: 'png' })).statusCode).toBe(401);
    const queued = await start(t, team.owner, 'image', { assetId: photo.id, format: 'png', width: 8 });
    expect((await status(t, queued.id, team.viewer)).id).toBe(queued.id);
    expectError(await t.request({ method: 'GET', url: `/convert/status/${queued.id}`, token: team.outsider.token }), 404, 'NOT_FOUND');
    expectError(await t.request({ method: 'GET', url: '/convert/status/999999', token: team.owner.token }), 404, 'NOT_FOUND');
    expectError(await cancel(t, team.viewer, queued.id), 403, 'FORBIDDEN');
    expectError(await cancel(t, team.outsider, queued.id), 404, 'NOT_FOUND');

    const list = await t.request({ method: 'GET', url: `/convert/jobs?workspaceId=${team.ws}&asset_id=${photo.id}&limit=2`, token: team.viewer.token });
    expect(list.statusCode, list.body).toBe(200);
    const page = list.json<{ data: { items: Conversion[]; next_before: number | null } }>().data;
    expect(page.items.map((c) => c.id)).toEqual([queued.id, queued.id - 1].filter((id) => id > 0).slice(0, 2));
    expect(page.items.every((c) => c.asset_id === photo.id)).toBe(true);
    expect(page.next_before).toBe(page.items[1]!.id);
    const queuedOnly = await t.request({ method: 'GET', url: `/convert/jobs?workspaceId=${team.ws}&status=queued`, token: team.viewer.token });
    expect(queuedOnly.json<{ data: { items: Conversion[] } }>().data.items.map((c) => c.id)).toEqual([queued.id]);
    expectError(await t.request({ method: 'GET', url: `/convert/jobs?workspaceId=${team.ws}`, token: team.outsider.token }), 404, 'NOT_FOUND');
    // Another workspace's asset cannot be reached by id.
    const theirs = await serverUpload(t, team.outsider, await png());
    expectError(await post(t, team.manager, 'image', { assetId: theirs.id, format: 'png' }), 404, 'NOT_FOUND');
    await t.app.jobs.drain();
  });

  it('refuses bad parameters with 400 naming them, and formats the source cannot give with 422', async () => {
    const tone = await serverUpload(t, team.manager, { bytes: testTone(1), name: 'tone.mp3', type: 'audio/mpeg' }, team.ws);
    const doc = await serverUpload(t, team.manager, { bytes: Buffer.from('hello'), name: 'notes.txt', type: 'text/plain' }, team.ws);
    const svg = await serverUpload(t, team.manager, { bytes: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>'), name: 'x.svg', type: 'image/svg+xml' }, team.ws);
    const huge = await serverUpload(t, team.manager, await png(200, 100), team.ws);
    const bad: [kind: 'image' | 'video', body: Record<string, unknown>, field: string][] = [
      ['image', { assetId: photo.id, format: 'bmp' }, 'format'],
      ['image', { assetId: photo.id }, 'format'],
      ['image', { assetId: photo.id, format: 'png', width: 0 }, 'width'],
      ['image', { assetId: photo.id, format: 'png', width: 20000 }, 'width'],
      ['image', { assetId: photo.id, format: 'png', quality: 80 }, 'quality'],
      ['image', { assetId: photo.id, format: 'jpeg', quality: 101 }, 'quality'],
      ['image', { assetId: photo.id, format: 'jpeg', fit: 'stretch' }, 'fit'],
      ['image', { assetId: photo.id, format: 'jpeg', target: 'elsewhere' }, 'target'],
      ['image', { assetId: photo.id, format: 'jpeg', width: '10' }, 'width'],
      ['image', { assetId: photo.id, format: 'jpeg', colour: 'red' }, 'colour'],
      ['image', { assetId: photo.id, format: 'jpeg', width: 200, height: 100, enlarge: true }, 'width'],
      ['video', { assetId: clip.id, format: 'mp3', audio: false }, 'audio'],
      ['video', { assetId: clip.id, format: 'mp3', max_height: 240 }, 'max_height'],
      ['video', { assetId: clip.id, format: 'gif', duration: 60 }, 'duration'],
      ['video', { assetId: clip.id, format: 'gif', audio: true }, 'audio'],
      ['video', { assetId: clip.id, format: 'mp4', start: -1 }, 'start'],
      ['video', { assetId: clip.id, format: 'mp4', duration: 0 }, 'duration'],
      ['video', { assetId: clip.id, format: 'mp4', video_bitrate: 10 }, 'video_bitrate'],
    ];
    for (const [kind, body, field] of bad) {
      const res = await post(t, team.manager, kind, body);
      expect(res.statusCode, `${JSON.stringify(body)}: ${res.body}`).toBe(400);
      expect(res.json<{ error: string }>().error, JSON.stringify(body)).toContain(field);
    }
    const unsupported: [kind: 'image' | 'video', body: Record<string, unknown>][] = [
      ['image', { assetId: clip.id, format: 'webp' }],
      ['video', { assetId: photo.id, format: 'mp4' }],
      ['video', { assetId: tone.id, format: 'mp4' }],
      ['video', { assetId: doc.id, format: 'mp3' }],
      ['image', { assetId: doc.id, format: 'png' }],
      ['image', { assetId: svg.id, format: 'png' }],
      ['image', { assetId: huge.id, format: 'png' }],
    ];
    for (const [kind, body] of unsupported) expectError(await post(t, team.manager, kind, body), 422, 'CONVERSION_UNSUPPORTED');
    expect((await t.request({ method: 'GET', url: `/convert/jobs?workspaceId=${team.ws}&asset_id=${tone.id}`, token: team.owner.token })).json<{ data: { items: unknown[] } }>().data.items).toEqual([]);
  });

  it('fails a conversion of a file the tool cannot decode with a readable error, and stores nothing', async () => {
    const brokenImage = await serverUpload(t, team.manager, { bytes: randomBytes(3000), name: 'broken.png', type: 'image/png' }, team.ws);
    const brokenVideo = await serverUpload(t, team.manager, { bytes: undecodableMedia(3000), name: 'broken.mp4', type: 'video/mp4' }, team.ws);
    const silent = await serverUpload(t, team.manager, { bytes: testClip({ seconds: 1, sound: false }), name: 'silent.mp4', type: 'video/mp4' }, team.ws);
    await t.app.jobs.drain();
    const before = await assetCount(t, team.ws);
    const image = await start(t, team.manager, 'image', { assetId: brokenImage.id, format: 'webp' });
    const video = await start(t, team.manager, 'video', { assetId: brokenVideo.id, format: 'mp4' });
    const mute = await start(t, team.manager, 'video', { assetId: silent.id, format: 'mp3' });
    await t.app.jobs.drain();
    const failedImage = await status(t, image.id);
    expect(failedImage).toMatchObject({ status: 'failed', result_asset_id: null });
    expect(failedImage.error).toMatch(/^The image could not be read/);
    const failedVideo = await status(t, video.id);
    expect(failedVideo.status).toBe('failed');
    expect(failedVideo.error).toBe('This file is not a playable video.');
    expect((await status(t, mute.id)).error).toBe('The source has no sound to write as mp3');
    expect(await assetCount(t, team.ws)).toBe(before);
    // Failed once for good: not retried.
    const jobs = await t.database.db.selectFrom('jobs').select(['status', 'attempts']).where('kind', '=', 'asset.convert').where('payload', '=', JSON.stringify({ conversionId: image.id })).execute();
    expect(jobs).toEqual([{ status: 'failed', attempts: 1 }]);
  });

  it('cancels a queued conversion: it never runs; a finished one is 409', async () => {
    const queued = await start(t, team.manager, 'image', { assetId: photo.id, format: 'gif', width: 10 });
    const res = await cancel(t, team.manager, queued.id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<{ data: Conversion }>().data).toMatchObject({ status: 'canceled', result_asset_id: null });
    expect((await cancel(t, team.manager, queued.id)).statusCode).toBe(200);
    const before = await assetCount(t, team.ws);
    await t.app.jobs.drain();
    expect(await status(t, queued.id)).toMatchObject({ status: 'canceled' });
    expect(await assetCount(t, team.ws)).toBe(before);
    const done = await settle(t, (await start(t, team.manager, 'image', { assetId: photo.id, format: 'gif', width: 11 })).id);
    expectError(await cancel(t, team.manager, done.id), 409, 'CONFLICT');
  });

  it('retries an attempt that died (ffmpeg killed) with back-off, queued meanwhile with the attempt\'s error', async () => {
    const app = await startTestApp({ dialect, config: appConfig({ ffmpegPath: wrappedFfmpeg('dieOnce') }) });
    try {
      const who = await makeTeam(app);
      const video = await serverUpload(app, who.manager, { bytes: clipBytes, name: 'clip.mp4', type: 'video/mp4' }, who.ws);
      const queued = await start(app, who.manager, 'video', { assetId: video.id, format: 'mp4', audio: false });
      await app.app.jobs.drain();
      const retrying = await status(app, queued.id, who.owner);
      expect(retrying.status).toBe('queued');
      expect(retrying.error).toMatch(/^ffmpeg died/);
      app.advanceClock(60);
      await app.app.jobs.drain();
      expect(await status(app, queued.id, who.owner)).toMatchObject({ status: 'succeeded', error: null });
    } finally {
      await app.close();
    }
  });
});

/** Apps that share one database (and data directory): a restart, and a second process. */
describeMedia.each(dialects)('conversions across processes (%s)', (dialect: DialectName) => {
  let database: DatabaseHandle;
  const apps: Awaited<ReturnType<typeof buildApp>>[] = [];
  let config: AppConfig;

  beforeAll(async () => {
    database = await openTestDatabase(dialect);
    config = testConfig({ convert: { ...testConfig().convert }, ffmpegPath: wrappedFfmpeg('realtime') });
  });
  async function stopAll() {
    for (const app of apps.splice(0)) await app.close();
  }
  afterAll(async () => {
    await stopAll();
    await database?.close();
  });

  async function start(concurrency: number) {
    const app = await buildApp({ ...config, jobs: { ...config.jobs, concurrency, pollIntervalMs: 50 } }, { database, logger: false });
    apps.push(app);
    return app;
  }
  const inject = (app: Awaited<ReturnType<typeof buildApp>>, token: string, method: 'GET' | 'POST', url: string, payload?: object) =>
    app.inject({ method, url, payload, headers: { authorization: `Bearer ${token}` } });
  const statusOf = async (app: Awaited<ReturnType<typeof buildApp>>, token: string, id: number) =>
    (await inject(app, token, 'GET', `/convert/status/${id}`)).json<{ data: Conversion }>().data;

  it('a conversion queued by an API-only process survives its restart and runs in the next one', async () => {
    const api = await start(0);
    const reg = await api.inject({ method: 'POST', url: '/auth/register', payload: { email: `a-${dialect}@example.test`, password: 'a long password 1', name: 'A' } });
    const { token, workspaces } = reg.json<{ token: string; workspaces: { id: number }[] }>();
    const t = asTestApp(api, token);
    const image = await serverUpload(t, { token, workspaceId: workspaces[0]!.id } as Account, await png());
    const queued = (await inject(api, token, 'POST', '/convert/image', { assetId: image.id, format: 'webp' })).json<{ data: Conversion }>().data;
    // DAM_JOB_CONCURRENCY=0: queued, never run here.
    await new Promise((r) => setTimeout(r, 300));
    expect((await statusOf(api, token, queued.id)).status).toBe('queued');
    await api.close();
    apps.splice(apps.indexOf(api), 1);

    const worker = await start(1);
    await worker.jobs.drain();
    expect(await statusOf(worker, token, queued.id)).toMatchObject({ status: 'succeeded', progress: 100 });
    await stopAll();
  });

  it('cancel in one process kills the ffmpeg another process runs, and removes its files; progress is reported meanwhile', async () => {
    const api = await start(0);
    const worker = await start(1);
    const workDirs = path.join(config.dataDir, 'tmp', 'convert');
    const reg = await api.inject({ method: 'POST', url: '/auth/register', payload: { email: `b-${dialect}@example.test`, password: 'a long password 1', name: 'B' } });
    const { token, workspaces } = reg.json<{ token: string; workspaces: { id: number }[] }>();
    const t = asTestApp(api, token);
    const video = await serverUpload(t, { token, workspaceId: workspaces[0]!.id } as Account, { bytes: testClip({ seconds: 8, sound: false }), name: 'long.mp4', type: 'video/mp4' });
    await worker.jobs.drain();
    const assetsBefore = await database.db.selectFrom('assets').select('id').execute();
    // The wrapped ffmpeg reads at the clip's own speed: 8 s unless stopped.
    const queued = (await inject(api, token, 'POST', '/convert/video', { assetId: video.id, format: 'webm' })).json<{ data: Conversion }>().data;
    let seen: Conversion | undefined;
    for (let i = 0; i < 100; i += 1) {
      seen = await statusOf(api, token, queued.id);
      if (seen.status === 'running' && seen.progress > 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(seen).toMatchObject({ status: 'running' });
    expect(seen!.progress).toBeGreaterThan(0);
    expect(processesMentioning(workDirs).length).toBeGreaterThan(0);
    const canceled = await inject(api, token, 'POST', `/convert/status/${queued.id}/cancel`);
    expect(canceled.statusCode, canceled.body).toBe(200);
    const stoppedAt = Date.now();
    // The worker reads the row every second while ffmpeg runs.
    while (processesMentioning(workDirs).length > 0) {
      expect(Date.now() - stoppedAt).toBeLessThan(3000);
      await new Promise((r) => setTimeout(r, 50));
    }
    await worker.jobs.drain();
    expect(readdirSync(workDirs)).toEqual([]);
    expect(await statusOf(api, token, queued.id)).toMatchObject({ status: 'canceled', result_asset_id: null });
    expect(await database.db.selectFrom('assets').select('id').execute()).toEqual(assetsBefore);
    const job = await database.db.selectFrom('jobs').select('status').where('kind', '=', 'asset.convert').where('payload', '=', JSON.stringify({ conversionId: queued.id })).executeTakeFirstOrThrow();
    expect(job.status).toBe('succeeded');

    // Canceled through the process that runs it: its AbortSignal kills ffmpeg at once.
    const second = (await inject(worker, token, 'POST', '/convert/video', { assetId: video.id, format: 'mp4' })).json<{ data: Conversion }>().data;
    while ((await statusOf(worker, token, second.id)).status !== 'running' || processesMentioning(workDirs).length === 0) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await inject(worker, token, 'POST', `/convert/status/${second.id}/cancel`)).statusCode).toBe(200);
    await worker.jobs.drain();
    expect(processesMentioning(workDirs)).toEqual([]);
    expect(readdirSync(workDirs)).toEqual([]);
    expect(await statusOf(api, token, second.id)).toMatchObject({ status: 'canceled', result_asset_id: null });
    await stopAll();
  });
});

/** Reading the source from the store and writing the result back, on S3 too. */
describeMedia('conversions on S3', () => {
  let s3: S3Server;
  let t: Awaited<ReturnType<typeof startStorageApp>>;
  beforeAll(async () => {
    s3 = await startS3Server();
    t = await startStorageApp('s3', s3, { config: appConfig() });
  });
  afterAll(async () => {
    await t?.close();
    await s3?.close();
  });

  it('converts an image to a new asset and a video to a new version', async () => {
    const team = await makeTeam(t);
    const image = await serverUpload(t, team.manager, await png(), team.ws);
    const video = await serverUpload(t, team.manager, { bytes: testClip({ seconds: 1 }), name: 'clip.mkv', type: 'video/x-matroska' }, team.ws);
    const a = (await t.request({ method: 'POST', url: '/convert/image', token: team.manager.token, payload: { assetId: image.id, format: 'jpeg' } })).json<{ data: Conversion }>().data;
    const b = (await t.request({ method: 'POST', url: '/convert/video', token: team.manager.token, payload: { assetId: video.id, format: 'mp4', target: 'new_version' } })).json<{ data: Conversion }>().data;
    await t.app.jobs.drain();
    const get = async (id: number) => (await t.request({ method: 'GET', url: `/convert/status/${id}`, token: team.owner.token })).json<{ data: Conversion }>().data;
    const doneA = await get(a.id);
    expect(doneA.status).toBe('succeeded');
    const [v] = await listVersions(t, team.owner, doneA.result_asset_id!);
    expect((await sharp((await t.request({ method: 'GET', url: pathOf(v!.file_url) })).rawPayload).metadata()).format).toBe('jpeg');
    const doneB = await get(b.id);
    expect(doneB).toMatchObject({ status: 'succeeded', result_asset_id: video.id });
    const [v2] = await listVersions(t, team.owner, video.id);
    expect(v2).toMatchObject({ version: 'v2', mime_type: 'video/mp4', file_name: 'clip.mp4' });
    expect(probe((await t.request({ method: 'GET', url: pathOf(v2!.file_url) })).rawPayload).streams.map((s) => s.codec_name)).toEqual(['h264', 'aac']);
  });
});

/** Enough of a TestApp for the upload helpers, on an app built here. */
function asTestApp(app: Awaited<ReturnType<typeof buildApp>>, token: string): TestApp {
  return { request: ({ token: _ignored, headers, ...rest }) => app.inject({ ...rest, headers: { ...headers, authorization: `Bearer ${token}` } }) } as TestApp;
}

async function serverUploadInto(t: App, who: Account, file: FilePart, workspaceId: number, folderId: number): Promise<AssetJson> {
  const { multipart } = await import('./helpers/versions.js');
  const body = await multipart({ workspaceId: String(workspaceId), folder_id: String(folderId), file });
  const res = await t.request({ method: 'POST', url: '/api/upload-asset', token: who.token, ...body });
  if (res.statusCode !== 201) throw new Error(`upload-asset answered ${res.statusCode} ${res.body}`);
  return res.json<{ data: AssetJson }>().data;
}

async function serverUploadVersion(t: App, who: Account, assetId: number, file: FilePart): Promise<void> {
  const { uploadVersion } = await import('./helpers/versions.js');
  await uploadVersion(t, who, assetId, file);
}
