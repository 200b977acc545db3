import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { startTestApp, testConfig, type TestApp } from './helpers/app.js';
import { expectError, makeTeam, type Team } from './helpers/catalog-factories.js';
import { dialects, openDatabaseAt } from './helpers/databases.js';
import type { Account } from './helpers/factories.js';
import { haveFfmpeg, testTone, undecodableMedia } from './helpers/media.js';
import { searchAssets, searchRequest } from './helpers/search-fixtures.js';
import { makeJpeg } from './helpers/uploads.js';
import { getAssetJson, listVersions, pathOf, serverUpload, uploadVersion, type FilePart } from './helpers/versions.js';

/**
 * Unreadable files (issue #27, section 3): the preview job decode-checks images and probes video, audio and PDFs; a
 * file that cannot be read is kept, and its asset says `unreadable` with a reason in words, never a tool's own
 * message or a server path (those go to the log). A filter finds them; a readable new version clears the flag.
 */

const TRUNCATED = 'The image data ends early; the file looks truncated.';
const NOT_VIDEO = 'This file is not a playable video.';
const NOT_AUDIO = 'This file is not a playable audio file.';
/** What a tool says or a server path looks like: none of it may reach an answer. */
const LEAKS = /\/tmp\/|dam-data-|ffprobe|ffmpeg|pdftoppm|vips|libpng|libjpeg|premature end|Invalid data found|moov atom/i;

interface UnreadableFields {
  id: number | string;
  unreadable: boolean;
  unreadable_reason: string | null;
}

