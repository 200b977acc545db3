import { randomBytes } from 'node:crypto';
import contentDisposition from 'content-disposition';
import yazl from 'yazl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { dialects, tempDir } from './helpers/databases.js';
import { expectError, makeFolder, makeTeam, type Team } from './helpers/catalog-factories.js';
import { makeJpeg, STORE_KINDS, startS3Server, startStorageApp, type S3Server, type StorageTestApp } from './helpers/uploads.js';
import { collect, rawZip, uploadAsset } from './helpers/zip.js';

const combos = dialects.flatMap((dialect) => STORE_KINDS.map((store) => [dialect, store] as const));
const MiB = 1024 * 1024;

interface Listed {
  name: string;
  size: number;
  compressed_size: number;
  crc32: number;
  is_dir: boolean;
  encrypted: boolean;
  modified_at: number;
  problem: string | null;
}

interface ImportJson {
  id: number;
  status: string;
  total_entries: number | null;
  processed_entries: number;
  imported: number;
  skipped: number;
  failed: number;
  progress: number;
  bytes_written: number;
  error: string | null;
  entries: { items: { index: number; name: string; kind: string; outcome: string; reason: string | null; asset_id: number | null; folder_id: number | null }[]; total: number };
}

/** A well-formed archive written by yazl: folders, a stored JPEG, deflated text, non-ASCII names. */
async function goodZip(jpeg: Buffer): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  const mtime = new Date(1_700_000_000_000);
  zip.addEmptyDirectory('docs/', { mtime });
  zip.addBuffer(Buffer.from('read me\n'.repeat(500)), 'docs/readme.txt', { mtime });
  zip.addBuffer(jpeg, 'photos/beach.jpg', { mtime, compress: false });
  zip.addBuffer(Buffer.from('grüße'), 'Über/ünïcödé.txt', { mtime });
  zip.addEmptyDirectory('empty/', { mtime });
  zip.end();
  return collect(zip.outputStream);
}

/** Every kind of hostile entry, and one good one. */
function hostileZip(): Buffer {
  return rawZip([
    { name: '../evil.txt', data: Buffer.from('slip') },
    { name: '/etc/cron.d/evil', data: Buffer.from('abs') },
    { name: 'C:/Windows/evil.dll', data: Buffer.from('drive') },
    { name: Buffer.from('dir\\..\\..\\evil.txt', 'latin1'), data: Buffer.from('backslash') },
    { name: 'bell\u0007.txt', data: Buffer.from('control') },
    { name: 'link', data: Buffer.from('/etc/passwd'), unixMode: 0o120777 },
    // Traditional encryption: a 12-byte header before the data, so 12 bytes more stored than declared.
    { name: 'secret.txt', data: Buffer.from('0123456789ab-encrypted'), flags: 1, size: 10 },
    { name: 'lzma.bin', data: Buffer.from('not really lzma'), method: 14 },
    { name: 'fine.txt', data: Buffer.from('all good') },
  ]);
}

