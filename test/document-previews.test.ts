import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { locatePoppler } from '../src/media/pdf.js';
import { expectError } from './helpers/catalog-factories.js';
import { dialects, openDatabaseAt, tempDir } from './helpers/databases.js';
import { fakeSoffice, minimalPdf, type PdfPage } from './helpers/documents.js';
import { registerUser, type Account } from './helpers/factories.js';
import { startS3Server, startStorageApp, uploadFile, type S3Server, type StorageTestApp } from './helpers/uploads.js';
import { getAssetJson, listVersions, serverUpload, text, uploadVersion, type FilePart, type VersionJson } from './helpers/versions.js';

const RED: [number, number, number] = [220, 30, 30];
const BLUE: [number, number, number] = [30, 30, 220];
const GREEN: [number, number, number] = [30, 200, 30];
/** 600 x 800 pt pages: drawn 1080 x 1440 for the preview, 192 x 256 as the thumbnail. */
const page = (band: [number, number, number]): PdfPage => ({ width: 600, height: 800, band });
const threePages = minimalPdf([page(RED), page(BLUE), page(GREEN)]);

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const ODP = 'application/vnd.oasis.opendocument.presentation';

const pdfPart = (bytes: Buffer, name = 'report.pdf'): FilePart => ({ bytes, name, type: 'application/pdf' });

const poppler = await locatePoppler(undefined);
// CI installs poppler-utils (.ci/run) and runs these always; a machine without it skips them (the service works without it).
const withPoppler = it.skipIf(!poppler && process.env.CI !== 'true');

interface Image {
  width: number;
  height: number;
  format: string | undefined;
  /** RGB of the pixel at (x, y). */
  pixel(x: number, y: number): number[];
  /** Every pixel's RGB, row by row. */
  pixels(): Generator<number[]>;
}

/** Fetches a URL the API handed out as a browser would (no Authorization header) and decodes the image. */
async function fetchImage(url: string): Promise<Image & { contentType: string | null }> {
  const res = await fetch(url);
  expect(res.status, url).toBe(200);
  const body = Buffer.from(await res.arrayBuffer());
  const { format } = await sharp(body).metadata();
  const { data, info } = await sharp(body).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (offset: number) => Array.from(data.subarray(offset, offset + 3));
  return {
    contentType: res.headers.get('content-type'),
    width: info.width,
    height: info.height,
    format,
    pixel: (x, y) => at((y * info.width + x) * info.channels),
    *pixels() {
      for (let offset = 0; offset < data.length; offset += info.channels) yield at(offset);
    },
  };
}

function expectColour(actual: number[], expected: number[], label: string): void {
  for (const [i, c] of expected.entries()) expect(Math.abs(actual[i]! - c), `${label}: ${actual.join(',')} vs ${expected.join(',')}`).toBeLessThan(25);
}

async function currentVersion(t: StorageTestApp, who: Account, assetId: number): Promise<VersionJson> {
  return (await listVersions(t, who, assetId))[0]!;
}

async function previewOf(t: StorageTestApp, who: Account, version: VersionJson) {
  return t.request({ method: 'GET', url: `/dam/versions/${version.id}/preview`, token: who.token });
}

/** The version's preview: its JSON answer and the WebP its signed URL serves. */
async function fetchPreview(t: StorageTestApp, who: Account, version: VersionJson) {
  const res = await previewOf(t, who, version);
  expect(res.statusCode, res.body).toBe(200);
  const data = res.json<{ data: { url: string; mime_type: string; width: number; height: number } }>().data;
  return { data, image: await fetchImage(data.url) };
}

/** The preview endpoint's 404 and its reason (preview_note). */
async function expectUnavailable(t: StorageTestApp, who: Account, assetId: number, icon: string, reason: RegExp): Promise<VersionJson> {
  const v = await currentVersion(t, who, assetId);
  expect(v.preview_status).toBe('unavailable');
  expect(v.thumbnail_url).toBe(`${t.baseUrl}/media/icons/${icon}.svg`);
  const res = await previewOf(t, who, v);
  expectError(res, 404, 'NOT_FOUND');
  expect(res.json()).toMatchObject({ preview_status: 'unavailable' });
  expect(res.json<{ error: string }>().error).toMatch(reason);
  return v;
}

async function jobCounts(t: StorageTestApp, admin: Account): Promise<Record<string, number>> {
  const res = await t.request({ method: 'GET', url: '/admin/jobs', token: admin.token });
  return res.json<{ data: { counts: Record<string, number> } }>().data.counts;
}

