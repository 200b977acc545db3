import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { oneDriveName } from '../src/drives/onedrive/items.js';
import { STATE_TTL } from '../src/services/drives/drive-auth-service.js';
import type { TestApp } from './helpers/app.js';
import { expectError, makeFolder, makeTeam, type Team } from './helpers/catalog-factories.js';
import { dialects } from './helpers/databases.js';
import {
  addArchive,
  authorize,
  driveHelpers,
  expectNoSecrets,
  listDrives,
  ONEDRIVE,
  settleImport,
  sha256,
  storedBytes,
  tamperState,
  type DriveItemJson,
  type ImportJson,
} from './helpers/drives.js';
import { startFakeOneDrive, type FakeOneDrive } from './helpers/fake-onedrive.js';
import { registerUser, type Account } from './helpers/factories.js';
import { startS3Server, type S3Server } from './helpers/uploads.js';
import { getAssetJson, listVersions, serverUpload } from './helpers/versions.js';

/** OneDrive (drive-ext-3, Microsoft Graph) against test/helpers/fake-onedrive.ts, on every dialect. */
const SCOPE = 'offline_access User.Read Files.ReadWrite';
const { startDriveApp: startOneDriveApp, startAuth, connect, listFiles, listAll, startImport, connectionRow } = driveHelpers(ONEDRIVE);

