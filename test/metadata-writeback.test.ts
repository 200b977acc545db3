import { readdirSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, makeTeam, type Team } from './helpers/catalog-factories.js';
import { dialects } from './helpers/databases.js';
import { minimalPdf } from './helpers/documents.js';
import { ExifFiles, plainPng, twoColourJpeg } from './helpers/exif-files.js';
import type { Account } from './helpers/factories.js';
import { startStorageApp, type StorageTestApp } from './helpers/uploads.js';
import { listVersions, multipart, uploadVersion, type AssetJson } from './helpers/versions.js';

/** Downloads with the DAM's metadata written into the file (issue #12), read again by ExifTool, on every dialect. */

// No background worker: a test decides whether the file was read (drain) or not yet.
const JOBS = { concurrency: 0, pollIntervalMs: 200, leaseSeconds: 300, maxAttempts: 5, retryBaseSeconds: 10 };

describe.each(dialects)('metadata write-back on %s', (dialect) => {
  let t: StorageTestApp;
  let team: Team;
  let files: ExifFiles;

  beforeAll(async () => {
    files = new ExifFiles();
    t = await startStorageApp('local', undefined, { dialect, config: { jobs: JOBS } });
    team = await makeTeam(t);
  });
  afterAll(async () => {
    await t.close();
    await files.end();
  });

  async function upload(bytes: Buffer, name: string, type: string): Promise<AssetJson> {
    const body = await multipart({ workspaceId: String(team.ws), file: { bytes, name, type } });
    const res = await t.request({ method: 'POST', url: '/api/upload-asset', token: team.manager.token, ...body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ data: AssetJson }>().data;
  }

  async function edit(id: number, payload: object): Promise<void> {
    const res = await t.request({ method: 'PATCH', url: `/dam/assets/${id}`, token: team.manager.token, payload });
    expect(res.statusCode, res.body).toBe(200);
  }

  const download = (assetId: number, query: string, headers: Record<string, string> = {}, who: Account = team.viewer) =>
    t.request({
      method: 'GET',
      url: `/storage/download?key=${encodeURIComponent(`${team.ws}/digital_assets/${assetId}`)}&workspaceId=${team.ws}${query}`,
      token: who.token,
      headers,
    });

  /** The temporary copies left in the data directory (none once every answer was sent). */
  async function leftovers(): Promise<string[]> {
    const dir = path.join(t.config.dataDir, 'tmp', 'writeback');
    for (let i = 0; i < 50; i += 1) {
      const left = readdirSync(dir);
      if (left.length === 0) return left;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return readdirSync(dir);
  }

  it("writes the asset's current metadata into a JPEG download as XMP, IPTC and EXIF; the stored file never changes", async () => {
    const original = await files.withTags(await twoColourJpeg(600, 400), 'jpg', {
      'EXIF:Make': 'Canon',
      'EXIF:Copyright': '(c) file',
      'IPTC:CopyrightNotice': '(c) file',
      'IPTC:Caption-Abstract': 'File caption',
      'IPTC:Keywords': ['Paris', 'Tower'],
    });
    const asset = await upload(original, 'paris.jpg', 'image/jpeg');
    await t.app.jobs.drain();
    await edit(asset.id, { caption: 'DAM caption, grüße', creator: 'Ann; Bob', copyright: null, usage_terms: 'Licensed to ACME', tags: ['Paris', 'Édition'] });

    // A Range is ignored: the written file exists for this answer only.
    const res = await download(asset.id, '&embed_metadata=true', { range: 'bytes=0-9' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers).toMatchObject({ 'metadata-embedded': 'true', 'accept-ranges': 'none', 'content-type': 'image/jpeg', 'x-content-type-options': 'nosniff' });
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="paris\.jpg"/);
    expect(Number(res.headers['content-length'])).toBe(res.rawPayload.length);
    expect(res.rawPayload.equals(original)).toBe(false);

    const tags = await files.read(res.rawPayload, 'jpg');
    expect(tags).toMatchObject({
      'XMP:Description': 'DAM caption, grüße',
      'IPTC:Caption-Abstract': 'DAM caption, grüße',
      'EXIF:ImageDescription': 'DAM caption, grüße',
      'XMP:Creator': ['Ann', 'Bob'],
      'IPTC:By-line': 'Ann; Bob',
      'EXIF:Artist': 'Ann; Bob',
      'XMP:UsageTerms': 'Licensed to ACME',
      'XMP:Subject': ['Paris', 'Édition'],
      'IPTC:Keywords': ['Paris', 'Édition'],
      // What the DAM does not hold stays as the file had it.
      'EXIF:Make': 'Canon',
    });
    // A value cleared in the DAM is removed from every place.
    for (const key of ['XMP:Rights', 'IPTC:CopyrightNotice', 'EXIF:Copyright']) expect(tags).not.toHaveProperty([key]);
    expect(await sharp(res.rawPayload).metadata()).toMatchObject({ width: 600, height: 400, format: 'jpeg' });
    // HEAD writes the file too (its length is the answer's) and leaves no copy behind either.
    const head = await t.request({
      method: 'HEAD',
      url: `/storage/download?key=${encodeURIComponent(`${team.ws}/digital_assets/${asset.id}`)}&workspaceId=${team.ws}&embed_metadata=true`,
      token: team.viewer.token,
    });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-length']).toBe(res.headers['content-length']);
    expect(await leftovers()).toEqual([]);

    // Without the parameter (and stored as uploaded): the original bytes, ranges as usual.
    const plain = await download(asset.id, '');
    expect(plain.rawPayload.equals(original)).toBe(true);
    expect(plain.headers['metadata-embedded']).toBeUndefined();
    const ranged = await download(asset.id, '&embed_metadata=false', { range: 'bytes=0-9' });
    expect(ranged.statusCode).toBe(206);
    expect(ranged.rawPayload.equals(original.subarray(0, 10))).toBe(true);
  });

  it("a version download carries the asset's current metadata into that version's file", async () => {
    const v1Bytes = await files.withTags(await twoColourJpeg(64, 48), 'jpg', { 'IPTC:Caption-Abstract': 'First file' });
    const asset = await upload(v1Bytes, 'v.jpg', 'image/jpeg');
    await uploadVersion(t, team.manager, asset.id, { bytes: await twoColourJpeg(64, 48), name: 'v2.jpg', type: 'image/jpeg' });
    await t.app.jobs.drain();
    await edit(asset.id, { caption: 'Current caption' });
    const v1 = (await listVersions(t, team.owner, asset.id))[1]!;

    const res = await t.request({ method: 'GET', url: `/dam/versions/${v1.id}/download?embed_metadata=true`, token: team.viewer.token });
    expect(res.statusCode).toBe(200);
    expect(res.headers['metadata-embedded']).toBe('true');
    expect(await files.read(res.rawPayload, 'jpg')).toMatchObject({ 'XMP:Description': 'Current caption', 'IPTC:Caption-Abstract': 'Current caption' });
    const plain = await t.request({ method: 'GET', url: `/dam/versions/${v1.id}/download`, token: team.viewer.token });
    expect(plain.rawPayload.equals(v1Bytes)).toBe(true);
    expectError(await t.request({ method: 'GET', url: `/dam/versions/${v1.id}/download?embed_metadata=yes`, token: team.viewer.token }), 400, 'VALIDATION_ERROR');
    expectError(await t.request({ method: 'GET', url: `/dam/versions/${v1.id}/download?embed_metadata=true`, token: team.outsider.token }), 404, 'NOT_FOUND');
  });

  it('writes XMP into PNG and PDF files', async () => {
    const png = await upload(await plainPng(40, 30), 'p.png', 'image/png');
    const page = { width: 300, height: 400, band: [10, 200, 10] as [number, number, number] };
    const pdf = await upload(minimalPdf([page, page]), 'doc.pdf', 'application/pdf');
    await t.app.jobs.drain();
    for (const [a, ext] of [[png, 'png'], [pdf, 'pdf']] as const) {
      await edit(a.id, { caption: `About ${ext}`, copyright: 'CC0', tags: [ext] });
      const res = await download(a.id, '&embed_metadata=true');
      expect(res.headers['metadata-embedded'], ext).toBe('true');
      expect(await files.read(res.rawPayload, ext)).toMatchObject({ 'XMP:Description': `About ${ext}`, 'XMP:Rights': 'CC0', 'XMP:Subject': ext });
    }
  });

  it('sends types ExifTool cannot write, and files it fails to rewrite, as stored, saying so', async () => {
    const text = Buffer.from('plain text notes\n');
    const notes = await upload(text, 'notes.txt', 'text/plain');
    // A JPEG cut inside its first segment: ExifTool refuses to rewrite it.
    const cut = (await twoColourJpeg(64, 48)).subarray(0, 30);
    const broken = await upload(cut, 'cut.jpg', 'image/jpeg');
    await t.app.jobs.drain();
    await edit(notes.id, { caption: 'Not written' });
    await edit(broken.id, { caption: 'Not written either' });

    const whole = await download(notes.id, '&embed_metadata=true');
    expect(whole.statusCode).toBe(200);
    expect(whole.headers['metadata-embedded']).toBe('false');
    expect(whole.rawPayload.equals(text)).toBe(true);
    // Unchanged bytes: ranges work as without the parameter.
    const part = await download(notes.id, '&embed_metadata=true', { range: 'bytes=0-4' });
    expect(part.statusCode).toBe(206);
    expect(part.rawPayload.toString()).toBe('plain');

    const refused = await download(broken.id, '&embed_metadata=true');
    expect(refused.statusCode).toBe(200);
    expect(refused.headers['metadata-embedded']).toBe('false');
    expect(refused.rawPayload.equals(cut)).toBe(true);
    expect(await leftovers()).toEqual([]);
  });

  it('before the file was read, writes values only: its keywords stay and the tags join them, nothing is removed', async () => {
    const original = await files.withTags(await twoColourJpeg(64, 48), 'jpg', {
      'IPTC:Keywords': ['orig'],
      'XMP-dc:Subject': ['orig'],
      'IPTC:CopyrightNotice': '(c) kept',
    });
    const asset = await upload(original, 'early.jpg', 'image/jpeg');
    // No drain: the job that reads the file has not run (metadata_version_id is null).
    await edit(asset.id, { caption: 'Early caption', tags: ['extra'] });
    const res = await download(asset.id, '&embed_metadata=true');
    expect(res.headers['metadata-embedded']).toBe('true');
    const tags = await files.read(res.rawPayload, 'jpg');
    expect(tags).toMatchObject({ 'XMP:Description': 'Early caption', 'IPTC:CopyrightNotice': '(c) kept' });
    expect([...(tags['XMP:Subject'] as string[])].sort()).toEqual(['extra', 'orig']);
    expect([...(tags['IPTC:Keywords'] as string[])].sort()).toEqual(['extra', 'orig']);
    await t.app.jobs.drain();
  });
});
