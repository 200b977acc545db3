import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from './helpers/app.js';
import { expectError, makeFolder, makeTeam, type Team } from './helpers/catalog-factories.js';
import { dialects } from './helpers/databases.js';
import {
  addArchive,
  authorize,
  driveHelpers,
  DROPBOX as DBX,
  expectNoSecrets,
  listDrives,
  settleImport,
  sha256,
  storedBytes,
  tamperState,
  type DriveItemJson,
  type ImportJson,
} from './helpers/drives.js';
import { startFakeDropbox, type FakeDropbox } from './helpers/fake-dropbox.js';
import { registerUser, type Account } from './helpers/factories.js';
import { startS3Server, type S3Server } from './helpers/uploads.js';
import { getAssetJson, listVersions, serverUpload } from './helpers/versions.js';

/** Dropbox (drive-ext-2) against test/helpers/fake-dropbox.ts (API and content hosts under path prefixes), on every dialect. */

const MiB = 1024 * 1024;
const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });
const { startDriveApp: startDropboxApp, startAuth, connect, listFiles, listAll, startImport, connectionRow } = driveHelpers(DBX);

/** Folders first, then by name: the order each page is put in. */
function expectPageOrder(items: DriveItemJson[]): void {
  const sorted = [...items].sort((a, b) => Number(b.is_folder) - Number(a.is_folder) || collator.compare(a.name, b.name));
  expect(items.map((i) => i.name)).toEqual(sorted.map((i) => i.name));
}

