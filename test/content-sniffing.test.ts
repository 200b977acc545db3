import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { locateFfmpeg } from '../src/media/ffmpeg.js';
import { tempDir, dialects } from './helpers/databases.js';
import { registerUser, type Account } from './helpers/factories.js';
import {
  completeRequest,
  downloadRequest,
  keyOf,
  splitBytes,
  startS3Server,
  startStorageApp,
  startUploadRequest,
  uploadFile,
  uploadParts,
  type S3Server,
  type StorageTestApp,
} from './helpers/uploads.js';
import {
  getAssetJson,
  listVersions,
  pathOf,
  serverUpload,
  text,
  uploadVersion,
  type AssetJson,
  type VersionJson,
} from './helpers/versions.js';

/**
 * Issue #10: a stored file's type comes from its first bytes (file-type), not from the client's
 * claim; active content is only ever an attachment; uploaded file names keep their base name.
 */

const ffmpegPath = await locateFfmpeg(undefined);

const png = (width = 40, height = 30): Promise<Buffer> =>
  sharp({ create: { width, height, channels: 3, background: '#3366cc' } }).png().toBuffer();

/** A 2 s, 320 x 240 H.264 MP4 of ffmpeg's test pattern. */
function testVideo(ffmpeg: string): Buffer {
  const file = path.join(tempDir('dam-video-'), 'clip.mp4');
  execFileSync(ffmpeg, ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=duration=2:size=320x240:rate=10', '-pix_fmt', 'yuv420p', file]);
  return readFileSync(file);
}

/** A ZIP with one stored entry and no central directory: file-type can only call it application/zip. */
function bareZip(): Buffer {
  const name = Buffer.from('content.txt');
  const data = Buffer.from('hello');
  const header = Buffer.alloc(30);
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(20, 4);
  header.writeUInt32LE(data.length, 18);
  header.writeUInt32LE(data.length, 22);
  header.writeUInt16LE(name.length, 26);
  return Buffer.concat([header, name, data]);
}

const HTML = '<!DOCTYPE html><html><body><script>alert(document.cookie)</script></body></html>';
const SVG = '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>';

/** The file names of the three upload paths and what each is kept as. */
const NAMES: [sent: string, kept: string][] = [
  ['../../../../tmp/evil.png', 'evil.png'],
  ['/etc/passwd', 'passwd'],
  ['C:\\x\\y.png', 'y.png'],
  ['in\u0000vo\u0007ice\u001b\u007f\u0085\u202e\u2066fdp.exe', 'invoicefdp.exe'],
  ['\u202e\u0001', 'untitled'],
];

/** The multipart flow (start-upload, parts, complete-upload) with any start-upload query; answers the completion. */
async function flowUpload(t: StorageTestApp, who: Account, bytes: Buffer, query: Record<string, string | number>) {
  const started = await startUploadRequest(t, who, { workspaceId: who.workspaceId, ...query });
  expect(started.statusCode, started.body).toBe(200);
  const ref = { ...started.json<{ uploadId: string; assetId: number }>(), workspaceId: who.workspaceId };
  const parts = await uploadParts(t, who, ref, splitBytes(bytes, Math.max(5, Math.ceil(bytes.length / 2))));
  const done = await completeRequest(t, who, ref, parts);
  expect(done.statusCode, done.body).toBe(200);
  return { ref, key: done.json<{ key: string }>().key };
}

async function currentVersion(t: StorageTestApp, who: Account, assetId: number): Promise<VersionJson> {
  return (await listVersions(t, who, assetId))[0]!;
}

async function sessionMimeType(t: StorageTestApp, uploadId: string): Promise<string> {
  const row = await t.database.db.selectFrom('upload_sessions').select('mime_type').where('id', '=', uploadId).executeTakeFirstOrThrow();
  return row.mime_type;
}

/** Every route that serves a stored file answers it as an attachment with nosniff and the recorded type. */
async function expectServedAsAttachment(t: StorageTestApp, who: Account, asset: AssetJson, version: VersionJson, mimeType: string): Promise<void> {
  const served = [
    ['/storage/download (asset key)', await downloadRequest(t, who, keyOf({ workspaceId: asset.workspace_id, assetId: asset.id }), asset.workspace_id)],
    ['/dam/versions/:id/download', await t.request({ method: 'GET', url: `/dam/versions/${version.id}/download`, token: who.token })],
    ['/media/versions/:id/file', await t.request({ method: 'GET', url: pathOf(version.file_url) })],
  ] as const;
  if (version.version !== 'v1') {
    const versionKey = `${keyOf({ workspaceId: asset.workspace_id, assetId: asset.id })}/versions/${version.id}`;
    const res = await downloadRequest(t, who, versionKey, asset.workspace_id);
    expect(res.statusCode, `/storage/download (version key) ${res.body}`).toBe(200);
    expect(res.headers['content-disposition']).toMatch(/^attachment;/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  }
  for (const [route, res] of served) {
    expect(res.statusCode, `${route} ${res.body}`).toBe(200);
    expect(res.headers['content-type'], route).toBe(mimeType);
    expect(res.headers['content-disposition'], route).toMatch(/^attachment;/);
    expect(res.headers['x-content-type-options'], route).toBe('nosniff');
  }
}

describe.each(dialects)('content sniffing on %s (local store)', (dialect) => {
  let t: StorageTestApp;
  let owner: Account;

  beforeAll(async () => {
    t = await startStorageApp('local', undefined, { dialect });
    owner = await registerUser(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('records PNG bytes claimed as text/html at start-upload as image/png once complete-upload has read them', async () => {
    const bytes = await png(40, 30);
    const { ref } = await uploadFile(t, owner, bytes, { fileType: 'text/html', fileName: 'page.html' });
    const asset = await getAssetJson(t, owner, ref.assetId);
    expect(asset).toMatchObject({ mime_type: 'image/png', file_type: 'image', width: 40, height: 30, orientation: 'landscape' });
    expect(await sessionMimeType(t, ref.uploadId)).toBe('image/png');
    await t.app.jobs.drain();
    const v1 = await currentVersion(t, owner, ref.assetId);
    expect(v1).toMatchObject({ mime_type: 'image/png', preview_status: 'ready' });
    const file = await t.request({ method: 'GET', url: pathOf(v1.file_url) });
    expect(file.headers['content-type']).toBe('image/png');
    expect(file.headers['content-disposition']).toMatch(/^inline;/);
    const download = await downloadRequest(t, owner, keyOf(ref), ref.workspaceId);
    expect(download.headers['content-type']).toBe('image/png');
    expect(Buffer.compare(download.rawPayload, bytes)).toBe(0);
  });

  it.skipIf(!ffmpegPath && process.env.CI !== 'true')('makes an MP4 sent as application/octet-stream (curl -F) a video with a poster', async () => {
    if (!ffmpegPath) throw new Error('ffmpeg is not installed: `apt-get install ffmpeg` (.ci/run installs it)');
    const asset = await serverUpload(t, owner, { bytes: testVideo(ffmpegPath), name: 'clip.mp4', type: 'application/octet-stream' });
    expect(asset).toMatchObject({ mime_type: 'video/mp4', file_type: 'video' });
    await t.app.jobs.drain();
    const v1 = await currentVersion(t, owner, asset.id);
    expect(v1).toMatchObject({ mime_type: 'video/mp4', preview_status: 'ready' });
    const poster = await t.request({ method: 'GET', url: pathOf(v1.thumbnail_url) });
    expect(poster.statusCode).toBe(200);
    expect(await sharp(poster.rawPayload).metadata()).toMatchObject({ format: 'webp', width: 256, height: 192 });
  });

  it('follows the bytes of a version whose claimed type is wrong, on both version upload paths', async () => {
    const asset = await serverUpload(t, owner, text('first draft'));
    expect(asset).toMatchObject({ mime_type: 'text/plain', file_type: 'document' });

    const v2 = await uploadVersion(t, owner, asset.id, { bytes: await png(20, 50), name: 'scan.txt', type: 'text/plain' });
    expect(v2.mime_type).toBe('image/png');
    expect(await getAssetJson(t, owner, asset.id)).toMatchObject({ mime_type: 'image/png', file_type: 'image', width: 20, height: 50, orientation: 'portrait' });

    const jpeg = await sharp({ create: { width: 30, height: 30, channels: 3, background: '#0a0' } }).jpeg().toBuffer();
    const { ref } = await flowUpload(t, owner, jpeg, { fileType: 'application/pdf', fileName: 'photo.pdf', assetId: asset.id });
    expect(await sessionMimeType(t, ref.uploadId)).toBe('image/jpeg');
    await t.app.jobs.drain();
    const [v3, second] = await listVersions(t, owner, asset.id);
    expect(v3).toMatchObject({ version: 'v3', mime_type: 'image/jpeg', preview_status: 'ready' });
    expect(second).toMatchObject({ version: 'v2', mime_type: 'image/png', preview_status: 'ready' });
    expect(await getAssetJson(t, owner, asset.id)).toMatchObject({ mime_type: 'image/jpeg', file_type: 'image', width: 30, height: 30, orientation: 'square' });
  });

  it('keeps the claim when the bytes are not recognised, and a more precise claim of a generic container', async () => {
    const csv = await serverUpload(t, owner, text('a,b\n1,2\n', 'table.csv', 'text/csv'));
    expect(csv).toMatchObject({ mime_type: 'text/csv', file_type: 'document' });
    const { ref } = await flowUpload(t, owner, Buffer.from('plain words, nothing more'), { fileType: 'text/markdown', fileName: 'notes.md' });
    expect(await getAssetJson(t, owner, ref.assetId)).toMatchObject({ mime_type: 'text/markdown', file_type: 'document' });
    const version = await uploadVersion(t, owner, csv.id, text('print("hi")', 'hi.py', 'text/x-python'));
    expect(version.mime_type).toBe('text/x-python');

    // A ZIP is only "a ZIP" to file-type: an EPUB claim is more precise; an HTML claim is contradicted.
    const epub = await serverUpload(t, owner, { bytes: bareZip(), name: 'book.epub', type: 'application/epub+zip' });
    expect(epub).toMatchObject({ mime_type: 'application/epub+zip', file_type: 'document' });
    const zip = await serverUpload(t, owner, { bytes: bareZip(), name: 'page.html', type: 'text/html' });
    expect(zip).toMatchObject({ mime_type: 'application/zip', file_type: 'archive' });
    // SVG with an XML prologue: file-type says application/xml, the claim says which XML.
    const svg = await serverUpload(t, owner, { bytes: Buffer.from(SVG), name: 'logo.svg', type: 'image/svg+xml' });
    expect(svg).toMatchObject({ mime_type: 'image/svg+xml', file_type: 'image' });
  });

  it('records markup claimed as an image as the markup it is', async () => {
    const page = await serverUpload(t, owner, { bytes: Buffer.from(`\n  ${HTML}`), name: 'cat.png', type: 'image/png' });
    expect(page).toMatchObject({ mime_type: 'text/html', file_type: 'document' });
    const svg = await serverUpload(t, owner, { bytes: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), name: 'cat.gif', type: 'image/gif' });
    expect(svg).toMatchObject({ mime_type: 'image/svg+xml', file_type: 'image' });
    const { ref } = await flowUpload(t, owner, Buffer.from(HTML), { fileType: 'video/mp4', fileName: 'clip.mp4' });
    expect(await getAssetJson(t, owner, ref.assetId)).toMatchObject({ mime_type: 'text/html', file_type: 'document' });
    const v1 = await currentVersion(t, owner, ref.assetId);
    const file = await t.request({ method: 'GET', url: pathOf(v1.file_url) });
    expect(file.headers['content-disposition']).toMatch(/^attachment;/);
  });

  it('serves uploaded HTML and SVG as attachments with nosniff from every route that serves a file', async () => {
    const page = await serverUpload(t, owner, { bytes: Buffer.from(HTML), name: 'page.html', type: 'text/html' });
    await expectServedAsAttachment(t, owner, page, await currentVersion(t, owner, page.id), 'text/html');

    const svgVersion = await uploadVersion(t, owner, page.id, { bytes: Buffer.from(SVG), name: 'logo.svg', type: 'image/svg+xml' });
    await expectServedAsAttachment(t, owner, await getAssetJson(t, owner, page.id), svgVersion, 'image/svg+xml');

    const { ref } = await flowUpload(t, owner, Buffer.from(SVG), { fileType: 'image/svg+xml', fileName: 'flow.svg' });
    const flowAsset = await getAssetJson(t, owner, ref.assetId);
    await expectServedAsAttachment(t, owner, flowAsset, await currentVersion(t, owner, ref.assetId), 'image/svg+xml');
    await t.app.jobs.drain();
    expect(await currentVersion(t, owner, ref.assetId)).toMatchObject({ preview_status: 'unavailable' });
  });

  it('keeps only the base name of uploaded file names, without control or bidirectional characters, on all three upload paths', async () => {
    const bytes = Buffer.from('some text');
    for (const [sent, kept] of NAMES) {
      const { ref } = await flowUpload(t, owner, bytes, { fileType: 'text/plain', fileName: sent });
      expect(await getAssetJson(t, owner, ref.assetId), `start-upload ${JSON.stringify(sent)}`).toMatchObject({ file_name: kept, display_file_name: kept });

      const served = await serverUpload(t, owner, { bytes, name: sent, type: 'text/plain' });
      expect(served, `upload-asset ${JSON.stringify(sent)}`).toMatchObject({ file_name: kept, display_file_name: kept });

      const version = await uploadVersion(t, owner, served.id, { bytes, name: sent, type: 'text/plain' });
      expect(version.file_name, `version upload ${JSON.stringify(sent)}`).toBe(kept);
    }

    // A new version whose name is nothing once cleaned keeps the asset's name.
    const asset = await serverUpload(t, owner, text('x', 'report.txt'));
    expect((await uploadVersion(t, owner, asset.id, text('y', '\u202e'))).file_name).toBe('report.txt');
    await flowUpload(t, owner, bytes, { fileType: 'text/plain', fileName: '../\u0000', assetId: asset.id });
    expect((await currentVersion(t, owner, asset.id)).file_name).toBe('report.txt');
    await flowUpload(t, owner, bytes, { fileType: 'text/plain', fileName: '..\\..\\v4.txt', assetId: asset.id });
    const v4 = await currentVersion(t, owner, asset.id);
    expect(v4).toMatchObject({ version: 'v4', file_name: 'v4.txt' });
    const download = await t.request({ method: 'GET', url: `/dam/versions/${v4.id}/download`, token: owner.token });
    expect(download.headers['content-disposition']).toBe('attachment; filename="v4.txt"');
  });

  it('sniffs a multipart-form file part sent without a declared type', async () => {
    // The part carries no Content-Type header at all (busboy reads it as text/plain).
    const boundary = 'sniffboundary';
    const bytes = await png(8, 8);
    const payload = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="workspaceId"\r\n\r\n${owner.workspaceId}\r\n`),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="dot"\r\n\r\n`),
      bytes,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const res = await t.request({
      method: 'POST',
      url: '/api/upload-asset',
      token: owner.token,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload,
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json<{ data: AssetJson }>().data).toMatchObject({ mime_type: 'image/png', file_type: 'image', width: 8, height: 8 });
  });
});

describe('content sniffing on the s3 store', () => {
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

  it('reads the first bytes of the joined object with a range read and records its real type', async () => {
    const bytes = await png(64, 16);
    const { ref } = await uploadFile(t, owner, bytes, { fileType: 'text/html', fileName: '../../evil.html' });
    expect(await getAssetJson(t, owner, ref.assetId)).toMatchObject({
      mime_type: 'image/png',
      file_type: 'image',
      width: 64,
      height: 16,
      file_name: 'evil.html',
    });
    const served = await uploadVersion(t, owner, ref.assetId, { bytes: Buffer.from(HTML), name: 'x.png', type: 'image/png' });
    expect(served.mime_type).toBe('text/html');
    const file = await fetch(served.file_url);
    expect(file.headers.get('content-disposition')).toMatch(/^attachment;/);
    expect(file.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