describe.each(dialects)('document previews on %s', (dialect) => {
  let t: StorageTestApp;
  let owner: Account;
  let soffice: { path: string; log: string };

  beforeAll(async () => {
    soffice = fakeSoffice(tempDir('dam-soffice-'), minimalPdf([page(GREEN), page(BLUE)]));
    // No background worker: jobs run when a test drains them, so a test decides what has run when.
    const jobs = { concurrency: 0, pollIntervalMs: 200, leaseSeconds: 300, maxAttempts: 5, retryBaseSeconds: 10 };
    t = await startStorageApp('local', undefined, { dialect, config: { libreofficePath: soffice.path, jobs } });
    owner = await registerUser(t);
  });
  afterAll(async () => {
    await t.close();
  });

  withPoppler('a PDF gets a thumbnail and a preview of its first page and its page count, on the version and the asset', async () => {
    // curl -F sends every file as application/octet-stream: the bytes say PDF.
    const asset = await serverUpload(t, owner, { bytes: threePages, name: 'report.pdf', type: 'application/octet-stream' });
    expect(asset).toMatchObject({ mime_type: 'application/pdf', file_type: 'document', page_count: null });
    await t.app.jobs.drain();

    const v1 = await currentVersion(t, owner, asset.id);
    expect(v1).toMatchObject({ preview_status: 'ready', page_count: 3 });
    expect(await getAssetJson(t, owner, asset.id)).toMatchObject({ page_count: 3 });

    const thumb = await fetchImage(v1.thumbnail_url);
    expect(thumb).toMatchObject({ contentType: 'image/webp', format: 'webp', width: 192, height: 256 });
    expectColour(thumb.pixel(96, 20), RED, 'thumbnail top');
    expectColour(thumb.pixel(96, 230), [255, 255, 255], 'thumbnail bottom');

    const { data, image } = await fetchPreview(t, owner, v1);
    expect(data).toMatchObject({ mime_type: 'image/webp', width: 1080, height: 1440 });
    expect(image).toMatchObject({ contentType: 'image/webp', format: 'webp', width: 1080, height: 1440 });
    // Page 1 (red band), not page 2 (blue) or 3 (green).
    expectColour(image.pixel(540, 100), RED, 'preview top');
    expectColour(image.pixel(540, 1300), [255, 255, 255], 'preview bottom');
  });

  withPoppler('the asset\'s page count follows its current version: a new version, a late job of an old one, a restore', async () => {
    const asset = await serverUpload(t, owner, pdfPart(threePages));
    // v2 arrives before v1's job has run: v1 is counted, the asset (now v2's file) is not touched.
    const v2 = await uploadVersion(t, owner, asset.id, text('now plain text'));
    expect(v2.page_count).toBeNull();
    expect(await getAssetJson(t, owner, asset.id)).toMatchObject({ mime_type: 'text/plain', page_count: null });
    await t.app.jobs.drain();
    const [current, v1] = await listVersions(t, owner, asset.id);
    expect(current).toMatchObject({ version: 'v2', page_count: null, preview_status: 'ready' });
    expect(v1).toMatchObject({ version: 'v1', page_count: 3, preview_status: 'ready' });
    expect(await getAssetJson(t, owner, asset.id)).toMatchObject({ page_count: null });

    const restored = await t.request({ method: 'POST', url: `/dam/versions/${v1!.id}/restore`, token: owner.token });
    expect(restored.statusCode).toBe(200);
    // The restored file's count comes with it, before its own job has run.
    expect(restored.json()).toMatchObject({ mime_type: 'application/pdf', page_count: 3 });
    await t.app.jobs.drain();
    expect(await currentVersion(t, owner, asset.id)).toMatchObject({ version: 'v3', page_count: 3, preview_status: 'ready' });
    expect(await getAssetJson(t, owner, asset.id)).toMatchObject({ page_count: 3 });
  });

  withPoppler('a corrupt or encrypted PDF is uploaded as usual and says why it has no preview; the job succeeds', async () => {
    const fresh = await startStorageApp('local', undefined, { dialect });
    try {
      const first = await registerUser(fresh); // the instance's first account: its admin
      const corrupt = await serverUpload(fresh, first, pdfPart(Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(3000)]), 'broken.pdf'));
      const truncated = await serverUpload(fresh, first, pdfPart(threePages.subarray(0, 200), 'cut.pdf'));
      const locked = await serverUpload(fresh, first, pdfPart(minimalPdf([page(RED)], { userPassword: 'secret' }), 'locked.pdf'));
      await fresh.app.jobs.drain();
      for (const a of [corrupt, truncated]) {
        const v = await expectUnavailable(fresh, first, a.id, 'document', /no preview: The PDF is damaged and cannot be opened\.$/);
        expect(v.page_count).toBeNull();
        // Issue #27: marked unreadable; an encrypted PDF is fine and is not.
        expect(await getAssetJson(fresh, first, a.id)).toMatchObject({ page_count: null, unreadable: true, unreadable_reason: 'The PDF is damaged and cannot be opened.' });
      }
      await expectUnavailable(fresh, first, locked.id, 'document', /encrypted \(password-protected\)/);
      expect(await getAssetJson(fresh, first, locked.id)).toMatchObject({ unreadable: false });
      // Per version: its renditions and its embedded metadata (issue #12); once: the hash backfill. A file sent through the
      // server has its SHA-256 (issue #19) recorded as it is stored, with no job.
      expect(await jobCounts(fresh, first)).toMatchObject({ succeeded: 7, failed: 0, queued: 0 });
    } finally {
      await fresh.close();
    }
  });

  it('a text file gets a page of its first lines, with its text drawn as text (no markup gets through)', async () => {
    const lines = [
      '# Release notes',
      '',
      'a & b < c > d "double" \'single\'',
      '</text><rect width="100%" height="100%" fill="#ff0000"/><text>',
      '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>&e; ]]> \u0001\u0007\u001b[31m',
      '\tindented by a tab',
      'x'.repeat(500),
    ];
    const asset = await serverUpload(t, owner, text(lines.join('\r\n'), 'NOTES.md', 'text/markdown'));
    await t.app.jobs.drain();
    const v1 = await currentVersion(t, owner, asset.id);
    expect(v1).toMatchObject({ preview_status: 'ready', page_count: null });

    const { data, image } = await fetchPreview(t, owner, v1);
    expect(data).toMatchObject({ mime_type: 'image/webp', width: 1080, height: 1440 });
    expect(image).toMatchObject({ format: 'webp', width: 1080, height: 1440 });
    let dark = 0;
    let reddish = 0;
    for (const [r, g, b] of image.pixels()) {
      if (r! < 128 && g! < 128 && b! < 128) dark++;
      if (r! - g! > 60 && r! - b! > 60) reddish++;
    }
    expect(dark).toBeGreaterThan(2000); // glyphs
    expect(reddish).toBe(0); // the <rect> is text on the page, not a red rectangle over it
    // Seven lines: the lower part of the page stays blank.
    for (let y = 600; y < 1440; y += 40) expectColour(image.pixel(540, y), [255, 255, 255], `blank at y=${y}`);
    expect(await fetchImage(v1.thumbnail_url)).toMatchObject({ format: 'webp', width: 192, height: 256 });
  });

  it('JSON and source code get a text preview too; a binary file claimed as text does not', async () => {
    const json = await serverUpload(t, owner, text('{"name": "dam", "version": 1}\n', 'package.json', 'application/json'));
    const code = await serverUpload(t, owner, text('def main():\n    print("hi")\n', 'main.py', 'text/x-python'));
    const binary = await serverUpload(t, owner, { bytes: Buffer.from([0x41, 0x00, 0x42, 0x00, 0xff, 0x10]), name: 'data.txt', type: 'text/plain' });
    await t.app.jobs.drain();
    for (const a of [json, code]) expect(await currentVersion(t, owner, a.id)).toMatchObject({ preview_status: 'ready' });
    await expectUnavailable(t, owner, binary.id, 'document', /does not look like text/);
  });

  withPoppler('an office document is converted by LibreOffice (DAM_LIBREOFFICE_PATH) and previewed as its PDF', async () => {
    const before = readFileSync(soffice.log, { flag: 'a+' }).toString().split('\n').filter(Boolean).length;
    const docx = await serverUpload(t, owner, { bytes: Buffer.from('a letter'), name: 'letter.docx', type: DOCX });
    const odp = await serverUpload(t, owner, { bytes: Buffer.from('slides'), name: 'talk.odp', type: ODP });
    const broken = await serverUpload(t, owner, { bytes: Buffer.from('unconvertible'), name: 'broken.docx', type: DOCX });
    await t.app.jobs.drain();

    for (const a of [docx, odp]) {
      const v = await currentVersion(t, owner, a.id);
      expect(v).toMatchObject({ preview_status: 'ready', page_count: 2 });
      expect(await getAssetJson(t, owner, a.id)).toMatchObject({ page_count: 2 });
      const { image } = await fetchPreview(t, owner, v);
      expect(image).toMatchObject({ format: 'webp', width: 1080, height: 1440 });
      expectColour(image.pixel(540, 100), GREEN, 'first page of the converted PDF');
    }
    await expectUnavailable(t, owner, broken.id, 'document', /LibreOffice could not open the document, so it has no preview/);

    const calls = readFileSync(soffice.log, 'utf8').split('\n').filter(Boolean).slice(before).map((l) => JSON.parse(l) as string[]);
    expect(calls).toHaveLength(3);
    const profiles = calls.map((args) => args.find((a) => a.startsWith('-env:UserInstallation=file:///')));
    expect(new Set(profiles).size).toBe(3); // a profile of its own per job
    // The input is named with the format's extension: LibreOffice picks its import filter by it.
    expect(calls.map((args) => path.extname(args.at(-1)!)).sort()).toEqual(['.docx', '.docx', '.odp']);
  });

  it('without DAM_LIBREOFFICE_PATH an office document keeps its icon and says why; nothing fails', async () => {
    const plain = await startStorageApp('local', undefined, { dialect });
    try {
      const first = await registerUser(plain);
      const docx = await serverUpload(plain, first, { bytes: Buffer.from('a letter'), name: 'letter.docx', type: DOCX });
      expect(docx).toMatchObject({ mime_type: DOCX, file_type: 'document' });
      await plain.app.jobs.drain();
      const v = await expectUnavailable(plain, first, docx.id, 'document', /DAM_LIBREOFFICE_PATH/);
      expect(v.page_count).toBeNull();
      expect(await jobCounts(plain, first)).toMatchObject({ succeeded: 3, failed: 0 });
    } finally {
      await plain.close();
    }
  });

  it('without pdftoppm (PDFTOPPM_PATH names a missing file) PDFs and office documents are uploaded and say why they have no preview', async () => {
    const bare = await startStorageApp('local', undefined, { dialect, config: { pdftoppmPath: '/nonexistent/pdftoppm', libreofficePath: soffice.path } });
    try {
      const first = await registerUser(bare);
      const pdf = await serverUpload(bare, first, pdfPart(threePages));
      const docx = await serverUpload(bare, first, { bytes: Buffer.from('a letter'), name: 'letter.docx', type: DOCX });
      await bare.app.jobs.drain();
      for (const a of [pdf, docx]) {
        const v = await expectUnavailable(bare, first, a.id, 'document', /pdftoppm \(poppler-utils\) is not installed/);
        // The PDF's pages are counted from the file itself by ExifTool (embedded metadata, issue #12).
        expect(v.page_count).toBe(a === pdf ? 3 : null);
      }
      expect(await jobCounts(bare, first)).toMatchObject({ succeeded: 5, failed: 0 });
    } finally {
      await bare.close();
    }
  });

  it('an upgrade queues the versions whose preview was unavailable again (migration 0008)', async () => {
    const handle = await openDatabaseAt(dialect, '0007_trash');
    try {
      const db = handle.db;
      // Rows as the schema of 0007 has them (raw SQL: today's repositories write columns of later migrations).
      const insert = async (statement: ReturnType<typeof sql>) => (await sql<{ id: number }>`${statement} RETURNING id`.execute(db)).rows[0]!.id;
      const ws = await insert(sql`INSERT INTO workspaces (name, created_at, modified_at) VALUES ('old', 1, 1)`);
      const version = async (name: string, mime: string, previewStatus: 'unavailable' | 'ready') => {
        const asset = await insert(sql`
          INSERT INTO assets (workspace_id, display_file_name, file_name, file_type, mime_type, file_size, tags, visibility, metadata,
            storage_key, status, created_by, created_at, modified_at)
          VALUES (${ws}, ${name}, ${name}, 'document', ${mime}, 10, '[]', 0, '{}', ${`${ws}/digital_assets/${name}`}, 'ready', 'someone', 100, 100)`);
        const note = previewStatus === 'unavailable' ? `No preview is made for ${mime}` : null;
        return insert(sql`
          INSERT INTO asset_versions (asset_id, workspace_id, number, status, is_current, file_name, display_file_name, mime_type, file_size,
            metadata, storage_key, preview_status, preview_note, created_by, created_at)
          VALUES (${asset}, ${ws}, 1, 'ready', 1, ${name}, ${name}, ${mime}, 10, '{}', ${`${ws}/digital_assets/${name}`}, ${previewStatus}, ${note},
            'someone', 100)`);
      };
      const unavailable = await version('a.pdf', 'application/pdf', 'unavailable');
      await version('b.jpg', 'image/jpeg', 'ready');

      await migrateToLatest(handle);
      const rows = await db.selectFrom('asset_versions').select(['id', 'preview_status', 'preview_note', 'page_count']).orderBy('id').execute();
      expect(rows.map((r) => [r.preview_status, r.preview_note, r.page_count])).toEqual([
        ['pending', null, null],
        ['ready', null, null],
      ]);
      // (Migration 0011 queues the reading of embedded metadata of every current version besides.)
      const jobs = await db.selectFrom('jobs').select(['kind', 'payload', 'status']).where('kind', '=', 'version.renditions').execute();
      expect(jobs.map((j) => [j.kind, JSON.parse(j.payload) as unknown, j.status])).toEqual([['version.renditions', { versionId: unavailable }, 'queued']]);
      expect(await db.selectFrom('assets').select('page_count').execute()).toEqual([{ page_count: null }, { page_count: null }]);
    } finally {
      await handle.close();
    }
  });
});