describe.each(combos)('stored ZIPs on %s with the %s store', (dialect, store) => {
  let s3: S3Server | undefined;
  let t: StorageTestApp;
  let team: Team;
  let jpeg: Buffer;
  let good: number;
  let hostile: number;

  beforeAll(async () => {
    if (store === 's3') s3 = await startS3Server();
    t = await startStorageApp(store, s3, { dialect, config: { zip: { downloadMaxEntries: 1000, maxEntries: 20, maxUncompressed: 64 * MiB, maxRatio: 100, linkTtl: 300 } } });
    team = await makeTeam(t);
    jpeg = await makeJpeg(160, 120);
    good = await uploadAsset(t, team.owner, { bytes: await goodZip(jpeg), name: 'good.zip', type: 'application/zip' });
    hostile = await uploadAsset(t, team.owner, { bytes: hostileZip(), name: 'hostile.zip', type: 'application/zip' });
  });
  afterAll(async () => {
    await t?.close();
    await s3?.close();
  });

  const list = (who: { token: string }, assetId: number, query = '') =>
    t.request({ method: 'GET', url: `/zip/list?assetId=${assetId}${query}`, token: who.token });
  const extract = (who: { token: string }, assetId: number, path: string) =>
    t.request({ method: 'GET', url: `/zip/extract?assetId=${assetId}&path=${encodeURIComponent(path)}`, token: who.token });
  const startImport = (who: { token: string }, body: object, key?: string) =>
    t.request({ method: 'POST', url: '/zip/extract', token: who.token, payload: body, headers: key ? { 'idempotency-key': key } : {} });
  const importStatus = async (who: { token: string }, id: number, query = ''): Promise<ImportJson> => {
    const res = await t.request({ method: 'GET', url: `/zip/extract/${id}${query}`, token: who.token });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ data: ImportJson }>().data;
  };

  it('lists the central directory, paged, for viewers', async () => {
    const res = await list(team.viewer, good, '&per_page=2&page=2');
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json<{ data: { items: Listed[]; total: number; page: number; per_page: number } }>().data;
    expect(data).toMatchObject({ total: 5, page: 2, per_page: 2 });
    expect(data.items.map((e) => e.name)).toEqual(['photos/beach.jpg', 'Über/ünïcödé.txt']);
    expect(data.items[0]).toMatchObject({ size: jpeg.length, compressed_size: jpeg.length, is_dir: false, encrypted: false, problem: null, modified_at: 1_700_000_000 });
    const all = res.json<{ data: { items: Listed[] } }>().data.items;
    expect(all.every((e) => Number.isInteger(e.crc32))).toBe(true);
    const first = (await list(team.viewer, good)).json<{ data: { items: Listed[] } }>().data.items;
    expect(first.filter((e) => e.is_dir).map((e) => e.name)).toEqual(['docs/', 'empty/']);
    expect((await list(team.viewer, good, '&page=9')).json<{ data: { items: Listed[] } }>().data.items).toEqual([]);
  });

  it('lists hostile entries with their problem', async () => {
    const items = (await list(team.owner, hostile)).json<{ data: { items: Listed[] } }>().data.items;
    expect(items.map((e) => [e.name, e.problem])).toEqual([
      ['../evil.txt', 'unsafe_name'],
      ['/etc/cron.d/evil', 'unsafe_name'],
      ['C:/Windows/evil.dll', 'unsafe_name'],
      ['dir/../../evil.txt', 'unsafe_name'],
      ['bell\u0007.txt', 'unsafe_name'],
      ['link', 'symlink'],
      ['secret.txt', 'encrypted'],
      ['lzma.bin', 'unsupported_compression'],
      ['fine.txt', null],
    ]);
    expect(items.find((e) => e.name === 'secret.txt')!.encrypted).toBe(true);
  });

  it('answers 422 ZIP_INVALID for a non-ZIP or truncated asset, and 404 across workspaces', async () => {
    const notZip = await uploadAsset(t, team.owner, { bytes: Buffer.from('just text, no archive'), name: 'a.txt', type: 'text/plain' });
    expectError(await list(team.owner, notZip), 422, 'ZIP_INVALID');
    const whole = await goodZip(jpeg);
    const cut = await uploadAsset(t, team.owner, { bytes: whole.subarray(0, whole.length - 30), name: 'cut.zip', type: 'application/zip' });
    expectError(await list(team.owner, cut), 422, 'ZIP_INVALID');
    expectError(await extract(team.owner, cut, 'docs/readme.txt'), 422, 'ZIP_INVALID');
    expectError(await list(team.outsider, good), 404, 'NOT_FOUND');
    expectError(await extract(team.outsider, good, 'docs/readme.txt'), 404, 'NOT_FOUND');
    expectError(await startImport(team.outsider, { assetId: good }), 404, 'NOT_FOUND');
  });

  it('streams one entry with its guessed type as a nosniff attachment', async () => {
    const res = await extract(team.viewer, good, 'photos/beach.jpg');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('image/jpeg');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(contentDisposition.parse(String(res.headers['content-disposition']))).toEqual({ type: 'attachment', parameters: { filename: 'beach.jpg' } });
    expect(res.rawPayload.equals(jpeg)).toBe(true);
    const text = await extract(team.viewer, good, 'Über/ünïcödé.txt');
    expect(text.statusCode).toBe(200);
    expect(text.body).toBe('grüße');
    expect(String(text.headers['content-disposition'])).toContain("filename*=UTF-8''%C3%BCn%C3%AFc%C3%B6d%C3%A9.txt");
    expectError(await extract(team.viewer, good, 'nope.txt'), 404, 'NOT_FOUND');
    expectError(await extract(team.viewer, good, 'docs/'), 422, 'ZIP_ENTRY_UNSUPPORTED');
  });

  it('never extracts hostile entries one by one', async () => {
    expectError(await extract(team.owner, hostile, 'secret.txt'), 422, 'ZIP_ENTRY_ENCRYPTED');
    for (const name of ['../evil.txt', '/etc/cron.d/evil', 'link', 'lzma.bin', 'dir/../../evil.txt']) {
      expectError(await extract(team.owner, hostile, name), 422, 'ZIP_ENTRY_UNSUPPORTED');
    }
    const fine = await extract(team.owner, hostile, 'fine.txt');
    expect(fine.statusCode).toBe(200);
    expect(fine.body).toBe('all good');
  });

  it('holds bombs and liars to the bytes actually inflated, and checks the CRC', async () => {
    const zeros = Buffer.alloc(30 * MiB);
    const bomb = await uploadAsset(t, team.owner, { bytes: rawZip([{ name: 'bomb.bin', data: zeros, method: 8 }]), name: 'bomb.zip', type: 'application/zip' });
    // Declared honestly: refused before the first byte.
    const declared = await extract(team.owner, bomb, 'bomb.bin');
    expectError(declared, 422, 'ZIP_LIMIT_EXCEEDED');
    expect(declared.json<{ limit: string }>().limit).toBe('ratio');

    // Declared as 1,000 bytes: refused as soon as more arrive, before the first byte went out.
    const liar = await uploadAsset(t, team.owner, {
      bytes: rawZip([{ name: 'liar.bin', data: zeros, method: 8, size: 1000 }]),
      name: 'liar.zip',
      type: 'application/zip',
    });
    expectError(await extract(team.owner, liar, 'liar.bin'), 422, 'ZIP_INVALID');
    // Declared as 2 MiB: the answer is under way when the lie shows, so the connection is cut.
    const late = await uploadAsset(t, team.owner, {
      bytes: rawZip([{ name: 'late.bin', data: zeros, method: 8, size: 2 * MiB }]),
      name: 'late.zip',
      type: 'application/zip',
    });
    const cut = await fetch(`${t.baseUrl}/zip/extract?assetId=${late}&path=late.bin`, { headers: { authorization: `Bearer ${team.owner.token}` } });
    expect(cut.status).toBe(200);
    await expect(cut.arrayBuffer()).rejects.toThrow();

    // A wrong CRC-32: the last chunk is held back until the check, so nothing passes as whole.
    const crc = await uploadAsset(t, team.owner, { bytes: rawZip([{ name: 'bad.txt', data: Buffer.from('hello'), crc32: 1234 }]), name: 'crc.zip', type: 'application/zip' });
    expectError(await extract(team.owner, crc, 'bad.txt'), 422, 'ZIP_INVALID');

    // Imports: the bomb stops past the ratio cap, the liar and the bad CRC fail; no asset comes of them.
    const both = await uploadAsset(t, team.owner, {
      bytes: rawZip([
        { name: 'bomb.bin', data: zeros, method: 8 },
        { name: 'liar.bin', data: zeros, method: 8, size: 1000 },
        { name: 'bad.txt', data: Buffer.from('hello'), crc32: 1234 },
        { name: 'ok.txt', data: Buffer.from('fine') },
      ]),
      name: 'bombs.zip',
      type: 'application/zip',
    });
    const started = await startImport(team.manager, { assetId: both });
    expect(started.statusCode, started.body).toBe(202);
    await t.app.jobs.drain();
    const done = await importStatus(team.manager, started.json<{ data: ImportJson }>().data.id);
    expect(done).toMatchObject({ status: 'succeeded', total_entries: 4, imported: 1, skipped: 1, failed: 2, progress: 1 });
    expect(done.entries.items.map((e) => [e.name, e.outcome, e.reason])).toEqual([
      ['bomb.bin', 'skipped', 'limit'],
      ['liar.bin', 'failed', 'corrupt'],
      ['bad.txt', 'failed', 'corrupt'],
      ['ok.txt', 'imported', null],
    ]);
    // Counted as written: a little over the 1 MiB after which the ratio applies, not the 30 MiB declared.
    expect(done.bytes_written).toBeLessThan(4 * MiB);
  });

  it('refuses imports over the entry count or the declared byte budget at once', async () => {
    const many = await uploadAsset(t, team.owner, {
      bytes: rawZip(Array.from({ length: 21 }, (_, i) => ({ name: `f${i}.txt`, data: Buffer.from('x') }))),
      name: 'many.zip',
      type: 'application/zip',
    });
    const tooMany = await startImport(team.owner, { assetId: many });
    expectError(tooMany, 422, 'ZIP_LIMIT_EXCEEDED');
    expect(tooMany.json<{ limit: string }>().limit).toBe('entries');
    const huge = await uploadAsset(t, team.owner, {
      bytes: rawZip([{ name: 'huge.bin', data: randomBytes(10), method: 8, size: 100 * MiB }]),
      name: 'huge.zip',
      type: 'application/zip',
    });
    const tooBig = await startImport(team.owner, { assetId: huge });
    expectError(tooBig, 422, 'ZIP_LIMIT_EXCEEDED');
    expect(tooBig.json<{ limit: string }>().limit).toBe('bytes');
  });

  it('imports an archive on the job queue: directories become folders, files assets with thumbnails', async () => {
    const { owner, manager, viewer, ws } = team;
    const target = await makeFolder(t, owner, ws, { name: 'Imported' });
    expectError(await startImport(viewer, { assetId: good, folder_id: target.id }), 403, 'FORBIDDEN');
    expectError(await startImport(manager, { assetId: good, folder_id: 999_999 }), 400, 'VALIDATION_ERROR');

    const started = await startImport(manager, { assetId: good, folder_id: target.id }, 'zip-import-1');
    expect(started.statusCode, started.body).toBe(202);
    const job = started.json<{ data: ImportJson }>().data;
    expect(job).toMatchObject({ status: 'queued', processed_entries: 0, progress: 0 });
    const replay = await startImport(manager, { assetId: good, folder_id: target.id }, 'zip-import-1');
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json<{ data: ImportJson }>().data.id).toBe(job.id);

    await t.app.jobs.drain();
    const done = await importStatus(viewer, job.id);
    expect(done).toMatchObject({ status: 'succeeded', total_entries: 5, processed_entries: 5, imported: 5, skipped: 0, failed: 0, progress: 1, error: null });
    const byName = new Map(done.entries.items.map((e) => [e.name, e]));
    const photo = byName.get('photos/beach.jpg')!;
    expect(photo.asset_id).not.toBeNull();
    const asset = await t.request({ method: 'GET', url: `/dam/assets/${photo.asset_id}`, token: viewer.token });
    expect(asset.json<{ data: { file_name: string; mime_type: string; folder_id: number; file_size: number } }>().data).toMatchObject({
      file_name: 'beach.jpg',
      mime_type: 'image/jpeg',
      file_size: jpeg.length,
    });
    const photosFolder = asset.json<{ data: { folder_id: number } }>().data.folder_id;
    const folder = await t.request({ method: 'GET', url: `/dam/folders/${photosFolder}`, token: viewer.token });
    expect(folder.json<{ data: { name: string; parent_id: number } }>().data).toMatchObject({ name: 'photos', parent_id: target.id });
    expect(byName.get('empty/')).toMatchObject({ kind: 'directory', outcome: 'imported' });
    expect(byName.get('Über/ünïcödé.txt')!.outcome).toBe('imported');
    const versions = await t.request({ method: 'GET', url: `/dam/assets/${photo.asset_id}/versions`, token: viewer.token });
    expect(versions.json<{ preview_status: string }[]>()[0]!.preview_status).toBe('ready');
    const readme = await t.request({ method: 'GET', url: `/dam/assets/${byName.get('docs/readme.txt')!.asset_id}`, token: viewer.token });
    expect(readme.json<{ data: { file_size: number } }>().data.file_size).toBe(4000);

    // Paged results; other workspaces see nothing.
    const page = await importStatus(viewer, job.id, '?per_page=2&page=3');
    expect(page.entries.items.map((e) => e.index)).toEqual([4]);
    expectError(await t.request({ method: 'GET', url: `/zip/extract/${job.id}`, token: team.outsider.token }), 404, 'NOT_FOUND');
  });

  it('imports the good entries of a hostile archive and reports the others, never followed', async () => {
    const started = await startImport(team.owner, { assetId: hostile });
    expect(started.statusCode, started.body).toBe(202);
    await t.app.jobs.drain();
    const done = await importStatus(team.owner, started.json<{ data: ImportJson }>().data.id);
    expect(done).toMatchObject({ status: 'succeeded', imported: 1, skipped: 8, failed: 0 });
    expect(done.entries.items.map((e) => [e.name, e.outcome, e.reason])).toEqual([
      ['../evil.txt', 'skipped', 'unsafe_name'],
      ['/etc/cron.d/evil', 'skipped', 'unsafe_name'],
      ['C:/Windows/evil.dll', 'skipped', 'unsafe_name'],
      ['dir/../../evil.txt', 'skipped', 'unsafe_name'],
      ['bell\u0007.txt', 'skipped', 'unsafe_name'],
      ['link', 'skipped', 'symlink'],
      ['secret.txt', 'skipped', 'encrypted'],
      ['lzma.bin', 'skipped', 'unsupported_compression'],
      ['fine.txt', 'imported', null],
    ]);
  });
});