describe.each(dialects)('OneDrive (%s)', (dialect) => {
  let fake: FakeOneDrive;
  let t: TestApp;
  let team: Team;
  const logs: string[] = [];
  const answers: string[] = [];

  beforeAll(async () => {
    fake = await startFakeOneDrive({ apiPrefix: '/graph' });
    t = await startOneDriveApp(fake, { dialect, logs, answers });
    team = await makeTeam(t);
  });
  afterEach(() => {
    fake.failures = [];
    fake.oauth.deny = null;
    fake.maxPageSize = 1000;
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  const oneDriveOf = async (who: Account) => (await listDrives(t, who)).find((p) => p.id === ONEDRIVE)!;

  describe('connecting', () => {
    it('sends the browser to Microsoft with PKCE S256, offline_access and a signed state, and stores the connection', async () => {
      const who = await registerUser(t);
      const { url, cookie } = await startAuth(t, who);
      expect(`${url.origin}${url.pathname}`).toBe(`${fake.baseUrl}/common/oauth2/v2.0/authorize`);
      const q = url.searchParams;
      expect(q.get('client_id')).toBe(fake.oauth.clientId);
      expect(q.get('redirect_uri')).toBe(`${t.config.publicUrl}/${ONEDRIVE}/callback`);
      expect(q.get('response_type')).toBe('code');
      expect(q.get('response_mode')).toBe('query');
      expect(q.get('scope')).toBe(SCOPE);
      expect(q.get('code_challenge_method')).toBe('S256');
      expect(q.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(q.get('state')?.split('.')).toHaveLength(3);

      const codes = fake.oauth.calls.code;
      const res = await t.request({ method: 'GET', url: await authorize(url), headers: { cookie } });
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toBe(`/library/drives?connected=${ONEDRIVE}`);
      expect(fake.oauth.calls.code).toBe(codes + 1);

      const onedrive = await oneDriveOf(who);
      expect(onedrive).toMatchObject({ id: ONEDRIVE, name: 'OneDrive', search: true });
      // A personal account: the sign-in address (userPrincipalName) stands in for the missing `mail`.
      expect(onedrive.connection).toMatchObject({
        account_id: fake.oauth.account.id,
        account_email: fake.oauth.account.email,
        account_name: fake.oauth.account.name,
        scopes: SCOPE.split(' '),
        status: 'active',
      });
      const row = (await connectionRow(t, who))!;
      expect(row.access_token).toMatch(/^v1\./);
      expect(row.refresh_token).toMatch(/^v1\./);
      for (const secret of fake.oauth.issued) {
        expect(row.access_token).not.toContain(secret);
        expect(row.refresh_token).not.toContain(secret);
      }
    });

    it('refuses a tampered, replayed or expired state, and a declined consent stores nothing', async () => {
      const who = await registerUser(t);
      const invalid = `/library/drives?error=invalid_state&provider=${ONEDRIVE}`;
      const codes = fake.oauth.calls.code;

      const tampered = await startAuth(t, who);
      const back = tamperState(await authorize(tampered.url));
      let res = await t.request({ method: 'GET', url: back, headers: { cookie: tampered.cookie } });
      expect(res.headers.location).toBe(invalid);

      const once = await startAuth(t, who);
      const onceBack = await authorize(once.url);
      res = await t.request({ method: 'GET', url: onceBack, headers: { cookie: once.cookie } });
      expect(res.headers.location).toBe(`/library/drives?connected=${ONEDRIVE}`);
      res = await t.request({ method: 'GET', url: onceBack, headers: { cookie: once.cookie } });
      expect(res.headers.location).toBe(invalid);
      expect(fake.oauth.calls.code).toBe(codes + 1);

      const late = await startAuth(t, who);
      const lateBack = await authorize(late.url);
      t.advanceClock(STATE_TTL + 1);
      res = await t.request({ method: 'GET', url: lateBack, headers: { cookie: late.cookie } });
      expect(res.headers.location).toBe(invalid);

      const stranger = await registerUser(t);
      fake.oauth.deny = 'access_denied';
      const declined = await startAuth(t, stranger);
      res = await t.request({ method: 'GET', url: await authorize(declined.url), headers: { cookie: declined.cookie } });
      expect(res.headers.location).toBe(`/library/drives?error=access_denied&provider=${ONEDRIVE}`);
      expect(await connectionRow(t, stranger)).toBeUndefined();
    });
  });

  describe('browsing and downloading', () => {
    let who: Account;
    let folder: string;
    let sub: string;
    const names: string[] = [];
    beforeAll(async () => {
      who = await registerUser(t);
      await connect(t, fake, who);
      folder = fake.addFolder(`Browse ${randomBytes(3).toString('hex')}`);
      sub = fake.addFolder('Zeta sub', folder);
      fake.addFolder('alpha sub', folder);
      for (let i = 1; i <= 25; i++) {
        const name = `report ${String(i).padStart(2, '0')}.bin`;
        fake.addFile(name, `content ${i}`, { parent: folder });
        names.push(name);
      }
      fake.addNotebook('Notes', folder);
      fake.addShared('Shared with me', folder);
      fake.addFile("O'Brien report.txt", 'deep', { parent: sub, mimeType: 'text/plain' });
    });

    it('lists a folder over several pages of @odata.nextLink, by name, with an opaque cursor', async () => {
      const { pages, items } = await listAll(t, who, `folder=${encodeURIComponent(folder)}&limit=10`);
      expect(pages).toBe(3);
      // Graph sorts by name only: folders among the files.
      expect(items.map((i) => i.name)).toEqual(['alpha sub', 'Notes', ...names, 'Shared with me', 'Zeta sub']);
      expect(new Set(items.map((i) => i.id)).size).toBe(29);
      // The next pages were fetched from the nextLinks Graph gave, with the bearer token, under the API prefix.
      const pageRequests = fake.requests.filter((r) => r.path === `/v1.0/me/drive/items/${encodeURIComponent(folder)}/children`).slice(-3);
      expect(pageRequests.map((r) => new URLSearchParams(r.query).has('$skiptoken'))).toEqual([false, true, true]);
      expect(pageRequests.every((r) => r.bearer)).toBe(true);

      const file = items.find((i) => i.name === 'report 07.bin')!;
      expect(file).toMatchObject({ is_folder: false, mime_type: 'application/octet-stream', size: 9, export: null, unsupported: null });
      expect(file.thumbnail_url).toMatch(/^https:\/\/thumbnails\.onedrive\.example\/.+\/medium/);
      expect(items.find((i) => i.name === 'alpha sub')).toMatchObject({ is_folder: true, size: null, mime_type: null });
      const [notes, shared] = [items.find((i) => i.name === 'Notes')!, items.find((i) => i.name === 'Shared with me')!];
      expect([notes.is_folder, shared.is_folder]).toEqual([false, false]);
      expect(notes.unsupported).toContain('OneNote notebook');
      expect(shared.unsupported).toContain('shared item');

      // The root by default; a cursor altered or of another listing is refused.
      const root = await listFiles(t, who);
      expect(root.folder).toBeNull();
      expect(root.items.map((i) => i.id)).toContain(folder);
      const { next_cursor: cursor } = await listFiles(t, who, `folder=${encodeURIComponent(folder)}&limit=1`);
      expectError(await t.request({ method: 'GET', url: `/${ONEDRIVE}/files?folder=${encodeURIComponent(sub)}&cursor=${encodeURIComponent(cursor!)}`, token: who.token }), 400, 'VALIDATION_ERROR', 'cursor');
      // An id OneDrive could never have issued is refused before Graph is asked (no path addressing, no dot segments).
      for (const bad of ['root:/secret:', '../../me', 'a/b', 'x?y']) {
        expectError(await t.request({ method: 'GET', url: `/${ONEDRIVE}/files?folder=${encodeURIComponent(bad)}`, token: who.token }), 400, 'VALIDATION_ERROR', 'folder');
      }
    });

    it("searches a folder's whole hierarchy or the drive, quoting the text as OData wants", async () => {
      const inFolder = await listFiles(t, who, `folder=${encodeURIComponent(folder)}&q=${encodeURIComponent("o'brien")}`);
      expect(inFolder.items.map((i) => i.name)).toEqual(["O'Brien report.txt"]);
      const anywhere = await listAll(t, who, `q=${encodeURIComponent('report 1')}&limit=4`);
      expect(anywhere.pages).toBe(3);
      expect(anywhere.items.map((i) => i.name).sort()).toEqual(names.filter((n) => n.startsWith('report 1')).sort());
      expect(fake.requests.some((r) => r.path === `/v1.0/me/drive/items/${folder}/search(q='o''brien')`)).toBe(true);
    });

    it('streams a download through the pre-authenticated URL, without the token there', async () => {
      const bytes = randomBytes(300 * 1024);
      const id = fake.addFile('Großes Bild.raw', bytes, { parent: folder, mimeType: 'image/x-raw' });
      const res = await t.request({ method: 'GET', url: `/${ONEDRIVE}/download?fileId=${encodeURIComponent(id)}`, token: who.token });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-type']).toBe('image/x-raw');
      expect(res.headers['content-length']).toBe(String(bytes.length));
      expect(res.headers['content-disposition']).toContain("filename*=UTF-8''Gro%C3%9Fes%20Bild.raw");
      expect(sha256(res.rawPayload)).toBe(sha256(bytes));
      const [content, preAuthenticated] = fake.requests.slice(-2);
      expect(content).toMatchObject({ path: `/v1.0/me/drive/items/${encodeURIComponent(id)}/content`, bearer: true });
      expect(preAuthenticated).toMatchObject({ method: 'GET', bearer: false });
      expect(preAuthenticated!.path).toMatch(/^\/dl\//);

      const notebook = fake.childrenOf(folder).find((i) => i.name === 'Notes')!.id;
      const infected = fake.addFile('invoice.exe', 'MZ', { parent: folder, malware: 'Trojan:Win32/Fake' });
      for (const unsupported of [folder, notebook, infected]) {
        expectError(await t.request({ method: 'GET', url: `/${ONEDRIVE}/download?fileId=${encodeURIComponent(unsupported)}`, token: who.token }), 422, 'DRIVE_ITEM_UNSUPPORTED');
      }
      expectError(await t.request({ method: 'GET', url: `/${ONEDRIVE}/download?fileId=${fake.driveId}!999999`, token: who.token }), 404, 'NOT_FOUND');
      expectError(await t.request({ method: 'GET', url: `/${ONEDRIVE}/download?fileId=..`, token: who.token }), 400, 'VALIDATION_ERROR', 'fileId');
    });

    it("answers 502 with Graph's message when OneDrive fails, throttles or refuses", async () => {
      fake.failures.push({ path: /\/children$/, status: 500, code: 'generalException', message: 'An unspecified error has occurred.' });
      let res = await t.request({ method: 'GET', url: `/${ONEDRIVE}/files`, token: who.token });
      expectError(res, 502, 'DRIVE_PROVIDER_ERROR');
      expect(res.json()).toMatchObject({ error: 'OneDrive: An unspecified error has occurred.', provider: ONEDRIVE, provider_status: 500 });

      fake.failures.push({ path: /\/children$/, status: 429, message: 'The request has been throttled', retryAfter: '12' });
      res = await t.request({ method: 'GET', url: `/${ONEDRIVE}/files`, token: who.token });
      expectError(res, 502, 'DRIVE_PROVIDER_ERROR');
      expect(res.json()).toMatchObject({ provider_status: 429, retry_after: 12 });
      expect(res.json<{ error: string }>().error).toContain('throttled');

      const id = fake.addFile('locked.bin', 'x', { parent: folder });
      fake.failures.push({ path: /\/content$/, status: 403, code: 'accessDenied', message: 'Access denied' });
      res = await t.request({ method: 'GET', url: `/${ONEDRIVE}/download?fileId=${encodeURIComponent(id)}`, token: who.token });
      expectError(res, 502, 'DRIVE_PROVIDER_ERROR');
      expect(res.json()).toMatchObject({ error: 'OneDrive: Access denied', provider_status: 403 });
    });
  });

  describe('tokens', () => {
    it('refreshes an expired access token once, sending the scope, and keeps the rotated refresh token', async () => {
      const who = await registerUser(t);
      await connect(t, fake, who);
      const refreshes = fake.oauth.calls.refresh;
      const before = (await connectionRow(t, who))!.refresh_token;
      fake.oauth.expireAccessTokens();
      await listFiles(t, who);
      expect(fake.oauth.calls.refresh).toBe(refreshes + 1);
      // Microsoft rotates refresh tokens: the new one is stored (and the next refresh uses it).
      expect((await connectionRow(t, who))!.refresh_token).not.toBe(before);
      t.advanceClock(3600);
      const calls = fake.requests.length;
      await listFiles(t, who);
      expect(fake.oauth.calls.refresh).toBe(refreshes + 2);
      expect(fake.requests.length).toBe(calls + 1);
      expect((await connectionRow(t, who))!.status).toBe('active');
    });

    it('marks the connection when the refresh is refused, answers 409 DRIVE_REAUTH_REQUIRED until connected again', async () => {
      const who = await registerUser(t);
      await connect(t, fake, who);
      fake.oauth.revokeAllGrants();
      fake.oauth.expireAccessTokens();
      const res = await t.request({ method: 'GET', url: `/${ONEDRIVE}/files`, token: who.token });
      expectError(res, 409, 'DRIVE_REAUTH_REQUIRED');
      expect(res.json<{ error: string }>().error).toContain('invalid_grant');
      expect((await oneDriveOf(who)).connection).toMatchObject({ status: 'reauth_required' });
      await connect(t, fake, who);
      await listFiles(t, who);
      expect((await oneDriveOf(who)).connection).toMatchObject({ status: 'active', status_note: null });
    });
  });

  describe('sending assets to OneDrive', () => {
    let who: Account;
    beforeAll(async () => {
      who = await registerUser(t);
      await connect(t, fake, who);
    });

    it('sends a small file in one PUT, under a name OneDrive takes, renamed rather than replacing', async () => {
      const target = fake.addFolder('Exports');
      const small = Buffer.from('a small text file\n');
      const asset = await serverUpload(t, who, { bytes: small, name: 'notes: draft?.txt', type: 'text/plain' });
      const send = () => t.request({ method: 'POST', url: `/${ONEDRIVE}/upload`, token: who.token, payload: { assetId: asset.id, folder: target } });
      let res = await send();
      expect(res.statusCode, res.body).toBe(201);
      const created = res.json<{ data: DriveItemJson }>().data;
      expect(created).toMatchObject({ name: 'notes_ draft_.txt', is_folder: false, size: small.length });
      expect(fake.items.get(created.id)!.parentId).toBe(target);
      expect(fake.uploads.at(-1)).toMatchObject({ kind: 'simple', size: small.length, sha256: sha256(small) });
      res = await send();
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json<{ data: DriveItemJson }>().data.name).toBe('notes_ draft_ 1.txt');
      expect(fake.childrenOf(target)).toHaveLength(2);
      // Quotes and parentheses travel percent-encoded in Graph's path addressing.
      const quoted = await serverUpload(t, who, { bytes: small, name: "O'Brien (final).txt", type: 'text/plain' });
      res = await t.request({ method: 'POST', url: `/${ONEDRIVE}/upload`, token: who.token, payload: { assetId: quoted.id, folder: target } });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json<{ data: DriveItemJson }>().data.name).toBe("O'Brien (final).txt");
      expect(fake.requests.at(-1)!.path).toBe(`/v1.0/me/drive/items/${target}:/O%27Brien%20%28final%29.txt:/content`);
    });

    it('sends a 20 MiB asset through an upload session in 10 MiB fragments, resuming after a failed one', async () => {
      const big = randomBytes(20 * 1024 * 1024);
      const asset = await serverUpload(t, who, { bytes: big, name: 'footage.bin', type: 'application/octet-stream' });
      // The second fragment fails once with a 503: the upload asks the session what it holds and goes on.
      let fragments = 0;
      const original = fake.handle.bind(fake);
      fake.handle = async (req, resp, url) => {
        if (req.method === 'PUT' && url.pathname.startsWith('/up/') && ++fragments === 2) fake.failures.push({ method: 'PUT', path: /^\/up\//, status: 503, message: 'Service unavailable' });
        return original(req, resp, url);
      };
      let res;
      try {
        res = await t.request({ method: 'POST', url: `/${ONEDRIVE}/upload`, token: who.token, payload: { assetId: asset.id } });
      } finally {
        fake.handle = original;
      }
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json<{ data: DriveItemJson }>().data).toMatchObject({ name: 'footage.bin', size: big.length });
      const upload = fake.uploads.at(-1)!;
      // Two fragments accepted, the failed one sent again after one status query; never a token on the session URL.
      expect(upload).toMatchObject({ kind: 'session', size: big.length, sha256: sha256(big), puts: 2, statusQueries: 1, withAuthorization: 0 });
      expect(fragments).toBe(3);
      const created = fake.items.get(upload.itemId)!;
      expect(created.parentId).toBe(fake.rootId);
    });

    it('cancels the session when a fragment is refused, and answers 502', async () => {
      const asset = await serverUpload(t, who, { bytes: randomBytes(5 * 1024 * 1024), name: 'quota.bin', type: 'application/octet-stream' });
      fake.failures.push({ method: 'PUT', path: /^\/up\//, status: 507, code: 'quotaLimitReached', message: 'Insufficient Space Available' });
      const cancelled = fake.cancelled;
      const res = await t.request({ method: 'POST', url: `/${ONEDRIVE}/upload`, token: who.token, payload: { assetId: asset.id } });
      expectError(res, 502, 'DRIVE_PROVIDER_ERROR');
      expect(res.json()).toMatchObject({ error: 'OneDrive: Insufficient Space Available', provider_status: 507 });
      expect(fake.cancelled).toBe(cancelled + 1);
    });
  });

  describe('importing', () => {
    let archive: string;
    let target: { id: number };
    let first: ImportJson;
    let failing: string;
    const contents = new Map<string, Buffer>();

    beforeAll(async () => {
      await connect(t, fake, team.manager);
      // Archive/ (10 files and a notebook), Archive/2023/ (20), Archive/2023/Raw/ (15), Archive/2024/ (15): 60 files.
      archive = addArchive(fake, { top: 10, y2023: 20, raw: 15, y2024: 15 }, contents);
      fake.addNotebook('Meeting notes', archive);
      failing = [...contents.keys()][25]!;
      target = await makeFolder(t, team.manager, team.ws, { name: 'From OneDrive' });
    });

    const refuseFailing = () => ({ path: new RegExp(`/items/${encodeURIComponent(failing)}/content$`), status: 403, code: 'accessDenied', message: 'Access denied to this file.', times: 100 });

    it('recreates the tree under folder_id, walking every listing page, with one failing item and throttling waited out', async () => {
      // Graph answers 7 items a page here, so each folder takes several nextLinks.
      fake.maxPageSize = 7;
      fake.failures.push(
        refuseFailing(),
        { path: /\/content$/, status: 429, message: 'Too many requests', retryAfter: '1', times: 1 },
        { path: /\/children$/, status: 503, message: 'Service unavailable', retryAfter: '1', times: 1 },
      );
      const queued = await startImport(t, team.manager, { workspaceId: team.ws, folder_id: target.id, items: [{ id: archive }] });
      expect(queued).toMatchObject({ provider: ONEDRIVE, status: 'queued', recursive: true });
      first = await settleImport(t, team.manager, queued.id);
      expect(first).toMatchObject({ status: 'succeeded', total_files: 61, folders: 4, imported: 59, skipped: 1, failed: 1, pending: 0, error: null });
      expect(first.items.items.find((i) => i.status === 'failed')).toMatchObject({ file_id: failing, reason: 'provider_error', message: 'OneDrive: Access denied to this file.' });
      expect(first.items.items.find((i) => i.status === 'skipped')).toMatchObject({ name: 'Meeting notes', reason: 'unsupported' });
      expect(fake.failures).toEqual([expect.objectContaining({ status: 403, times: 99 })]);
      const pages = fake.requests.filter((r) => r.path.endsWith('/children') && new URLSearchParams(r.query).has('$skiptoken'));
      expect(pages.length).toBeGreaterThanOrEqual(6);

      const item = first.items.items.find((i) => i.name === 'raw 7.dat')!;
      const asset = await getAssetJson(t, team.manager, item.asset_id!);
      expect(asset).toMatchObject({ file_name: 'raw 7.dat', file_size: contents.get(item.file_id)!.length });
      expect(sha256(await storedBytes(t, team.manager, team.ws, asset.id))).toBe(sha256(contents.get(item.file_id)!));
      const folders = await t.database.db.selectFrom('folders').select(['id', 'name', 'parent_id']).where('workspace_id', '=', team.ws).execute();
      const top = folders.find((f) => f.parent_id === target.id && f.name === fake.items.get(archive)!.name)!;
      const y2023 = folders.find((f) => f.parent_id === top.id && f.name === '2023')!;
      expect(folders.filter((f) => f.parent_id === y2023.id).map((f) => f.name)).toEqual(['Raw']);
      const row = await t.database.db.selectFrom('assets').select('folder_id').where('id', '=', asset.id).executeTakeFirstOrThrow();
      expect(row.folder_id).toBe(folders.find((f) => f.parent_id === y2023.id)!.id);
    }, 60_000);

    it('importing again skips unchanged files (a rename is not a change), makes a new version of an edited one', async () => {
      const [edited, renamed] = [[...contents.keys()][3]!, [...contents.keys()][4]!];
      fake.updateFile(edited, randomBytes(500));
      fake.rename(renamed, 'top renamed.bin');
      const added = fake.addFile('late.bin', 'arrived later', { parent: archive });
      fake.failures.push(refuseFailing());
      const queued = await startImport(t, team.manager, { workspaceId: team.ws, folder_id: target.id, items: [{ id: archive }] });
      const again = await settleImport(t, team.manager, queued.id);
      expect(again).toMatchObject({ status: 'succeeded', total_files: 62, imported: 2, skipped: 59, failed: 1 });
      expect(again.items.items.filter((i) => i.reason === 'unchanged')).toHaveLength(58);
      expect(again.items.items.find((i) => i.file_id === renamed)).toMatchObject({ status: 'skipped', reason: 'unchanged' });
      const updated = again.items.items.find((i) => i.file_id === edited)!;
      expect(updated).toMatchObject({ status: 'imported', reason: 'new_version', asset_id: first.items.items.find((i) => i.file_id === edited)!.asset_id });
      expect((await listVersions(t, team.manager, updated.asset_id!)).map((v) => v.version)).toEqual(['v2', 'v1']);
      expect(again.items.items.find((i) => i.file_id === added)).toMatchObject({ status: 'imported', reason: 'new' });
    });

    it('checks role and connection before queueing', async () => {
      await connect(t, fake, team.viewer);
      expectError(await t.request({ method: 'POST', url: `/${ONEDRIVE}/import`, token: team.viewer.token, payload: { workspaceId: team.ws, items: [{ id: archive }] } }), 403, 'FORBIDDEN');
      expectError(await t.request({ method: 'POST', url: `/${ONEDRIVE}/import`, token: team.manager.token, payload: { workspaceId: team.otherWs, items: [{ id: archive }] } }), 404, 'NOT_FOUND');
      const stranger = await registerUser(t);
      expectError(await t.request({ method: 'POST', url: `/${ONEDRIVE}/import`, token: stranger.token, payload: { workspaceId: stranger.workspaceId, items: [{ id: archive }] } }), 409, 'DRIVE_NOT_CONNECTED');
    });
  });

  it('disconnecting deletes the connection; Microsoft has no revocation, so nothing is confirmed', async () => {
    const who = await registerUser(t);
    await connect(t, fake, who);
    const res = await t.request({ method: 'DELETE', url: `/${ONEDRIVE}/connection`, token: who.token });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ success: true, data: { provider: ONEDRIVE, revoked: false } });
    expect(fake.oauth.calls.revoke).toBe(0);
    expect(await connectionRow(t, who)).toBeUndefined();
    expect((await oneDriveOf(who)).connection).toBeNull();
    expectError(await t.request({ method: 'GET', url: `/${ONEDRIVE}/files`, token: who.token }), 409, 'DRIVE_NOT_CONNECTED');
  });

  it("keeps each user's connection their own", async () => {
    const a = await registerUser(t);
    const b = await registerUser(t);
    await connect(t, fake, a, { id: 'aaaaaaaaaaaaaaaa', email: 'a@outlook.example', name: 'A' });
    await connect(t, fake, b, { id: 'bbbbbbbbbbbbbbbb', email: 'b@contoso.example', name: 'B' });
    expect((await oneDriveOf(a)).connection).toMatchObject({ account_id: 'aaaaaaaaaaaaaaaa', account_email: 'a@outlook.example' });
    expect((await oneDriveOf(b)).connection).toMatchObject({ account_id: 'bbbbbbbbbbbbbbbb', account_email: 'b@contoso.example' });
    await t.request({ method: 'DELETE', url: `/${ONEDRIVE}/connection`, token: b.token });
    expect((await oneDriveOf(a)).connection).toMatchObject({ status: 'active' });
    await listFiles(t, a);
    expectError(await t.request({ method: 'GET', url: `/${ONEDRIVE}/files`, token: b.token }), 409, 'DRIVE_NOT_CONNECTED');
    // A's listing cursor is useless to B.
    const page = await listFiles(t, a, 'limit=1');
    await connect(t, fake, b);
    expectError(await t.request({ method: 'GET', url: `/${ONEDRIVE}/files?cursor=${encodeURIComponent(page.next_cursor!)}`, token: b.token }), 400, 'VALIDATION_ERROR', 'cursor');
  });

  it('never answers or logs a token, code or the client secret', () => {
    expectNoSecrets(ONEDRIVE, fake.oauth, logs, answers);
    const logText = logs.join('\n');
    expect(logText).not.toMatch(/code_verifier|dam_drive_binding=[A-Za-z0-9_-]{10}|tempauth=/);
  });
});

describe('OneDrive names', () => {
  it('makes names OneDrive takes', () => {
    expect(oneDriveName('notes: draft?.txt')).toBe('notes_ draft_.txt');
    expect(oneDriveName('  report.pdf. . ')).toBe('report.pdf');
    expect(oneDriveName('CON.txt')).toBe('_CON.txt');
    expect(oneDriveName('desktop.ini')).toBe('_desktop.ini');
    expect(oneDriveName('~$budget.xlsx')).toBe('_$budget.xlsx');
    expect(oneDriveName('tab\there.txt')).toBe('tab_here.txt');
    expect(oneDriveName('...')).toBe('file');
    const long = oneDriveName(`${'x'.repeat(300)}.jpeg`);
    expect(long).toHaveLength(250);
    expect(long.endsWith('.jpeg')).toBe(true);
  });
});

/** Uploads read the asset by range from the store for each fragment; imports write to it. */
describe('OneDrive with the S3 store', () => {
  let fake: FakeOneDrive;
  let s3: S3Server;
  let t: TestApp;

  beforeAll(async () => {
    [fake, s3] = await Promise.all([startFakeOneDrive(), startS3Server()]);
    t = await startOneDriveApp(fake, { dialect: 'sqlite', config: { storage: await s3.newBucket() } });
  });
  afterAll(async () => {
    await t.close();
    await Promise.all([fake.close(), s3.close()]);
  });

  it('imports into S3 and sends a 20 MiB asset from S3 through an upload session', async () => {
    const who = await registerUser(t);
    await connect(t, fake, who);
    const big = randomBytes(6 * 1024 * 1024 + 123);
    const id = fake.addFile('big.bin', big);
    await t.app.jobs.drain();
    const job = await startImport(t, who, { workspaceId: who.workspaceId, items: [{ id }] });
    const done = await settleImport(t, who, job.id);
    expect(done).toMatchObject({ status: 'succeeded', imported: 1, bytes: big.length });
    expect(sha256(await storedBytes(t, who, who.workspaceId, done.items.items[0]!.asset_id!))).toBe(sha256(big));

    const twenty = randomBytes(20 * 1024 * 1024);
    const asset = await serverUpload(t, who, { bytes: twenty, name: 'twenty.bin', type: 'application/octet-stream' });
    const res = await t.request({ method: 'POST', url: `/${ONEDRIVE}/upload`, token: who.token, payload: { assetId: asset.id } });
    expect(res.statusCode, res.body).toBe(201);
    expect(fake.uploads.at(-1)).toMatchObject({ kind: 'session', size: twenty.length, sha256: sha256(twenty), puts: 2, withAuthorization: 0 });
  });
});