describe.each(dialects)('unreadable assets (%s)', (dialect) => {
  let t: TestApp;
  let team: Team;
  let owner: Account;
  let photo: Buffer;
  const logLines: string[] = [];

  beforeAll(async () => {
    t = await startTestApp({
      dialect,
      config: { jobs: { ...testConfig().jobs, concurrency: 0 }, logLevel: 'warn' },
      logStream: { write: (line) => void logLines.push(line) },
    });
    team = await makeTeam(t);
    owner = team.owner;
    photo = await makeJpeg(400, 300);
  });
  afterAll(async () => {
    await t?.close();
  });

  const jpegPart = (bytes: Buffer, name = 'photo.jpg'): FilePart => ({ bytes, name, type: 'image/jpeg' });

  async function unreadableIds(who: Account, filter: string): Promise<number[]> {
    const result = await searchAssets(t, who, '*', filter, { commonSearchParams: { per_page: 250 } });
    return result.hits.map((h) => Number(h.document.id)).sort((a, b) => a - b);
  }

  /** Every answer a user sees about the asset: none names a path or quotes a tool. */
  async function expectNoLeak(assetId: number): Promise<void> {
    const versions = await listVersions(t, owner, assetId);
    const answers = [
      JSON.stringify(await getAssetJson(t, owner, assetId)),
      JSON.stringify(versions),
      (await t.request({ method: 'GET', url: `/dam/versions/${versions[0]!.id}/preview`, token: owner.token })).body,
      (await t.request({ method: 'GET', url: `/dam/activity?workspaceId=${team.ws}`, token: owner.token })).body,
      (await searchRequest(t, owner, { request: { q: '*', collections: ['digital_assets'] }, filterQuery: { digital_assets: `id:=${assetId}` } })).body,
    ];
    for (const body of answers) expect(body).not.toMatch(LEAKS);
    expect(answers.join('\n')).not.toContain(t.config.dataDir);
  }

  it('marks a truncated JPEG unreadable with a reason in words, keeps the file and its download, and logs what the decoder said', async () => {
    const cut = photo.subarray(0, Math.floor(photo.length / 2));
    const broken = await serverUpload(t, owner, jpegPart(cut, 'cut.jpg'));
    // Not checked before its preview job runs.
    expect(broken).toMatchObject({ unreadable: false, unreadable_reason: null });
    await t.app.jobs.drain();

    expect(await getAssetJson(t, owner, broken.id)).toMatchObject({ unreadable: true, unreadable_reason: TRUNCATED });
    const [v1] = await listVersions(t, owner, broken.id);
    expect(v1).toMatchObject({ preview_status: 'unavailable' });
    const preview = await t.request({ method: 'GET', url: `/dam/versions/${v1!.id}/preview`, token: owner.token });
    expect(preview.statusCode).toBe(404);
    expect(preview.json<{ error: string }>().error).toContain(TRUNCATED);
    // The file is kept as uploaded.
    const file = await t.request({ method: 'GET', url: pathOf(v1!.file_url) });
    expect(file.statusCode).toBe(200);
    expect(Buffer.compare(file.rawPayload, cut)).toBe(0);
    await expectNoLeak(broken.id);
    // The decoder's own words are in the server's log.
    expect(logLines.join('\n')).toMatch(/premature end of JPEG/i);
  });

  it('leaves a valid image readable', async () => {
    const fine = await serverUpload(t, owner, jpegPart(photo));
    await t.app.jobs.drain();
    expect(await getAssetJson(t, owner, fine.id)).toMatchObject({ unreadable: false, unreadable_reason: null });
    expect((await listVersions(t, owner, fine.id))[0]).toMatchObject({ preview_status: 'ready' });
  });

  it.skipIf(!haveFfmpeg && process.env.CI !== 'true')('marks bytes named .mp4 or .mp3 that no tool can play; a real sound file stays readable', async () => {
    const video = await serverUpload(t, owner, { bytes: undecodableMedia(5000), name: 'clip.mp4', type: 'video/mp4' });
    const sound = await serverUpload(t, owner, { bytes: undecodableMedia(4000), name: 'song.mp3', type: 'audio/mpeg' });
    const tone = await serverUpload(t, owner, { bytes: testTone(1), name: 'tone.mp3', type: 'audio/mpeg' });
    await t.app.jobs.drain();

    expect(await getAssetJson(t, owner, video.id)).toMatchObject({ unreadable: true, unreadable_reason: NOT_VIDEO });
    const [v1] = await listVersions(t, owner, video.id);
    // The video page's note: the same words, not ffprobe's complaint about a work directory.
    expect(v1!.video_preview).toMatchObject({ status: 'unavailable', url: null, note: NOT_VIDEO });
    await expectNoLeak(video.id);
    expect(await getAssetJson(t, owner, sound.id)).toMatchObject({ unreadable: true, unreadable_reason: NOT_AUDIO });
    expect(await getAssetJson(t, owner, tone.id)).toMatchObject({ unreadable: false, unreadable_reason: null });

    // A conversion of the broken video fails in the same words.
    const started = await t.request({ method: 'POST', url: '/convert/video', token: owner.token, payload: { assetId: video.id, format: 'mp4' } });
    expect(started.statusCode, started.body).toBe(202);
    await t.app.jobs.drain();
    const status = await t.request({ method: 'GET', url: `/convert/status/${started.json<{ data: { id: number } }>().data.id}`, token: owner.token });
    expect(status.json<{ data: { status: string; error: string } }>().data).toMatchObject({ status: 'failed', error: NOT_VIDEO });
  });

  it('finds unreadable assets with unreadable:true, the others with unreadable:false; search documents carry both fields', async () => {
    const broken = await serverUpload(t, owner, jpegPart(photo.subarray(0, 2000), 'stub.jpg'));
    const fine = await serverUpload(t, owner, jpegPart(photo, 'fine.jpg'));
    await t.app.jobs.drain();

    const marked = await unreadableIds(owner, 'unreadable:true');
    expect(marked).toContain(broken.id);
    expect(marked).not.toContain(fine.id);
    expect(await unreadableIds(owner, 'unreadable:=true')).toEqual(marked);
    const others = await unreadableIds(owner, 'unreadable:false');
    expect(others).toContain(fine.id);
    expect(others).not.toContain(broken.id);
    expect(await unreadableIds(owner, 'unreadable:!=true')).toEqual(others);
    expect(await unreadableIds(owner, `unreadable:true && id:=${broken.id}`)).toEqual([broken.id]);

    const result = await searchAssets(t, owner, '*', `id:=[${broken.id}, ${fine.id}]`);
    const docs = new Map(result.hits.map((h) => [Number(h.document.id), h.document as unknown as UnreadableFields]));
    expect(docs.get(broken.id)).toMatchObject({ unreadable: true, unreadable_reason: 'The image data ends early; the file looks truncated.' });
    expect(docs.get(fine.id)).toMatchObject({ unreadable: false, unreadable_reason: null });

    for (const filter of ['unreadable:maybe', 'unreadable:=[true, false]', 'unreadable:>1']) {
      const res = await searchRequest(t, owner, { request: { q: '*', collections: ['digital_assets'] }, filterQuery: { digital_assets: filter } });
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.json<{ error: string }>().error).toContain('unreadable');
    }
  });

  it('clears the flag when a readable version is uploaded, and sets it again for an unreadable one', async () => {
    const asset = await serverUpload(t, owner, jpegPart(photo.subarray(0, 3000), 'draft.jpg'));
    await t.app.jobs.drain();
    expect(await getAssetJson(t, owner, asset.id)).toMatchObject({ unreadable: true });

    await uploadVersion(t, owner, asset.id, jpegPart(photo, 'final.jpg'));
    // At once: the new current file has not been found unreadable.
    expect(await getAssetJson(t, owner, asset.id)).toMatchObject({ unreadable: false, unreadable_reason: null });
    await t.app.jobs.drain();
    expect(await getAssetJson(t, owner, asset.id)).toMatchObject({ unreadable: false, unreadable_reason: null });
    expect(await unreadableIds(owner, 'unreadable:true')).not.toContain(asset.id);

    await uploadVersion(t, owner, asset.id, jpegPart(photo.subarray(0, 3000), 'again.jpg'));
    await t.app.jobs.drain();
    expect(await getAssetJson(t, owner, asset.id)).toMatchObject({ unreadable: true, unreadable_reason: TRUNCATED });
  });

  it('does not reveal a private unreadable asset to a viewer through the filter', async () => {
    const secret = await serverUpload(t, owner, jpegPart(photo.subarray(0, 2500), 'secret.jpg'));
    const shared = await serverUpload(t, owner, jpegPart(photo.subarray(0, 2500), 'shared.jpg'));
    const patched = await t.request({ method: 'PATCH', url: `/dam/assets/${secret.id}`, token: owner.token, payload: { visibility: 1 } });
    expect(patched.statusCode, patched.body).toBe(200);
    await t.app.jobs.drain();

    const seenByViewer = await unreadableIds(team.viewer, 'unreadable:true');
    expect(seenByViewer).toContain(shared.id);
    expect(seenByViewer).not.toContain(secret.id);
    expect(await unreadableIds(team.viewer, 'unreadable:false')).not.toContain(secret.id);
    expect(await unreadableIds(team.manager, 'unreadable:true')).toContain(secret.id);
  });
});