describe('ZIP configuration', () => {
  const env = (vars: Record<string, string> = {}) => ({ DAM_DATA_DIR: tempDir('dam-config-'), DAM_JWT_SECRET: 's'.repeat(32), ...vars });

  it('reads DAM_ZIP_* with their documented defaults', () => {
    expect(loadConfig(env()).zip).toEqual({ downloadMaxEntries: 100_000, maxEntries: 10_000, maxUncompressed: 10 * 1024 ** 3, maxRatio: 100, linkTtl: 300 });
    expect(
      loadConfig(env({ DAM_ZIP_DOWNLOAD_MAX_ENTRIES: '70000', DAM_ZIP_MAX_ENTRIES: '50', DAM_ZIP_MAX_UNCOMPRESSED: '1048576', DAM_ZIP_MAX_RATIO: '20', DAM_ZIP_LINK_TTL: '60' })).zip,
    ).toEqual({ downloadMaxEntries: 70_000, maxEntries: 50, maxUncompressed: 1_048_576, maxRatio: 20, linkTtl: 60 });
    expect(() => loadConfig(env({ DAM_ZIP_MAX_RATIO: '0' }))).toThrow(/DAM_ZIP_MAX_RATIO/);
    expect(() => loadConfig(env({ DAM_ZIP_LINK_TTL: '5' }))).toThrow(/DAM_ZIP_LINK_TTL/);
    expect(() => loadConfig(env({ DAM_ZIP_MAX_ENTRIES: 'many' }))).toThrow(ConfigError);
  });
});
