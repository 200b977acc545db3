import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../src/db/migrator.js';
import { locateFfmpeg } from '../src/media/ffmpeg.js';
import { startTestApp } from './helpers/app.js';
import { expectError, makeTeam, type Team } from './helpers/catalog-factories.js';
import { dialects, openDatabaseAt } from './helpers/databases.js';
import { minimalPdf } from './helpers/documents.js';
import { ExifFiles, plainPng, testVideo, twoColourJpeg } from './helpers/exif-files.js';
import { registerUser, type Account } from './helpers/factories.js';
import { startStorageApp, uploadFile, type StorageTestApp } from './helpers/uploads.js';
import { listVersions, multipart, serverUpload, uploadVersion, type AssetJson, type FilePart } from './helpers/versions.js';

/** Embedded metadata (issue #12): files made here with ExifTool, uploaded and read back through the API, on every dialect. */

interface EmbeddedAsset extends AssetJson {
  tags: string[];
  taken_at: number | null;
  camera_make: string | null;
  camera_model: string | null;
  lens: string | null;
  iso: number | null;
  exposure: string | null;
  aperture: number | null;
  focal_length: number | null;
  gps_lat: number | null;
  gps_lon: number | null;
  duration: number | null;
  color_space: string | null;
  caption: string | null;
  creator: string | null;
  copyright: string | null;
  usage_terms: string | null;
  keywords: string[];
  metadata_edited: string[];
  metadata_version_id: number | null;
  embedded_metadata?: Record<string, unknown>;
}

interface Entry {
  action: string;
  actor: { id: number | null; name: string };
  changes: Record<string, { before: unknown; after: unknown }>;
}

const ffmpegPath = await locateFfmpeg(undefined);
const withFfmpeg = it.skipIf(!ffmpegPath && process.env.CI !== 'true');

const jpeg = (bytes: Buffer, name = 'photo.jpg'): FilePart => ({ bytes, name, type: 'image/jpeg' });
const utc = (iso: string) => Date.parse(iso) / 1000;
// No background worker: a test drains the jobs when it wants them run.
const JOBS = { concurrency: 0, pollIntervalMs: 200, leaseSeconds: 300, maxAttempts: 5, retryBaseSeconds: 10 };

/** A camera's JPEG: stored 600 x 400 (left half red) with EXIF Orientation 6, so shown 400 x 600 with red on top. */
const CAMERA_TAGS = {
  'EXIF:DateTimeOriginal': '2023:07:14 09:30:00',
  'EXIF:OffsetTimeOriginal': '+02:00',
  'EXIF:Make': 'Canon',
  'EXIF:Model': 'Canon EOS R5',
  'EXIF:LensModel': 'RF24-105mm F4 L IS USM',
  'EXIF:ISO': 400,
  'EXIF:ExposureTime': '1/250',
  'EXIF:FNumber': 5.6,
  'EXIF:FocalLength': 35,
  'EXIF:ColorSpace': 'sRGB',
  'EXIF:Orientation#': 6,
  'EXIF:GPSLatitude': 48.8584,
  'EXIF:GPSLatitudeRef': 'N',
  'EXIF:GPSLongitude': 2.2945,
  'EXIF:GPSLongitudeRef': 'W',
  'IPTC:Keywords': ['Paris', 'Eiffel Tower'],
  'IPTC:Caption-Abstract': 'Sunset over the Seine',
  'IPTC:By-line': 'Ann Photographer',
  'IPTC:CopyrightNotice': '(c) 2023 Ann',
  'XMP-xmpRights:UsageTerms': 'Editorial use only',
};

/** A JPEG whose first segment is a broken EXIF block (an IFD pointing nowhere), followed by the rest of `valid`. */
function withBrokenExif(valid: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from('Exif\0\0MM\0\x2a\0\0\0\x08\xff\xff', 'latin1'), Buffer.alloc(230, 0xff)]);
  const header = Buffer.from([0xff, 0xe1, (body.length + 2) >> 8, (body.length + 2) & 0xff]);
  return Buffer.concat([valid.subarray(0, 2), header, body, valid.subarray(2)]);
}

