import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from './helpers/app.js';
import { expectError, makeFolder, makeTeam, type Team } from './helpers/catalog-factories.js';
import { dialects } from './helpers/databases.js';
import { addArchive, driveHelpers, GDRIVE, importStatus, settleImport, sha256, storedBytes, type DriveItemJson, type ImportJson } from './helpers/drives.js';
import { startFakeGoogleDrive, type FakeGoogleDrive } from './helpers/fake-gdrive.js';
import { registerUser } from './helpers/factories.js';
import { startS3Server, type S3Server } from './helpers/uploads.js';
import { getAssetJson, listVersions, serverUpload } from './helpers/versions.js';

const { startDriveApp, connect, startImport } = driveHelpers(GDRIVE);

interface FolderRow {
  id: number;
  name: string;
  parent_id: number | null;
}

/** Imports from Google Drive (drive-ext-1) through the job queue, against test/helpers/fake-gdrive.ts, on every dialect. */
describe.each(dialects)('Google Drive imports (%s)', (dialect) => {
  let fake: FakeGoogleDrive;
  let t: TestApp;
  let team: Team;
  const logs: string[] = [];
  const answers: string[] = [];

  beforeAll(async () => {
    fake = await startFakeGoogleDrive();
    t = await startDriveApp(fake, { dialect, logs, answers });
    team = await makeTeam(t);
    await connect(t, fake, team.manager);
  });
  afterEach(() => {
    fake.failures = [];
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  const foldersOf = (ws: number): Promise<FolderRow[]> =>
    t.database.db.selectFrom('folders').select(['id', 'name', 'parent_id']).where('workspace_id', '=', ws).where('deleted_at', 'is', null).execute();
  const assetsIn = (ws: number, folderId: number | null) => {
    let q = t.database.db.selectFrom('assets').select(['id', 'file_name', 'file_size', 'mime_type', 'folder_id']).where('workspace_id', '=', ws).where('status', '=', 'ready');
    q = folderId === null ? q.where('folder_id', 'is', null) : q.where('folder_id', '=', folderId);
    return q.execute();
  };
  const assetCount = async (ws: number) =>
    Number((await t.database.db.selectFrom('assets').select((eb) => eb.fn.countAll<number>().as('n')).where('workspace_id', '=', ws).executeTakeFirstOrThrow()).n);
  const settle = (id: number): Promise<ImportJson> => settleImport(t, team.manager, id);

  describe('a folder tree of 200 files', () => {
    let archive: string;
    let target: { id: number };
    let first: ImportJson;
    let failing: string;
    let png: string;
    let doc: string;
    const contents = new Map<string, Buffer>();

    beforeAll(async () => {
      // Archive/ (48 files, a document and a form), Archive/2023/ (50), Archive/2023/Raw/ (50), Archive/2024/ (50): 200 files.
      archive = addArchive(fake, { top: 47, y2023: 50, raw: 50, y2024: 50 }, contents);
      const image = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#c33' } }).png().toBuffer();
      png = fake.addFile('cover.png', image, { parent: archive, mimeType: 'image/png' });
      contents.set(png, image);
      doc = fake.addDoc('Budget', 'spreadsheet', archive);
      fake.addDoc('Signup', 'form', archive);
      failing = [...contents.keys()][60]!;
      target = await makeFolder(t, team.manager, team.ws, { name: 'From Drive' });
    });

    /** One file Drive refuses to hand over (403 cannotDownloadFile), whatever is asked. */
    const refuseFailing = () => ({
      path: new RegExp(`^/drive/v3/files/${failing}$`),
      query: /alt=media/,
      status: 403,
      reason: 'cannotDownloadFile',
      message: 'The user does not have sufficient permissions for this file.',
      times: 100,
    });

    it('recreates the folders under folder_id and imports every file, one failing item recorded, rate limits waited out', async () => {
      fake.failures.push(
        refuseFailing(),
        // Drive slows us down twice on downloads and once while the folders are listed: waited out (Retry-After 1 s).
        { path: /^\/drive\/v3\/files\/[^/]+$/, query: /alt=media/, status: 429, message: 'User rate limit exceeded.', reason: 'userRateLimitExceeded', retryAfter: '1', times: 2 },
        { path: /^\/drive\/v3\/files$/, status: 503, message: 'The service is currently unavailable.', retryAfter: '1', times: 1 },
      );
      const queued = await startImport(t, team.manager, { workspaceId: team.ws, folder_id: target.id, items: [{ id: archive }] });
      expect(queued).toMatchObject({ provider: GDRIVE, workspace_id: team.ws, folder_id: target.id, recursive: true, status: 'queued', planned: false, total_files: 0 });

      first = await settle(queued.id);
      expect(first).toMatchObject({ status: 'succeeded', planned: true, total_files: 200, folders: 4, processed_files: 200, pending: 0, imported: 198, skipped: 1, failed: 1, progress: 1, error: null });
      expect(first.bytes).toBeGreaterThan(200 * 64);
      const failed = first.items.items.find((i) => i.status === 'failed')!;
      expect(failed).toMatchObject({ file_id: failing, reason: 'provider_error', asset_id: null });
      expect(failed.message).toContain('The user does not have sufficient permissions for this file.');
      expect(first.items.items.find((i) => i.status === 'skipped')).toMatchObject({ name: 'Signup', reason: 'unsupported' });
      // The refused file was asked for once (a 403 is not retried); the rate limits were all used up.
      expect(fake.failures).toEqual([expect.objectContaining({ status: 403, times: 99 })]);

      // Archive/2023/Raw under From Drive, each folder once.
      const folders = await foldersOf(team.ws);
      const child = (parent: number | null, name: string) => folders.filter((f) => f.parent_id === parent && f.name === name);
      const top = child(target.id, fake.files.get(archive)!.name);
      expect(top).toHaveLength(1);
      const [f2023] = child(top[0]!.id, '2023');
      const [fRaw] = child(f2023!.id, 'Raw');
      const [f2024] = child(top[0]!.id, '2024');
      expect((await assetsIn(team.ws, fRaw!.id)).length).toBe(50);
      expect((await assetsIn(team.ws, f2024!.id)).length).toBe(50);
      expect((await assetsIn(team.ws, f2023!.id)).length).toBe(49);
      expect((await assetsIn(team.ws, top[0]!.id)).length).toBe(49);
      expect(await assetCount(team.ws)).toBe(198);

      // Each asset holds its file's bytes; the document came in as its export.
      const item = first.items.items.find((i) => i.name === 'raw 7.dat')!;
      const asset = await getAssetJson(t, team.manager, item.asset_id!);
      expect(asset).toMatchObject({ file_name: 'raw 7.dat', file_size: contents.get(item.file_id)!.length, folder_id: fRaw!.id });
      expect(sha256(await storedBytes(t, team.manager, team.ws, asset.id))).toBe(sha256(contents.get(item.file_id)!));
      const budget = first.items.items.find((i) => i.file_id === doc)!;
      expect(await getAssetJson(t, team.manager, budget.asset_id!)).toMatchObject({
        file_name: 'Budget.xlsx',
        mime_type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      });
      // As any upload: a thumbnail for the image, the activity entry by the requester.
      const cover = first.items.items.find((i) => i.file_id === png)!;
      const [v1] = await listVersions(t, team.manager, cover.asset_id!);
      expect(v1).toMatchObject({ preview_status: 'ready', mime_type: 'image/png', created_by: team.manager.user.name });
      const activity = await t.request({ method: 'GET', url: `/dam/activity?workspaceId=${team.ws}&asset_id=${cover.asset_id}`, token: team.manager.token });
      const entries = activity.json<{ data: { items: { action: string; actor: { id: number } | null }[] } }>().data.items;
      expect(entries.map((e) => [e.action, e.actor?.id])).toEqual([['asset.upload', team.manager.user.id]]);
      // 200 uploads with their thumbnail and metadata jobs, and two waits for Drive's rate limit.
    }, 120_000);

    it('pages and filters the per-item results', async () => {
      const page = await importStatus(t, team.manager, first.id, 'page=2&per_page=10');
      expect(page.items).toMatchObject({ page: 2, per_page: 10, total: 204 });
      expect(page.items.items).toHaveLength(10);
      const failed = await importStatus(t, team.manager, first.id, 'status=failed');
      expect(failed.items.total).toBe(1);
      expect(failed.items.items[0]!.file_id).toBe(failing);
      // Viewers of the workspace may follow it; others do not learn it exists.
      expect((await importStatus(t, team.viewer, first.id)).id).toBe(first.id);
      expectError(await t.request({ method: 'GET', url: `/drives/imports/${first.id}`, token: team.outsider.token }), 404, 'NOT_FOUND');
      // The workspace's imports, newest first, without their items.
      const list = await t.request({ method: 'GET', url: `/drives/imports?workspaceId=${team.ws}`, token: team.viewer.token });
      expect(list.statusCode, list.body).toBe(200);
      const listed = list.json<{ data: { items: (ImportJson & { items?: unknown })[] } }>().data.items;
      expect(listed[0]).toMatchObject({ id: first.id, status: 'succeeded', imported: 198, failed: 1 });
      expect(listed[0]!.items).toBeUndefined();
      expectError(await t.request({ method: 'GET', url: `/drives/imports?workspaceId=${team.ws}`, token: team.outsider.token }), 404, 'NOT_FOUND');
    });

    it('importing the same tree again skips unchanged files and makes a new version of a changed one', async () => {
      const changed = [...contents.keys()][10]!;
      const newBytes = randomBytes(500);
      fake.updateFile(changed, newBytes);
      const added = fake.addFile('late.bin', 'arrived later', { parent: archive });
      fake.failures.push(refuseFailing());
      const again = await settle((await startImport(t, team.manager, { workspaceId: team.ws, folder_id: target.id, items: [{ id: archive }] })).id);
      expect(again).toMatchObject({ status: 'succeeded', total_files: 201, imported: 2, skipped: 198, failed: 1 });
      expect(again.items.items.filter((i) => i.reason === 'unchanged')).toHaveLength(197);
      const updated = again.items.items.find((i) => i.file_id === changed)!;
      expect(updated).toMatchObject({ status: 'imported', reason: 'new_version' });
      const previous = first.items.items.find((i) => i.file_id === changed)!;
      expect(updated.asset_id).toBe(previous.asset_id);
      const versions = await listVersions(t, team.manager, updated.asset_id!);
      expect(versions.map((v) => v.version)).toEqual(['v2', 'v1']);
      expect(versions[0]!.file_size).toBe(500);
      expect(again.items.items.find((i) => i.file_id === added)).toMatchObject({ status: 'imported', reason: 'new' });
      expect(await assetCount(team.ws)).toBe(199);
      // No folder twice.
      expect((await foldersOf(team.ws)).filter((f) => f.name === 'Raw')).toHaveLength(1);

      // Into another folder it is another copy; a trashed asset is imported anew.
      const elsewhere = await settle((await startImport(t, team.manager, { workspaceId: team.ws, items: [{ id: added }] })).id);
      expect(elsewhere).toMatchObject({ imported: 1, skipped: 0 });
      const copy = elsewhere.items.items[0]!;
      expect(copy.asset_id).not.toBe(again.items.items.find((i) => i.file_id === added)!.asset_id);
      expect(copy.folder_id).toBeNull();
      expect((await t.request({ method: 'DELETE', url: `/dam/assets/${copy.asset_id}`, token: team.manager.token })).statusCode).toBe(200);
      const afterTrash = await settle((await startImport(t, team.manager, { workspaceId: team.ws, items: [{ id: added }] })).id);
      expect(afterTrash.items.items[0]).toMatchObject({ status: 'imported', reason: 'new' });
    });
  });

  it('imports single files and only the top files of a folder when not recursive; unknown ids fail alone', async () => {
    const folder = fake.addFolder(`Flat ${randomBytes(3).toString('hex')}`);
    fake.addFile('a.bin', 'a', { parent: folder });
    const sub = fake.addFolder('deeper', folder);
    fake.addFile('b.bin', 'b', { parent: sub });
    const single = fake.addFile('single.bin', 'single');
    const done = await settle(
      (await startImport(t, team.manager, { workspaceId: team.ws, items: [{ id: folder }, { id: single }, { id: 'noSuchFile123' }], recursive: false })).id,
    );
    expect(done).toMatchObject({ status: 'succeeded', recursive: false, total_files: 3, imported: 2, failed: 1, folders: 1 });
    expect(done.items.items.find((i) => i.file_id === 'noSuchFile123')).toMatchObject({ status: 'failed', reason: 'not_found' });
    expect(done.items.items.some((i) => i.name === 'b.bin' || i.name === 'deeper')).toBe(false);
    expect(done.items.items.find((i) => i.name === 'single.bin')!.folder_id).toBeNull();
  });

  it('sends the job back to the queue while Drive keeps rate limiting, and finishes later', async () => {
    const id = fake.addFile('busy.bin', 'busy');
    fake.failures.push({ path: new RegExp(`^/drive/v3/files/${id}$`), query: /alt=media/, status: 429, message: 'Rate Limit Exceeded', reason: 'rateLimitExceeded', retryAfter: '0', times: 5 });
    const queued = await startImport(t, team.manager, { workspaceId: team.ws, items: [{ id }] });
    let status = await settle(queued.id);
    expect(status).toMatchObject({ status: 'queued', pending: 1 });
    expect(status.error).toContain('Rate Limit Exceeded');
    // The queue retries after its back-off.
    t.advanceClock(60);
    status = await settle(queued.id);
    expect(status).toMatchObject({ status: 'succeeded', imported: 1, error: null });
  });

  it('fails the import when the connection needs re-authorisation', async () => {
    const who = await registerUser(t);
    await connect(t, fake, who);
    const id = fake.addFile('lonely.bin', 'x');
    const queued = await startImport(t, who, { workspaceId: who.workspaceId, items: [{ id }] });
    fake.oauth.revokeAllGrants();
    fake.oauth.expireAccessTokens();
    const status = await settleImport(t, who, queued.id);
    expect(status.status).toBe('failed');
    expect(status.error).toContain(`Connect Google Drive again`);
    // Everyone else's grants were revoked too: connect the manager again for the tests after this one.
    await connect(t, fake, team.manager);
  });

  it('checks role, workspace and folder before queueing', async () => {
    await connect(t, fake, team.viewer);
    expectError(await t.request({ method: 'POST', url: `/${GDRIVE}/import`, token: team.viewer.token, payload: { workspaceId: team.ws, items: [{ id: 'x' }] } }), 403, 'FORBIDDEN');
    expectError(await t.request({ method: 'POST', url: `/${GDRIVE}/import`, token: team.manager.token, payload: { workspaceId: team.otherWs, items: [{ id: 'x' }] } }), 404, 'NOT_FOUND');
    const foreign = await makeFolder(t, team.outsider, team.otherWs);
    expectError(
      await t.request({ method: 'POST', url: `/${GDRIVE}/import`, token: team.manager.token, payload: { workspaceId: team.ws, folder_id: foreign.id, items: [{ id: 'x' }] } }),
      400,
      'VALIDATION_ERROR',
      'folder_id',
    );
    const stranger = await registerUser(t);
    expectError(await t.request({ method: 'POST', url: `/${GDRIVE}/import`, token: stranger.token, payload: { workspaceId: stranger.workspaceId, items: [{ id: 'x' }] } }), 409, 'DRIVE_NOT_CONNECTED');
  });

  it('never answers or logs a token, code or the client secret', () => {
    const secrets = [...fake.oauth.issued, fake.oauth.clientSecret!];
    const text = `${logs.join('\n')}\n${answers.join('\n')}`;
    expect(logs.length).toBeGreaterThan(100);
    for (const secret of secrets) expect(text.includes(secret)).toBe(false);
  });
});

/** The object store matters for imports (files are written to it) and uploads (read from it, by range for resumable chunks). */
describe('Google Drive with the S3 store', () => {
  let fake: FakeGoogleDrive;
  let s3: S3Server;
  let t: TestApp;

  beforeAll(async () => {
    [fake, s3] = await Promise.all([startFakeGoogleDrive(), startS3Server()]);
    t = await startDriveApp(fake, { dialect: 'sqlite', config: { storage: await s3.newBucket() } });
  });
  afterAll(async () => {
    await t.close();
    await Promise.all([fake.close(), s3.close()]);
  });

  it('imports into S3 and sends a 20 MiB asset from S3 through the resumable API', async () => {
    const who = await registerUser(t);
    await connect(t, fake, who);
    const big = randomBytes(6 * 1024 * 1024 + 123);
    const id = fake.addFile('big.bin', big);
    await t.app.jobs.drain();
    const job = await startImport(t, who, { workspaceId: who.workspaceId, items: [{ id }] });
    const done = await settleImport(t, who, job.id);
    expect(done).toMatchObject({ status: 'succeeded', imported: 1, bytes: big.length });
    const assetId = done.items.items[0]!.asset_id!;
    expect(sha256(await storedBytes(t, who, who.workspaceId, assetId))).toBe(sha256(big));

    const twenty = randomBytes(20 * 1024 * 1024);
    const asset = await serverUpload(t, who, { bytes: twenty, name: 'twenty.bin', type: 'application/octet-stream' });
    const res = await t.request({ method: 'POST', url: `/${GDRIVE}/upload`, token: who.token, payload: { assetId: asset.id } });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json<{ data: DriveItemJson }>().data.size).toBe(twenty.length);
    expect(fake.uploads.at(-1)).toMatchObject({ kind: 'resumable', size: twenty.length, sha256: sha256(twenty), puts: 3 });
  });
});