describe.each(dialects)('Dropbox (%s)', (dialect) => {
  let fake: FakeDropbox;
  let t: TestApp;
  let team: Team;
  const logs: string[] = [];
  const answers: string[] = [];

  beforeAll(async () => {
    fake = await startFakeDropbox();
    t = await startDropboxApp(fake, { dialect, logs, answers });
    team = await makeTeam(t);
  });
  afterEach(() => {
    fake.failures = [];
    fake.oauth.deny = null;
    fake.maxPage = Number.POSITIVE_INFINITY;
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  const requestsTo = (route: string) => fake.requests.filter((r) => r.route === route);

  describe('connecting', () => {
    it('sends the browser to Dropbox with PKCE S256, offline access, the scopes and a signed state, and stores the connection', async () => {
      const who = await registerUser(t);
      const { url, cookie } = await startAuth(t, who);
      expect(`${url.origin}${url.pathname}`).toBe(`${fake.baseUrl}/oauth2/authorize`);
      const q = url.searchParams;
      expect(q.get('client_id')).toBe(fake.oauth.clientId);
      expect(q.get('redirect_uri')).toBe(`${t.config.publicUrl}/${DBX}/callback`);
      expect(q.get('response_type')).toBe('code');
      expect(q.get('token_access_type')).toBe('offline');
      expect(q.get('scope')).toBe('account_info.read files.metadata.read files.content.read files.content.write');
      expect(q.get('code_challenge_method')).toBe('S256');
      expect(q.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(q.get('state')?.split('.')).toHaveLength(3);
      const setCookie = String((await t.request({ method: 'GET', url: `/${DBX}/auth`, token: who.token })).headers['set-cookie']);
      expect(setCookie).toContain(`Path=/${DBX}/callback`);

      const codes = fake.oauth.calls.code;
      const res = await t.request({ method: 'GET', url: await authorize(url), headers: { cookie } });
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toBe(`/library/drives?connected=${DBX}`);
      expect(fake.oauth.calls.code).toBe(codes + 1);
      // The account came from users/get_current_account, asked without a body.
      expect(requestsTo('users/get_current_account').at(-1)).toMatchObject({ host: 'api', arg: null });

      const [dropbox] = await listDrives(t, who);
      expect(dropbox).toMatchObject({ id: DBX, name: 'Dropbox', search: true });
      expect(dropbox!.connection).toMatchObject({
        account_id: fake.oauth.account.id,
        account_email: fake.oauth.account.email,
        account_name: fake.oauth.account.name,
        scopes: ['account_info.read', 'files.metadata.read', 'files.content.read', 'files.content.write'],
        status: 'active',
      });
      const row = (await connectionRow(t, who))!;
      expect(row.access_token).toMatch(/^v1\./);
      expect(row.refresh_token).toMatch(/^v1\./);
      // Dropbox access tokens live four hours.
      expect(Number(row.expires_at) - Number(row.updated_at)).toBe(14_400);
    });

    it('refuses a tampered or replayed state, and stores nothing when the user declines', async () => {
      const who = await registerUser(t);
      const invalid = `/library/drives?error=invalid_state&provider=${DBX}`;
      const codes = fake.oauth.calls.code;

      const tampered = await startAuth(t, who);
      const back = tamperState(await authorize(tampered.url));
      let res = await t.request({ method: 'GET', url: back, headers: { cookie: tampered.cookie } });
      expect(res.headers.location).toBe(invalid);

      const once = await startAuth(t, who);
      const onceBack = await authorize(once.url);
      res = await t.request({ method: 'GET', url: onceBack, headers: { cookie: once.cookie } });
      expect(res.headers.location).toBe(`/library/drives?connected=${DBX}`);
      res = await t.request({ method: 'GET', url: onceBack, headers: { cookie: once.cookie } });
      expect(res.headers.location).toBe(invalid);
      // Only the good callback reached Dropbox's token endpoint.
      expect(fake.oauth.calls.code).toBe(codes + 1);

      const stranger = await registerUser(t);
      fake.oauth.deny = 'access_denied';
      const declined = await startAuth(t, stranger);
      res = await t.request({ method: 'GET', url: await authorize(declined.url), headers: { cookie: declined.cookie } });
      expect(res.headers.location).toBe(`/library/drives?error=access_denied&provider=${DBX}`);
      expect(await connectionRow(t, stranger)).toBeUndefined();
    });
  });

  describe('browsing and downloading', () => {
    let who: Account;
    let folder: string;
    let paper: string;
    let whiteboard: string;
    const names: string[] = [];
    beforeAll(async () => {
      who = await registerUser(t);
      await connect(t, fake, who);
      folder = fake.addFolder(`Browse ${randomBytes(3).toString('hex')}`);
      fake.addFolder('Zeta sub', folder);
      fake.addFolder('alpha sub', folder);
      for (let i = 1; i <= 25; i++) names.push(fake.entries.get(fake.addFile(`report ${i}.txt`, `content ${i}`, { parent: folder }))!.name);
      paper = fake.addFile('Plan.paper', 'paper', { parent: folder, downloadable: false, exportAs: 'markdown' });
      whiteboard = fake.addFile('Whiteboard.web', 'w', { parent: folder, downloadable: false });
    });

    it('lists a folder over several pages with list_folder/continue, each page folders first, then by name', async () => {
      const before = fake.requests.length;
      const { pages, items: seen } = await listAll(t, who, `folder=${encodeURIComponent(folder)}&limit=10`, (page) => {
        expect(page.folder).toBe(folder);
        expectPageOrder(page.items);
      });
      expect(pages).toBe(3);
      expect(new Set(seen.map((i) => i.id)).size).toBe(29);
      expect(seen.map((i) => i.name).sort()).toEqual(['Plan.paper', 'Whiteboard.web', 'Zeta sub', 'alpha sub', ...names].sort());
      // One list_folder for the folder, then its cursors.
      const calls = fake.requests.slice(before);
      expect(calls.map((c) => c.route)).toEqual(['files/list_folder', 'files/list_folder/continue', 'files/list_folder/continue']);
      expect(calls[0]!.arg).toMatchObject({ path: folder, limit: 10 });

      const file = seen.find((i) => i.name === 'report 7.txt')!;
      expect(file).toMatchObject({ is_folder: false, mime_type: 'text/plain', size: 9, export: null, unsupported: null, thumbnail_url: null });
      expect(file.id).toMatch(/^id:/);
      expect(file.modified_at).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(seen.find((i) => i.name === 'alpha sub')).toMatchObject({ is_folder: true, size: null, mime_type: null });
      expect(seen.find((i) => i.id === paper)).toMatchObject({ size: null, export: { mime_type: 'text/markdown', extension: 'md' }, unsupported: null });
      expect(seen.find((i) => i.id === whiteboard)!.unsupported).toContain('does not allow downloading');
    });

    it('lists the root, refuses a path or an altered cursor, and follows a Dropbox that answers fewer than asked', async () => {
      const root = await listFiles(t, who);
      expect(root.folder).toBeNull();
      expect(root.items.some((i) => i.id === folder)).toBe(true);
      expect(requestsTo('files/list_folder').at(-1)!.arg).toMatchObject({ path: '' });

      const before = fake.requests.length;
      // Ids only: a path never reaches Dropbox.
      expectError(await t.request({ method: 'GET', url: `/${DBX}/files?folder=${encodeURIComponent('/Photos')}`, token: who.token }), 400, 'VALIDATION_ERROR', 'folder');
      expect(fake.requests.length).toBe(before);
      const page = await listFiles(t, who, `folder=${encodeURIComponent(folder)}&limit=5`);
      const altered = `${page.next_cursor!.slice(0, -3)}${page.next_cursor!.endsWith('AAA') ? 'BBB' : 'AAA'}`;
      expectError(await t.request({ method: 'GET', url: `/${DBX}/files?cursor=${encodeURIComponent(altered)}`, token: who.token }), 400, 'VALIDATION_ERROR', 'cursor');
      expectError(await t.request({ method: 'GET', url: `/${DBX}/files?folder=id:doesNotExist0000000000`, token: who.token }), 404, 'NOT_FOUND');

      // Dropbox's limit is approximate: pages of 4 for a limit of 100 still reach every item.
      fake.maxPage = 4;
      expect((await listAll(t, who, `folder=${encodeURIComponent(folder)}`)).items).toHaveLength(29);
    });

    it('searches by name with search_v2, in a folder or the whole Dropbox, paging with search/continue_v2', async () => {
      const before = fake.requests.length;
      const found = (await listAll(t, who, `folder=${encodeURIComponent(folder)}&q=${encodeURIComponent('report 1')}&limit=5`)).items.map((i) => i.name);
      const expected = names.filter((n) => n.includes('1'));
      expect(found.sort()).toEqual(expected.sort());
      const calls = fake.requests.slice(before);
      expect(calls[0]).toMatchObject({ route: 'files/search_v2', arg: { query: 'report 1', options: { path: folder, max_results: 5, filename_only: true, file_status: 'active' } } });
      expect(calls.slice(1).every((c) => c.route === 'files/search/continue_v2')).toBe(true);
      expect(calls).toHaveLength(Math.ceil(expected.length / 5));

      const anywhere = await listFiles(t, who, 'q=plan');
      expect(anywhere.folder).toBeNull();
      expect(anywhere.items.map((i) => i.id)).toContain(paper);
      expect((requestsTo('files/search_v2').at(-1)!.arg!.options as Record<string, unknown>).path).toBeUndefined();
    });

    it('streams a download with the type its name says, its length and name; a Paper doc as its export', async () => {
      const bytes = randomBytes(300 * 1024);
      const id = fake.addFile('Größe Übersicht.png', bytes, { parent: folder });
      let res = await t.request({ method: 'GET', url: `/${DBX}/download?fileId=${encodeURIComponent(id)}`, token: who.token });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-type']).toBe('image/png');
      expect(res.headers['content-length']).toBe(String(bytes.length));
      // The name came back through Dropbox-API-Result, \u-escaped.
      expect(res.headers['content-disposition']).toContain("filename*=UTF-8''Gr%C3%B6%C3%9Fe%20%C3%9Cbersicht.png");
      expect(sha256(res.rawPayload)).toBe(sha256(bytes));
      expect(requestsTo('files/download').at(-1)).toMatchObject({ host: 'content', arg: { path: id } });

      res = await t.request({ method: 'GET', url: `/${DBX}/download?fileId=${encodeURIComponent(paper)}`, token: who.token });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-type']).toBe('text/markdown');
      expect(res.headers['content-disposition']).toContain('filename="Plan.md"');
      expect(res.body).toContain('exported Plan.paper as markdown');
      expect(requestsTo('files/export').at(-1)).toMatchObject({ host: 'content', arg: { path: paper } });

      expectError(await t.request({ method: 'GET', url: `/${DBX}/download?fileId=${encodeURIComponent(folder)}`, token: who.token }), 422, 'DRIVE_ITEM_UNSUPPORTED');
      expectError(await t.request({ method: 'GET', url: `/${DBX}/download?fileId=${encodeURIComponent(whiteboard)}`, token: who.token }), 422, 'DRIVE_ITEM_UNSUPPORTED');
      expectError(await t.request({ method: 'GET', url: `/${DBX}/download?fileId=id:doesNotExist0000000000`, token: who.token }), 404, 'NOT_FOUND');
      expectError(await t.request({ method: 'GET', url: `/${DBX}/download?fileId=${encodeURIComponent('/report 1.txt')}`, token: who.token }), 400, 'VALIDATION_ERROR', 'fileId');
    });

    it("answers 502 with Dropbox's message when it fails, rate limits or refuses", async () => {
      fake.failures.push({ route: /^files\/list_folder$/, status: 500, message: 'Internal Server Error' });
      let res = await t.request({ method: 'GET', url: `/${DBX}/files`, token: who.token });
      expectError(res, 502, 'DRIVE_PROVIDER_ERROR');
      expect(res.json()).toMatchObject({ error: 'Dropbox: Internal Server Error', provider: DBX, provider_status: 500 });

      fake.failures.push({ route: /^files\/list_folder$/, status: 429, retryAfter: '7' });
      res = await t.request({ method: 'GET', url: `/${DBX}/files`, token: who.token });
      expectError(res, 502, 'DRIVE_PROVIDER_ERROR');
      expect(res.json()).toMatchObject({ provider_status: 429, retry_after: 7 });
      expect(res.json<{ error: string }>().error).toBe('Dropbox is rate limiting: too_many_requests');

      const id = fake.addFile('locked.txt', 'x', { parent: folder });
      fake.failures.push({ host: 'content', route: /^files\/download$/, arg: (a) => a.path === id, status: 409, summary: 'path/restricted_content' });
      res = await t.request({ method: 'GET', url: `/${DBX}/download?fileId=${encodeURIComponent(id)}`, token: who.token });
      expectError(res, 502, 'DRIVE_PROVIDER_ERROR');
      expect(res.json()).toMatchObject({ error: 'Dropbox: path/restricted_content', provider_status: 409 });
    });
  });

  describe('tokens', () => {
    it('refreshes an expired access token once, transparently', async () => {
      const who = await registerUser(t);
      await connect(t, fake, who);
      const refreshes = fake.oauth.calls.refresh;
      // Dropbox stopped taking the token early: 401 expired_access_token, one refresh, the call again.
      fake.oauth.expireAccessTokens();
      const before = fake.requests.length;
      await listFiles(t, who);
      expect(fake.oauth.calls.refresh).toBe(refreshes + 1);
      expect(fake.requests.length).toBe(before + 2);
      await listFiles(t, who);
      expect(fake.oauth.calls.refresh).toBe(refreshes + 1);
      // Four hours later on our clock: refreshed before use, without a 401 first.
      t.advanceClock(14_400);
      const later = fake.requests.length;
      await listFiles(t, who);
      expect(fake.oauth.calls.refresh).toBe(refreshes + 2);
      expect(fake.requests.length).toBe(later + 1);
    });

    it('marks the connection when the refresh is refused, answering 409 DRIVE_REAUTH_REQUIRED until connected again', async () => {
      const who = await registerUser(t);
      await connect(t, fake, who);
      fake.oauth.revokeAllGrants();
      fake.oauth.expireAccessTokens();
      const res = await t.request({ method: 'GET', url: `/${DBX}/files`, token: who.token });
      expectError(res, 409, 'DRIVE_REAUTH_REQUIRED');
      expect(res.json<{ error: string }>().error).toContain('invalid_grant');
      expect((await listDrives(t, who))[0]!.connection).toMatchObject({ status: 'reauth_required' });
      await connect(t, fake, who);
      await listFiles(t, who);
      expect((await listDrives(t, who))[0]!.connection).toMatchObject({ status: 'active', status_note: null });
    });
  });

  describe('sending assets to Dropbox', () => {
    let who: Account;
    beforeAll(async () => {
      who = await registerUser(t);
      await connect(t, fake, who);
    });

    it('sends a small file with files/upload into the folder, never overwriting, and a 20 MiB one through an upload session that rides out a failed and a lost chunk', async () => {
      const target = fake.addFolder(`Exports ${randomBytes(3).toString('hex')}`);
      const small = Buffer.from('a small text file\n');
      const asset = await serverUpload(t, who, { bytes: small, name: 'Übersicht.txt', type: 'text/plain' });
      let res = await t.request({ method: 'POST', url: `/${DBX}/upload`, token: who.token, payload: { assetId: asset.id, folder: target } });
      expect(res.statusCode, res.body).toBe(201);
      const created = res.json<{ data: DriveItemJson }>().data;
      expect(created).toMatchObject({ name: 'Übersicht.txt', is_folder: false, size: small.length, mime_type: 'text/plain' });
      expect(fake.entries.get(created.id)!.parent).toBe(target);
      expect(fake.uploads.at(-1)).toMatchObject({ kind: 'upload', path: `${fake.pathOf(target)}/Übersicht.txt`, size: small.length, sha256: sha256(small) });
      // The same name again: Dropbox renames the new file rather than replacing the first.
      res = await t.request({ method: 'POST', url: `/${DBX}/upload`, token: who.token, payload: { assetId: asset.id, folder: target } });
      expect(res.json<{ data: DriveItemJson }>().data.name).toBe('Übersicht (1).txt');

      const big = randomBytes(20 * MiB);
      const bigAsset = await serverUpload(t, who, { bytes: big, name: 'footage.bin', type: 'application/octet-stream' });
      fake.failures.push(
        // The append fails once outright, then Dropbox stores it but the answer is lost: sent again, Dropbox says
        // incorrect_offset with the offset it holds, and the upload goes on from there.
        { host: 'content', route: /^files\/upload_session\/append_v2$/, status: 503, message: 'Service Unavailable' },
        { host: 'content', route: /^files\/upload_session\/append_v2$/, status: 500, message: 'Internal Server Error', afterProcessing: true },
      );
      const before = fake.requests.length;
      res = await t.request({ method: 'POST', url: `/${DBX}/upload`, token: who.token, payload: { assetId: bigAsset.id } });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json<{ data: DriveItemJson }>().data).toMatchObject({ name: 'footage.bin', size: big.length });
      expect(fake.uploads.at(-1)).toMatchObject({ kind: 'session', path: '/footage.bin', size: big.length, sha256: sha256(big), requests: 5, chunks: [8 * MiB, 8 * MiB, 4 * MiB] });
      const session = fake.requests.slice(before).map((r) => `${r.route.replace('files/upload_session/', '')}@${(r.arg!.cursor as { offset?: number } | undefined)?.offset ?? 0}`);
      expect(session).toEqual(['start@0', `append_v2@${8 * MiB}`, `append_v2@${8 * MiB}`, `append_v2@${8 * MiB}`, `finish@${16 * MiB}`]);
      expect(fake.failures).toEqual([]);
    }, 60_000);

    it('refuses a folder that is a file or unknown, and assets the caller cannot see', async () => {
      const asset = await serverUpload(t, who, { bytes: Buffer.from('x'), name: 'x.txt', type: 'text/plain' });
      const file = fake.addFile('not-a-folder.txt', 'x');
      expectError(await t.request({ method: 'POST', url: `/${DBX}/upload`, token: who.token, payload: { assetId: asset.id, folder: file } }), 400, 'VALIDATION_ERROR', 'folder');
      expectError(await t.request({ method: 'POST', url: `/${DBX}/upload`, token: who.token, payload: { assetId: asset.id, folder: 'id:doesNotExist0000000000' } }), 404, 'NOT_FOUND');
      expectError(await t.request({ method: 'POST', url: `/${DBX}/upload`, token: team.outsider.token, payload: { assetId: asset.id } }), 404, 'NOT_FOUND');
      const stranger = await registerUser(t);
      const mine = await serverUpload(t, stranger, { bytes: Buffer.from('y'), name: 'y.txt', type: 'text/plain' });
      expectError(await t.request({ method: 'POST', url: `/${DBX}/upload`, token: stranger.token, payload: { assetId: mine.id } }), 409, 'DRIVE_NOT_CONNECTED');
    });
  });

  describe('importing', () => {
    let archive: string;
    let target: { id: number };
    let first: ImportJson;
    let failing: string;
    let paper: string;
    const contents = new Map<string, Buffer>();

    beforeAll(async () => {
      // Archive/ (15 files, a Paper doc, a whiteboard), Archive/2023/ (20), Archive/2023/Raw/ (20), Archive/2024/ (15):
      // 72 items. The 200-file scale of the queue itself is proven by the Google Drive import test.
      archive = addArchive(fake, { top: 15, y2023: 20, raw: 20, y2024: 15 }, contents);
      paper = fake.addFile('Minutes.paper', 'p', { parent: archive, downloadable: false, exportAs: 'markdown' });
      fake.addFile('Board.web', 'b', { parent: archive, downloadable: false });
      failing = [...contents.keys()][30]!;
      target = await makeFolder(t, team.manager, team.ws, { name: 'From Dropbox' });
      await connect(t, fake, team.manager);
    });

    const settle = (id: number): Promise<ImportJson> => settleImport(t, team.manager, id);
    const refuseFailing = () => ({ host: 'content' as const, route: /^files\/download$/, arg: (a: Record<string, unknown>) => a.path === failing, status: 409, summary: 'path/restricted_content', times: 100 });

    it('recreates the tree under folder_id and imports every file, paging each folder, one failing item recorded, rate limits waited out', async () => {
      // Pages of 7 whatever the import asks for: every folder takes list_folder/continue.
      fake.maxPage = 7;
      fake.failures.push(
        refuseFailing(),
        { host: 'content', route: /^files\/download$/, status: 429, retryAfter: '1', times: 2 },
        { host: 'api', route: /^files\/list_folder\/continue$/, status: 503, message: 'Service Unavailable', retryAfter: '1' },
      );
      const continues = requestsTo('files/list_folder/continue').length;
      const queued = await startImport(t, team.manager, { workspaceId: team.ws, folder_id: target.id, items: [{ id: archive }] });
      expect(queued).toMatchObject({ provider: DBX, status: 'queued', total_files: 0 });
      first = await settle(queued.id);
      expect(first).toMatchObject({ status: 'succeeded', total_files: 72, folders: 4, imported: 70, skipped: 1, failed: 1, pending: 0, error: null });
      expect(requestsTo('files/list_folder/continue').length - continues).toBeGreaterThanOrEqual(9);
      const failed = first.items.items.find((i) => i.status === 'failed')!;
      expect(failed).toMatchObject({ file_id: failing, reason: 'provider_error', asset_id: null });
      expect(failed.message).toContain('path/restricted_content');
      expect(first.items.items.find((i) => i.status === 'skipped')).toMatchObject({ name: 'Board.web', reason: 'unsupported' });
      // The refused file was asked for once (a 409 is not retried); the rate limits were all waited out.
      expect(fake.failures).toEqual([expect.objectContaining({ status: 409, times: 99 })]);

      const folders = await t.database.db.selectFrom('folders').select(['id', 'name', 'parent_id']).where('workspace_id', '=', team.ws).where('deleted_at', 'is', null).execute();
      const child = (parent: number, name: string) => folders.filter((f) => f.parent_id === parent && f.name === name);
      const [top] = child(target.id, fake.entries.get(archive)!.name);
      const [f2023] = child(top!.id, '2023');
      const [fRaw] = child(f2023!.id, 'Raw');
      expect(child(top!.id, '2024')).toHaveLength(1);
      const item = first.items.items.find((i) => i.name === 'raw 7.dat')!;
      const asset = await getAssetJson(t, team.manager, item.asset_id!);
      expect(asset).toMatchObject({ file_name: 'raw 7.dat', file_size: contents.get(item.file_id)!.length, folder_id: fRaw!.id });
      expect(sha256(await storedBytes(t, team.manager, team.ws, asset.id))).toBe(sha256(contents.get(item.file_id)!));
      const minutes = first.items.items.find((i) => i.file_id === paper)!;
      expect(await getAssetJson(t, team.manager, minutes.asset_id!)).toMatchObject({ file_name: 'Minutes.md', folder_id: top!.id });
    }, 120_000);

    it('importing again skips unchanged files (a renamed one too) and makes a new version of a changed one', async () => {
      const ids = [...contents.keys()];
      const changed = ids[5]!;
      const renamed = ids[6]!;
      fake.updateFile(changed, randomBytes(500));
      // A rename keeps the content hash: nothing to import.
      fake.rename(renamed, 'renamed top.bin');
      const added = fake.addFile('late.bin', 'arrived later', { parent: archive });
      fake.failures.push(refuseFailing());
      const again = await settle((await startImport(t, team.manager, { workspaceId: team.ws, folder_id: target.id, items: [{ id: archive }] })).id);
      expect(again).toMatchObject({ status: 'succeeded', total_files: 73, imported: 2, skipped: 70, failed: 1 });
      expect(again.items.items.filter((i) => i.reason === 'unchanged')).toHaveLength(69);
      expect(again.items.items.find((i) => i.file_id === renamed)).toMatchObject({ status: 'skipped', reason: 'unchanged' });
      const updated = again.items.items.find((i) => i.file_id === changed)!;
      expect(updated).toMatchObject({ status: 'imported', reason: 'new_version', asset_id: first.items.items.find((i) => i.file_id === changed)!.asset_id });
      const versions = await listVersions(t, team.manager, updated.asset_id!);
      expect(versions.map((v) => v.version)).toEqual(['v2', 'v1']);
      expect(versions[0]!.file_size).toBe(500);
      expect(again.items.items.find((i) => i.file_id === added)).toMatchObject({ status: 'imported', reason: 'new' });
    }, 60_000);
  });

  it('disconnecting revokes the grant at Dropbox, refreshing an expired access token first', async () => {
    const who = await registerUser(t);
    await connect(t, fake, who);
    const other = await registerUser(t);
    await connect(t, fake, other);
    const { revoke, refresh } = fake.oauth.calls;
    const live = fake.oauth.liveRefreshTokens();

    let res = await t.request({ method: 'DELETE', url: `/${DBX}/connection`, token: other.token });
    expect(res.json()).toEqual({ success: true, data: { provider: DBX, revoked: true } });
    expect(fake.oauth.calls).toMatchObject({ revoke: revoke + 1, refresh });

    // Past its four hours: auth/token/revoke answers 401, so a fresh token (from the refresh token) is revoked instead.
    fake.oauth.expireAccessTokens();
    res = await t.request({ method: 'DELETE', url: `/${DBX}/connection`, token: who.token });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ success: true, data: { provider: DBX, revoked: true } });
    expect(fake.oauth.calls).toMatchObject({ revoke: revoke + 2, refresh: refresh + 1 });
    expect(fake.oauth.liveRefreshTokens()).toBe(live - 2);
    expect(requestsTo('auth/token/revoke').at(-1)).toMatchObject({ host: 'api', arg: null });
    expect(await connectionRow(t, who)).toBeUndefined();
    expectError(await t.request({ method: 'GET', url: `/${DBX}/files`, token: who.token }), 409, 'DRIVE_NOT_CONNECTED');
  });

  it("keeps each user's connection their own", async () => {
    const a = await registerUser(t);
    const b = await registerUser(t);
    await connect(t, fake, a, { id: 'dbid:AAAaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', email: 'a@example.test', name: 'Ada A' });
    await connect(t, fake, b, { id: 'dbid:BBBbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', email: 'b@example.test', name: 'Bob B' });
    expect((await listDrives(t, a))[0]!.connection).toMatchObject({ account_email: 'a@example.test' });
    expect((await listDrives(t, b))[0]!.connection).toMatchObject({ account_email: 'b@example.test' });
    await t.request({ method: 'DELETE', url: `/${DBX}/connection`, token: b.token });
    expect((await listDrives(t, a))[0]!.connection).toMatchObject({ account_email: 'a@example.test', status: 'active' });
    await listFiles(t, a);
    expectError(await t.request({ method: 'GET', url: `/${DBX}/files`, token: b.token }), 409, 'DRIVE_NOT_CONNECTED');
  });

  it('never answers or logs a token, code or the app secret', () => {
    expectNoSecrets(DBX, fake.oauth, logs, answers);
  });
});