describe.each(dialects)('embedded metadata on %s', (dialect) => {
  let t: StorageTestApp;
  let team: Team;
  let files: ExifFiles;

  beforeAll(async () => {
    files = new ExifFiles();
    // PDFs are counted by ExifTool here: pdftoppm (and its pdfinfo) is configured away.
    t = await startStorageApp('local', undefined, { dialect, config: { jobs: JOBS, pdftoppmPath: '/nonexistent/pdftoppm' } });
    team = await makeTeam(t);
  });
  afterAll(async () => {
    await t.close();
    await files.end();
  });

  async function asset(id: number, who: Account = team.viewer): Promise<EmbeddedAsset> {
    const res = await t.request({ method: 'GET', url: `/dam/assets/${id}`, token: who.token });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ data: EmbeddedAsset }>().data;
  }

  const patch = (id: number, payload: object, who: Account = team.manager) =>
    t.request({ method: 'PATCH', url: `/dam/assets/${id}`, token: who.token, payload });

  async function failedJobs(): Promise<number> {
    const row = await t.database.db.selectFrom('jobs').select((eb) => eb.fn.countAll<number | string>().as('n')).where('status', '=', 'failed').executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async function history(assetId: number): Promise<Entry[]> {
    const res = await t.request({ method: 'GET', url: `/dam/activity?workspaceId=${team.ws}&asset_id=${assetId}`, token: team.owner.token });
    return res.json<{ data: { items: Entry[] } }>().data.items.reverse();
  }

  async function upload(bytes: Buffer, name: string, type: string, fields: Record<string, string> = {}): Promise<EmbeddedAsset> {
    const body = await multipart({ workspaceId: String(team.ws), ...fields, file: { bytes, name, type } });
    const res = await t.request({ method: 'POST', url: '/api/upload-asset', token: team.manager.token, ...body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ data: EmbeddedAsset }>().data;
  }

  it("reads a camera's JPEG: date with its offset, camera, exposure, GPS, IPTC text and keywords; orientation 6 is portrait and upright", async () => {
    const bytes = await files.withTags(await twoColourJpeg(600, 400), 'jpg', CAMERA_TAGS);
    const uploaded = await upload(bytes, 'IMG_0001.jpg', 'image/jpeg');
    // Read by a job: until it ran, nothing is known.
    expect(uploaded).toMatchObject({ taken_at: null, caption: null, keywords: [], metadata_version_id: null });
    await t.app.jobs.drain();

    const a = await asset(uploaded.id);
    const [v1] = await listVersions(t, team.owner, a.id);
    expect(a).toMatchObject({
      taken_at: utc('2023-07-14T07:30:00Z'),
      camera_make: 'Canon',
      camera_model: 'Canon EOS R5',
      lens: 'RF24-105mm F4 L IS USM',
      iso: 400,
      exposure: '1/250',
      aperture: 5.6,
      focal_length: 35,
      color_space: 'sRGB',
      caption: 'Sunset over the Seine',
      creator: 'Ann Photographer',
      copyright: '(c) 2023 Ann',
      usage_terms: 'Editorial use only',
      keywords: ['Paris', 'Eiffel Tower'],
      tags: ['Paris', 'Eiffel Tower'],
      duration: null,
      width: 400,
      height: 600,
      orientation: 'portrait',
      metadata_edited: [],
      metadata_version_id: v1!.id,
    });
    expect(a.gps_lat).toBeCloseTo(48.8584, 6);
    expect(a.gps_lon).toBeCloseTo(-2.2945, 6);
    expect(a.embedded_metadata).toMatchObject({ 'EXIF:Make': 'Canon', 'IPTC:Keywords': ['Paris', 'Eiffel Tower'], 'File:MIMEType': 'image/jpeg' });
    for (const key of ['SourceFile', 'File:FileName', 'File:Directory', 'File:FileSize', 'File:FilePermissions', 'File:FileModifyDate']) {
      expect(a.embedded_metadata).not.toHaveProperty([key]);
    }
    // The user's own metadata stays apart from the file's.
    expect(a.metadata).toEqual({});

    // The thumbnail is upright: red (the stored left half) on top.
    const thumb = await fetch(v1!.thumbnail_url);
    const { data, info } = await sharp(Buffer.from(await thumb.arrayBuffer())).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([171, 256]);
    const pixel = (x: number, y: number) => Array.from(data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3));
    expect(pixel(85, 20)[0]).toBeGreaterThan(200);
    expect(pixel(85, 20)[2]).toBeLessThan(60);
    expect(pixel(85, 235)[2]).toBeGreaterThan(200);

    // Lists carry the fields but not the tag set.
    const list = await t.request({ method: 'GET', url: `/dam/assets?workspaceId=${team.ws}&per_page=250`, token: team.viewer.token });
    const listed = list.json<{ data: { items: EmbeddedAsset[] } }>().data.items.find((i) => i.id === a.id)!;
    expect(listed).toMatchObject({ camera_model: 'Canon EOS R5', keywords: ['Paris', 'Eiffel Tower'] });
    expect(listed).not.toHaveProperty('embedded_metadata');

    // The keywords that became tags were added by the system, and the log says so.
    const entries = await history(a.id);
    expect(entries.map((e) => [e.action, e.actor.name])).toEqual([
      ['asset.upload', expect.any(String)],
      ['asset.update', 'system'],
    ]);
    expect(entries[1]!.changes).toEqual({ tags: { before: [], after: ['Paris', 'Eiffel Tower'] } });
  });

  it('reads XMP from a PNG: description, creators, rights, usage terms, subject and a date with its offset', async () => {
    const bytes = await files.withTags(await plainPng(30, 50), 'png', {
      'XMP-dc:Description': 'Harbour at dawn',
      'XMP-dc:Creator': ['Bo', 'Cy'],
      'XMP-dc:Rights': 'CC BY 4.0',
      'XMP-xmpRights:UsageTerms': 'Attribution required',
      'XMP-dc:Subject': ['harbour', 'Dawn'],
      'XMP-exif:DateTimeOriginal': '2019:04:05 06:07:08-04:00',
    });
    const uploaded = await upload(bytes, 'harbour.png', 'image/png');
    await t.app.jobs.drain();
    expect(await asset(uploaded.id)).toMatchObject({
      caption: 'Harbour at dawn',
      creator: 'Bo; Cy',
      copyright: 'CC BY 4.0',
      usage_terms: 'Attribution required',
      keywords: ['harbour', 'Dawn'],
      tags: ['harbour', 'Dawn'],
      taken_at: utc('2019-04-05T10:07:08Z'),
      camera_make: null,
      gps_lat: null,
      width: 30,
      height: 50,
      orientation: 'portrait',
    });
  });

  it('counts the pages of a PDF from the file when poppler cannot, and reads its XMP', async () => {
    const page = { width: 600, height: 800, band: [200, 30, 30] as [number, number, number] };
    const pdf = await files.withTags(minimalPdf([page, page, page]), 'pdf', { 'XMP-dc:Description': 'Quarterly report', 'XMP-dc:Subject': ['finance'] });
    const uploaded = await upload(pdf, 'report.pdf', 'application/pdf');
    expect(uploaded.page_count).toBeNull();
    await t.app.jobs.drain();
    expect(await asset(uploaded.id)).toMatchObject({ page_count: 3, caption: 'Quarterly report', keywords: ['finance'], duration: null, taken_at: null });
    expect((await listVersions(t, team.owner, uploaded.id))[0]).toMatchObject({ page_count: 3 });
  });

  withFfmpeg("reads a video's duration and its size, which the upload could not measure", async () => {
    const uploaded = await upload(testVideo(ffmpegPath!, 2), 'clip.mp4', 'video/mp4');
    expect(uploaded).toMatchObject({ width: null, height: null, orientation: null });
    await t.app.jobs.drain();
    const a = await asset(uploaded.id);
    expect(a.duration).toBeCloseTo(2, 0);
    expect(a).toMatchObject({ width: 320, height: 240, orientation: 'landscape', page_count: null });
    expect(a.embedded_metadata).toHaveProperty(['QuickTime:Duration']);
  });

  it("merges keywords new since the last read into tags, case-insensitively, and a removed tag stays removed", async () => {
    const v1Bytes = await files.withTags(await twoColourJpeg(64, 48), 'jpg', { 'IPTC:Keywords': ['Paris', 'Tower'] });
    const uploaded = await upload(v1Bytes, 'k.jpg', 'image/jpeg', { tags: 'paris' });
    await t.app.jobs.drain();
    expect(await asset(uploaded.id)).toMatchObject({ tags: ['paris', 'Tower'], keywords: ['Paris', 'Tower'] });

    expect((await patch(uploaded.id, { tags: ['paris'] })).statusCode).toBe(200);
    const v2Bytes = await files.withTags(await twoColourJpeg(64, 48), 'jpg', { 'IPTC:Keywords': ['Paris', 'Tower'], 'XMP-dc:Subject': ['night'] });
    await uploadVersion(t, team.manager, uploaded.id, jpeg(v2Bytes));
    await t.app.jobs.drain();
    expect(await asset(uploaded.id)).toMatchObject({ tags: ['paris', 'night'], keywords: ['Paris', 'Tower', 'night'] });

    // Read again (a retried job, the same file): nothing new, nothing added, nothing logged.
    const before = (await history(uploaded.id)).length;
    await t.app.jobs.drain();
    expect((await history(uploaded.id)).length).toBe(before);
    const system = (await history(uploaded.id)).filter((e) => e.actor.name === 'system');
    expect(system.map((e) => e.changes.tags)).toEqual([
      { before: ['paris'], after: ['paris', 'Tower'] },
      { before: ['paris'], after: ['paris', 'night'] },
    ]);
  });

  it('never overwrites a field a user edited, across new versions and restores; edits are logged and bounded', async () => {
    const fileTags = (n: string) => ({
      'IPTC:Caption-Abstract': `Caption ${n}`,
      'IPTC:By-line': `Creator ${n}`,
      'IPTC:CopyrightNotice': `(c) ${n}`,
      'XMP-xmpRights:UsageTerms': `Terms ${n}`,
    });
    const uploaded = await upload(await files.withTags(await twoColourJpeg(64, 48), 'jpg', fileTags('one')), 'e.jpg', 'image/jpeg');
    await t.app.jobs.drain();

    const res = await patch(uploaded.id, { caption: 'Our caption\nsecond line', copyright: null });
    expect(res.statusCode, res.body).toBe(200);
    const edited = res.json<{ data: EmbeddedAsset }>().data;
    expect(edited).toMatchObject({ caption: 'Our caption\nsecond line', copyright: null, creator: 'Creator one', metadata_edited: ['caption', 'copyright'] });
    expect(edited.embedded_metadata).toMatchObject({ 'IPTC:Caption-Abstract': 'Caption one' });
    const logged = (await history(uploaded.id)).at(-1)!;
    expect(logged).toMatchObject({ action: 'asset.update', actor: { id: team.manager.user.id } });
    expect(logged.changes).toEqual({
      caption: { before: 'Caption one', after: 'Our caption\nsecond line' },
      copyright: { before: '(c) one', after: null },
    });

    const v2 = await uploadVersion(t, team.manager, uploaded.id, jpeg(await files.withTags(await twoColourJpeg(64, 48), 'jpg', fileTags('two'))));
    await t.app.jobs.drain();
    expect(await asset(uploaded.id)).toMatchObject({
      caption: 'Our caption\nsecond line',
      copyright: null,
      creator: 'Creator two',
      usage_terms: 'Terms two',
      metadata_version_id: v2.id,
    });

    const v1 = (await listVersions(t, team.owner, uploaded.id))[1]!;
    expect((await t.request({ method: 'POST', url: `/dam/versions/${v1.id}/restore`, token: team.manager.token })).statusCode).toBe(200);
    await t.app.jobs.drain();
    expect(await asset(uploaded.id)).toMatchObject({ caption: 'Our caption\nsecond line', copyright: null, creator: 'Creator one', usage_terms: 'Terms one' });

    // Blank clears; every field sent counts as edited.
    const blank = await patch(uploaded.id, { usage_terms: '   ' });
    expect(blank.json<{ data: EmbeddedAsset }>().data).toMatchObject({ usage_terms: null, metadata_edited: ['caption', 'copyright', 'usage_terms'] });

    expectError(await patch(uploaded.id, { creator: 'two\nlines' }), 400, 'VALIDATION_ERROR', 'creator');
    expectError(await patch(uploaded.id, { caption: 'x'.repeat(10_001) }), 400, 'VALIDATION_ERROR', 'caption');
    expectError(await patch(uploaded.id, { copyright: 5 }), 400, 'VALIDATION_ERROR', 'copyright');
    expectError(await patch(uploaded.id, { caption: 'bidi \u202e' }), 400, 'VALIDATION_ERROR', 'caption');
    expectError(await patch(uploaded.id, { keywords: ['x'] }), 400, 'VALIDATION_ERROR');
    expectError(await patch(uploaded.id, { embedded_metadata: {} }), 400, 'VALIDATION_ERROR');
    expectError(await patch(uploaded.id, { caption: 'viewer' }, team.viewer), 403, 'FORBIDDEN');
    expectError(await patch(uploaded.id, { caption: 'outsider' }, team.outsider), 404, 'NOT_FOUND');
  });

  it('a corrupt EXIF block, a cut file, unknown bytes and hostile values never fail an upload: what can be read is kept', async () => {
    const readable = await files.withTags(await twoColourJpeg(64, 48), 'jpg', { 'IPTC:Caption-Abstract': 'Still readable', 'EXIF:Make': 'Nikon' });
    const broken = await upload(withBrokenExif(readable), 'broken.jpg', 'image/jpeg');
    // Cut inside its first segment.
    const cut = await upload(readable.subarray(0, 30), 'cut.jpg', 'image/jpeg');
    const unknown = await upload(randomBytes(5000), 'noise.jpg', 'image/jpeg');
    const hostile = await upload(
      await files.withTags(await twoColourJpeg(64, 48), 'jpg', {
        'XMP-dc:Description': 'x'.repeat(60_000),
        // IPTC keeps control characters as they are (XMP cannot hold them).
        'IPTC:By-line': 'Eve\u0007\u202eevil',
        'IPTC:CodedCharacterSet': 'UTF8',
        'XMP-dc:Subject': Array.from({ length: 800 }, (_, i) => `kw${i}`),
        'XMP-dc:Title': 'x'.repeat(100_000),
      }),
      'hostile.jpg',
      'image/jpeg',
    );
    await t.app.jobs.drain();
    expect(await failedJobs()).toBe(0);

    const versionOf = async (id: number) => (await listVersions(t, team.owner, id))[0]!.id;
    // The broken block is skipped with a warning; the valid EXIF block after it and the IPTC are read.
    const b = await asset(broken.id);
    expect(b).toMatchObject({ caption: 'Still readable', camera_make: 'Nikon', taken_at: null, metadata_version_id: await versionOf(broken.id) });
    expect(b.embedded_metadata!['ExifTool:Warning']).toMatch(/IFD/);
    for (const a of [cut, unknown]) {
      const read = await asset(a.id);
      expect(read).toMatchObject({ caption: null, camera_make: null, keywords: [], tags: [], metadata_version_id: await versionOf(a.id) });
      // What ExifTool had to say about the file is kept with the tags.
      expect(Object.keys(read.embedded_metadata!).filter((k) => k.startsWith('ExifTool:'))).not.toEqual([]);
    }
    const h = await asset(hostile.id);
    expect(h.caption).toHaveLength(10_000);
    expect(h.creator).toBe('Eveevil');
    expect(h.keywords).toHaveLength(500);
    expect(h.tags).toHaveLength(100);
    expect(Buffer.byteLength(JSON.stringify(h.embedded_metadata))).toBeLessThanOrEqual(64 * 1024);
    expect((h.embedded_metadata!['XMP:Title'] as string).length).toBe(2000);
  });

  it('a job of a version that is no longer current changes nothing; the multipart flow reads its file too', async () => {
    const first = await files.withTags(await twoColourJpeg(64, 48), 'jpg', { 'IPTC:Keywords': ['old'], 'EXIF:Model': 'Old camera' });
    const second = await files.withTags(await twoColourJpeg(64, 48), 'jpg', { 'IPTC:Keywords': ['new'], 'EXIF:Model': 'New camera' });
    const { ref } = await uploadFile(t, team.manager, first, { workspaceId: team.ws, fileType: 'image/jpeg', fileName: 'flow.jpg' });
    // v2 arrives before v1's job ran: v1's job finds it is no longer current.
    const v2 = await uploadVersion(t, team.manager, ref.assetId, jpeg(second));
    await t.app.jobs.drain();
    expect(await asset(ref.assetId)).toMatchObject({ camera_model: 'New camera', keywords: ['new'], tags: ['new'], metadata_version_id: v2.id });
  });
});