/** Upgrading (migration 0026): files whose preview a tool could not make are checked again; the tools' old notes go. */
describe.each(dialects)('migration 0026 on %s', (dialect) => {
  const open: DatabaseHandle[] = [];
  afterEach(async () => {
    for (const handle of open.splice(0)) await handle.close();
  });

  it('queues the preview jobs of images, videos, audio and PDFs without a preview, and clears their notes; other files stay', async () => {
    const handle = await openDatabaseAt(dialect, '0025_asset_uploader');
    open.push(handle);
    const db = handle.db;
    await sql`INSERT INTO workspaces (name, created_at, modified_at) VALUES ('old', 1, 1)`.execute(db);
    const rows: [string, string, string | null, string | null][] = [
      ['cut.jpg', 'image/jpeg', 'The image could not be decoded: VipsJpeg: premature end of JPEG file', null],
      ['clip.mp4', 'video/mp4', 'ffmpeg found no frame to use as a poster: /tmp/dam-renditions-1/source: Invalid data', 'ffprobe could not read the file: /tmp/x/source'],
      ['bundle.zip', 'application/zip', 'No preview is made for application/zip', null],
    ];
    for (const [i, [name, mime, note, videoNote]] of rows.entries()) {
      await sql`INSERT INTO assets (workspace_id, display_file_name, name_key, file_name, file_type, mime_type, file_size, tags, visibility, metadata,
                  created_by, created_at, modified_at, status, storage_key)
                VALUES (1, ${name}, ${name}, ${name}, 'other', ${mime}, 10, '[]', 0, '{}', 'U', 1, 1, 'ready', ${`k${i}`})`.execute(db);
      await sql`INSERT INTO asset_versions (asset_id, workspace_id, number, status, is_current, file_name, display_file_name, mime_type, file_size,
                  metadata, storage_key, preview_status, preview_note, created_by, created_at, video_preview_status, video_preview_note)
                VALUES (${i + 1}, 1, 1, 'ready', 1, ${name}, ${name}, ${mime}, 10, '{}', ${`k${i}`}, 'unavailable', ${note}, 'U', 1,
                  ${videoNote === null ? null : 'unavailable'}, ${videoNote})`.execute(db);
    }

    await migrateToLatest(handle);
    const jobs = await sql<{ kind: string; payload: string }>`SELECT kind, payload FROM jobs WHERE kind IN ('version.renditions', 'version.video_preview') ORDER BY kind, payload`.execute(db);
    expect(jobs.rows).toEqual([
      { kind: 'version.renditions', payload: '{"versionId":1}' },
      { kind: 'version.renditions', payload: '{"versionId":2}' },
      { kind: 'version.video_preview', payload: '{"versionId":2}' },
    ]);
    const versions = await sql<{ preview_status: string; preview_note: string | null; video_preview_note: string | null }>`
      SELECT preview_status, preview_note, video_preview_note FROM asset_versions ORDER BY id`.execute(db);
    expect(versions.rows).toEqual([
      { preview_status: 'pending', preview_note: null, video_preview_note: null },
      { preview_status: 'pending', preview_note: null, video_preview_note: null },
      { preview_status: 'unavailable', preview_note: 'No preview is made for application/zip', video_preview_note: null },
    ]);
    const flags = await sql<{ unreadable_reason: string | null }>`SELECT unreadable_reason FROM assets`.execute(db);
    expect(flags.rows.map((r) => r.unreadable_reason)).toEqual([null, null, null]);
  });
});