/** Imports write to the store and session uploads read it one chunk range at a time: the same against S3. */
describe('Dropbox with the S3 store', () => {
  let fake: FakeDropbox;
  let s3: S3Server;
  let t: TestApp;

  beforeAll(async () => {
    [fake, s3] = await Promise.all([startFakeDropbox(), startS3Server()]);
    t = await startDropboxApp(fake, { dialect: 'sqlite', config: { storage: await s3.newBucket() } });
  });
  afterAll(async () => {
    await t.close();
    await Promise.all([fake.close(), s3.close()]);
  });

  it('imports into S3 and sends a 20 MiB asset from S3 through an upload session', async () => {
    const who = await registerUser(t);
    await connect(t, fake, who);
    const big = randomBytes(6 * MiB + 123);
    const id = fake.addFile('big.bin', big);
    const job = await startImport(t, who, { workspaceId: who.workspaceId, items: [{ id }] });
    const done = await settleImport(t, who, job.id);
    expect(done).toMatchObject({ status: 'succeeded', imported: 1, bytes: big.length });
    const assetId = done.items.items[0]!.asset_id!;
    expect(sha256(await storedBytes(t, who, who.workspaceId, assetId))).toBe(sha256(big));

    const twenty = randomBytes(20 * MiB);
    const asset = await serverUpload(t, who, { bytes: twenty, name: 'twenty.bin', type: 'application/octet-stream' });
    const res = await t.request({ method: 'POST', url: `/${DBX}/upload`, token: who.token, payload: { assetId: asset.id } });
    expect(res.statusCode, res.body).toBe(201);
    expect(fake.uploads.at(-1)).toMatchObject({ kind: 'session', size: twenty.length, sha256: sha256(twenty), requests: 3, chunks: [8 * MiB, 8 * MiB, 4 * MiB] });
  }, 60_000);
});