/** The text sample is a range read, the PDF a whole download: both stores, through the multipart flow. */
describe('document previews on the S3 store', () => {
  let s3: S3Server;
  let t: StorageTestApp;
  let owner: Account;

  beforeAll(async () => {
    s3 = await startS3Server();
    t = await startStorageApp('s3', s3);
    owner = await registerUser(t);
  });
  afterAll(async () => {
    await t.close();
    await s3.close();
  });

  withPoppler('previews a PDF and a text file larger than the part of it that is read', async () => {
    const { ref: pdf } = await uploadFile(t, owner, threePages, { fileType: 'application/pdf', fileName: 'report.pdf' });
    const long = Buffer.from(Array.from({ length: 4000 }, (_, i) => `line ${i} ${'lorem ipsum '.repeat(3)}`).join('\n'));
    expect(long.length).toBeGreaterThan(128 * 1024);
    const { ref: log } = await uploadFile(t, owner, long, { fileType: 'text/plain', fileName: 'server.log' });
    await t.app.jobs.drain();
    expect(await currentVersion(t, owner, pdf.assetId)).toMatchObject({ preview_status: 'ready', page_count: 3 });
    const v = await currentVersion(t, owner, log.assetId);
    expect(v).toMatchObject({ preview_status: 'ready', page_count: null });
    const { image } = await fetchPreview(t, owner, v);
    expect(image).toMatchObject({ width: 1080, height: 1440 });
    // A full page of lines: text reaches the bottom part of the page.
    let dark = 0;
    for (let x = 56; x < 1000; x++) for (let y = 1300; y < 1380; y++) if (image.pixel(x, y)[0]! < 128) dark++;
    expect(dark).toBeGreaterThan(100);
  });
});