describe.each(dialects)('migration 0011 on %s', (dialect) => {
  it("queues the reading of every asset's current version", async () => {
    const handle = await openDatabaseAt(dialect, '0010_sorting');
    try {
      const db = handle.db;
      const insert = async (statement: ReturnType<typeof sql>) => (await sql<{ id: number }>`${statement} RETURNING id`.execute(db)).rows[0]!.id;
      const ws = await insert(sql`INSERT INTO workspaces (name, created_at, modified_at) VALUES ('old', 1, 1)`);
      const asset = await insert(sql`
        INSERT INTO assets (workspace_id, display_file_name, name_key, file_name, file_type, mime_type, file_size, tags, visibility, metadata,
          storage_key, status, created_by, created_at, modified_at)
        VALUES (${ws}, 'a.jpg', 'a.jpg', 'a.jpg', 'image', 'image/jpeg', 10, '[]', 0, '{}', ${`${ws}/digital_assets/1`}, 'ready', 'someone', 100, 100)`);
      const version = (n: number | null, current: number, status: string) =>
        insert(sql`
          INSERT INTO asset_versions (asset_id, workspace_id, number, status, is_current, file_name, display_file_name, mime_type, file_size,
            metadata, storage_key, created_by, created_at)
          VALUES (${asset}, ${ws}, ${n}, ${status}, ${current}, 'a.jpg', 'a.jpg', 'image/jpeg', 10, '{}', ${`${ws}/digital_assets/1/versions/${n ?? 'x'}`},
            'someone', 100)`);
      await version(1, 0, 'ready');
      const current = await version(2, 1, 'ready');
      await version(null, 0, 'uploading');

      await migrateToLatest(handle);
      const jobs = await db.selectFrom('jobs').select(['kind', 'payload', 'status']).where('kind', '=', 'version.metadata').execute();
      expect(jobs.map((j) => [JSON.parse(j.payload) as unknown, j.status])).toEqual([[{ versionId: current }, 'queued']]);
      expect(await db.selectFrom('assets').select(['keywords', 'embedded_metadata', 'metadata_edited', 'metadata_version_id', 'caption']).execute()).toEqual([
        { keywords: '[]', embedded_metadata: '{}', metadata_edited: '[]', metadata_version_id: null, caption: null },
      ]);
    } finally {
      await handle.close();
    }
  });
});

/** ExifTool runs as Perl processes of this test process: closing the app must end its own. */
function exiftoolChildren(): number {
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  return out.split('\n').filter((line) => /exiftool/i.test(line)).length;
}

describe('ExifTool processes', () => {
  it('start with the first file read and end when the app closes', async () => {
    const t = await startTestApp({ config: { jobs: JOBS } });
    const before = exiftoolChildren();
    try {
      const owner = await registerUser(t);
      await serverUpload(t, owner, jpeg(await twoColourJpeg(32, 32)));
      await t.app.jobs.drain();
      expect(exiftoolChildren()).toBeGreaterThan(before);
    } finally {
      await t.close();
    }
    expect(exiftoolChildren()).toBe(before);
  });
});