describe('document tools', () => {
  it('reads PDFTOPPM_PATH and DAM_LIBREOFFICE_PATH; both unset by default', () => {
    const base = { DAM_DATA_DIR: tempDir('dam-config-'), DAM_JWT_SECRET: 'a-secret-that-is-long-enough-0123456789' };
    expect(loadConfig(base)).toMatchObject({ pdftoppmPath: undefined, libreofficePath: undefined });
    expect(loadConfig({ ...base, PDFTOPPM_PATH: '/opt/poppler/bin/pdftoppm', DAM_LIBREOFFICE_PATH: '/usr/bin/soffice' })).toMatchObject({
      pdftoppmPath: '/opt/poppler/bin/pdftoppm',
      libreofficePath: '/usr/bin/soffice',
    });
  });

  it('finds pdftoppm as configured or on PATH, and pdfinfo beside it when it is there', async () => {
    const dir = tempDir('dam-poppler-');
    const program = (name: string) => {
      const file = path.join(dir, name);
      writeFileSync(file, '#!/bin/sh\n');
      chmodSync(file, 0o755);
      return file;
    };
    expect(await locatePoppler(undefined, dir)).toBeUndefined();
    const pdftoppm = program('pdftoppm');
    expect(await locatePoppler(undefined, `/nonexistent${path.delimiter}${dir}`)).toEqual({ pdftoppm, pdfinfo: undefined });
    const pdfinfo = program('pdfinfo');
    expect(await locatePoppler(pdftoppm, '')).toEqual({ pdftoppm, pdfinfo });
    expect(await locatePoppler(path.join(dir, 'missing'), dir)).toBeUndefined();
  });
});
