import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { STATE_TTL } from '../src/services/drives/drive-auth-service.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { expectError, makeTeam, type Team } from './helpers/catalog-factories.js';
import { dialects } from './helpers/databases.js';
import { authorize, driveHelpers, expectNoSecrets, GDRIVE, listDrives, sha256, tamperState, type DriveItemJson } from './helpers/drives.js';
import { startFakeGoogleDrive, type FakeGoogleDrive } from './helpers/fake-gdrive.js';
import { registerUser, type Account } from './helpers/factories.js';
import { listVersions, serverUpload, uploadVersion } from './helpers/versions.js';

const { startDriveApp, startAuth, connect, listFiles, listAll, connectionRow } = driveHelpers(GDRIVE);

describe('external drives without configuration', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('lists no provider and answers 404 DRIVE_NOT_CONFIGURED on every drive-ext-1 route', async () => {
    const who = await registerUser(t);
    const drives = await t.request({ method: 'GET', url: '/drives', token: who.token });
    expect(drives.statusCode).toBe(200);
    expect(drives.json()).toEqual({ success: true, data: { providers: [] } });
    for (const [method, url, payload] of [
      ['GET', `/${GDRIVE}/auth`, undefined],
      ['GET', `/${GDRIVE}/files`, undefined],
      ['GET', `/${GDRIVE}/download?fileId=abc`, undefined],
      ['POST', `/${GDRIVE}/upload`, { assetId: 1 }],
      ['POST', `/${GDRIVE}/import`, { workspaceId: who.workspaceId, items: [{ id: 'abc' }] }],
      ['DELETE', `/${GDRIVE}/connection`, undefined],
    ] as const) {
      const res = await t.request({ method, url, token: who.token, ...(payload ? { payload } : {}) });
      expectError(res, 404, 'DRIVE_NOT_CONFIGURED');
      expect(res.json<{ error: string }>().error).toContain(GDRIVE);
    }
    // The callback is public: the browser comes from the provider without a token.
    expectError(await t.request({ method: 'GET', url: `/${GDRIVE}/callback?state=x&code=y` }), 404, 'DRIVE_NOT_CONFIGURED');
  });
});

/** Google Drive (drive-ext-1) against test/helpers/fake-gdrive.ts, on every dialect; the API base carries a path prefix. */
describe.each(dialects)('Google Drive (%s)', (dialect) => {
  let fake: FakeGoogleDrive;
  let t: TestApp;
  let team: Team;
  const logs: string[] = [];
  const answers: string[] = [];

  beforeAll(async () => {
    fake = await startFakeGoogleDrive({ apiPrefix: '/gapi' });
    t = await startDriveApp(fake, { dialect, logs, answers });
    team = await makeTeam(t);
  });
  afterEach(() => {
    fake.failures = [];
    fake.oauth.deny = null;
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });


  describe('connecting', () => {
    it('sends the browser to Google with PKCE S256, offline access and a signed state, and stores the connection', async () => {
      const who = await registerUser(t);
      const { url, cookie } = await startAuth(t, who);
      expect(`${url.origin}${url.pathname}`).toBe(`${fake.baseUrl}/o/oauth2/v2/auth`);
      const q = url.searchParams;
      expect(q.get('client_id')).toBe(fake.oauth.clientId);
      expect(q.get('redirect_uri')).toBe(`${t.config.publicUrl}/${GDRIVE}/callback`);
      expect(q.get('response_type')).toBe('code');
      expect(q.get('scope')).toBe('https://www.googleapis.com/auth/drive');
      expect(q.get('access_type')).toBe('offline');
      expect(q.get('code_challenge_method')).toBe('S256');
      expect(q.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(q.get('state')?.split('.')).toHaveLength(3);
      expect(cookie).toMatch(/^dam_drive_binding=[A-Za-z0-9_-]{43}$/);
      const setCookie = String((await t.request({ method: 'GET', url: `/${GDRIVE}/auth`, token: who.token })).headers['set-cookie']);
      expect(setCookie).toContain('HttpOnly');
      expect(setCookie).toContain('SameSite=Lax');
      expect(setCookie).toContain(`Path=/${GDRIVE}/callback`);

      const codes = fake.oauth.calls.code;
      const callback = await authorize(url);
      expect(callback).toMatch(new RegExp(`^/${GDRIVE}/callback\\?`));
      const res = await t.request({ method: 'GET', url: callback, headers: { cookie } });
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toBe(`/library/drives?connected=${GDRIVE}`);
      expect(String(res.headers['set-cookie'])).toContain('Max-Age=0');
      expect(fake.oauth.calls.code).toBe(codes + 1);

      const [google] = await listDrives(t, who);
      expect(google).toMatchObject({ id: GDRIVE, name: 'Google Drive', search: true });
      expect(google!.connection).toMatchObject({
        account_id: fake.oauth.account.id,
        account_email: fake.oauth.account.email,
        account_name: fake.oauth.account.name,
        scopes: ['https://www.googleapis.com/auth/drive'],
        status: 'active',
        status_note: null,
      });
      // At rest: sealed text, never the tokens Google issued.
      const row = (await connectionRow(t, who))!;
      expect(row.access_token).toMatch(/^v1\./);
      expect(row.refresh_token).toMatch(/^v1\./);
      for (const secret of fake.oauth.issued) {
        expect(row.access_token).not.toContain(secret);
        expect(row.refresh_token).not.toContain(secret);
      }
    });

    it('returns to a workspace\'s drives page, or to return_to, and refuses a return_to off this site', async () => {
      const who = await registerUser(t);
      const { url, cookie } = await startAuth(t, who, `workspaceId=${who.workspaceId}`);
      const res = await t.request({ method: 'GET', url: await authorize(url), headers: { cookie } });
      expect(res.headers.location).toBe(`/library/drives?workspaceId=${who.workspaceId}&connected=${GDRIVE}`);
      expect(await connect(t, fake, who)).toBe(`/library/drives?connected=${GDRIVE}`);
      for (const bad of ['https://evil.example/', '//evil.example/x', '/\\evil.example', 'library/drives', 'javascript:alert(1)']) {
        const r = await t.request({ method: 'GET', url: `/${GDRIVE}/auth?return_to=${encodeURIComponent(bad)}`, token: who.token });
        expectError(r, 400, 'VALIDATION_ERROR', 'return_to');
      }
      // Another workspace than the caller's own: not revealed.
      expectError(await t.request({ method: 'GET', url: `/${GDRIVE}/auth?workspaceId=${team.otherWs}`, token: who.token }), 404, 'NOT_FOUND');
    });

    it('refuses a tampered, replayed, expired or foreign-browser state, and a declined consent stores nothing', async () => {
      const who = await registerUser(t);
      const invalid = `/library/drives?error=invalid_state&provider=${GDRIVE}`;

      const tampered = await startAuth(t, who);
      const back = tamperState(await authorize(tampered.url));
      const codes = fake.oauth.calls.code;
      let res = await t.request({ method: 'GET', url: back, headers: { cookie: tampered.cookie } });
      expect(res.headers.location).toBe(invalid);

      // The right state in another browser (no binding cookie, or another one).
      const other = await startAuth(t, who);
      const otherBack = await authorize(other.url);
      res = await t.request({ method: 'GET', url: otherBack });
      expect(res.headers.location).toBe(invalid);
      // That state was spent by the attempt: with the right cookie now, it is a replay.
      res = await t.request({ method: 'GET', url: otherBack, headers: { cookie: other.cookie } });
      expect(res.headers.location).toBe(invalid);

      // A good callback works once; the same URL again is a replay.
      const once = await startAuth(t, who);
      const onceBack = await authorize(once.url);
      res = await t.request({ method: 'GET', url: onceBack, headers: { cookie: once.cookie } });
      expect(res.headers.location).toBe(`/library/drives?connected=${GDRIVE}`);
      res = await t.request({ method: 'GET', url: onceBack, headers: { cookie: once.cookie } });
      expect(res.headers.location).toBe(invalid);
      expect(fake.oauth.calls.code).toBe(codes + 1);

      // Expired: the state lives STATE_TTL seconds.
      const late = await startAuth(t, who);
      const lateBack = await authorize(late.url);
      t.advanceClock(STATE_TTL + 1);
      res = await t.request({ method: 'GET', url: lateBack, headers: { cookie: late.cookie } });
      expect(res.headers.location).toBe(invalid);

      // Declined at Google: back to return_to with the error; nothing stored.
      const stranger = await registerUser(t);
      fake.oauth.deny = 'access_denied';
      const declined = await startAuth(t, stranger);
      res = await t.request({ method: 'GET', url: await authorize(declined.url), headers: { cookie: declined.cookie } });
      expect(res.headers.location).toBe(`/library/drives?error=access_denied&provider=${GDRIVE}`);
      expect(await connectionRow(t, stranger)).toBeUndefined();
      // A code the token endpoint refuses is exchange_failed: here one issued to another authorization request,
      // whose PKCE verifier this request does not have.
      fake.oauth.deny = null;
      const used = await startAuth(t, stranger);
      const usedBack = new URL(await authorize(used.url), 'http://x');
      const first = await startAuth(t, stranger);
      const firstBack = new URL(await authorize(first.url), 'http://x');
      usedBack.searchParams.set('code', firstBack.searchParams.get('code')!);
      res = await t.request({ method: 'GET', url: `${usedBack.pathname}${usedBack.search}`, headers: { cookie: used.cookie } });
      expect(res.headers.location).toBe(`/library/drives?error=exchange_failed&provider=${GDRIVE}`);
      expect(await connectionRow(t, stranger)).toBeUndefined();
    });
  });

  describe('browsing and downloading', () => {
    let who: Account;
    let folder: string;
    const names: string[] = [];
    beforeAll(async () => {
      who = await registerUser(t);
      await connect(t, fake, who);
      folder = fake.addFolder(`Browse ${randomBytes(3).toString('hex')}`);
      fake.addFolder('Zeta sub', folder);
      fake.addFolder('alpha sub', folder);
      for (let i = 1; i <= 25; i++) names.push(fake.files.get(fake.addFile(`report ${i}.bin`, `content ${i}`, { parent: folder }))!.name);
      fake.addDoc('Plan', 'document', folder);
      fake.addDoc('Survey', 'form', folder);
    });

    it('lists a folder over several pages with an opaque cursor: folders first, then files by name', async () => {
      const { pages, items: seen } = await listAll(t, who, `folder=${folder}&limit=10`, (page) => expect(page.folder).toBe(folder));
      expect(pages).toBe(3);
      // Natural order: report 2 before report 10.
      const reports = [...names].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
      expect(seen.map((i) => i.name)).toEqual(['alpha sub', 'Zeta sub', 'Plan', ...reports, 'Survey']);
      expect(seen.slice(0, 2).every((i) => i.is_folder)).toBe(true);
      expect(new Set(seen.map((i) => i.id)).size).toBe(29);
      const file = seen.find((i) => i.name === 'report 7.bin')!;
      expect(file).toMatchObject({ is_folder: false, mime_type: 'application/octet-stream', size: 9, export: null, unsupported: null });
      expect(file.thumbnail_url).toMatch(/^https:\/\//);
      expect(seen.find((i) => i.name === 'Plan')).toMatchObject({
        size: null,
        export: { mime_type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', extension: 'docx' },
      });
      expect(seen.find((i) => i.name === 'Survey')!.unsupported).toContain('form');
    });

    it('binds the cursor to its listing and refuses an altered one', async () => {
      const page = await listFiles(t, who, `folder=${folder}&limit=5`);
      const cursor = page.next_cursor!;
      expectError(await t.request({ method: 'GET', url: `/${GDRIVE}/files?folder=root&cursor=${encodeURIComponent(cursor)}`, token: who.token }), 400, 'VALIDATION_ERROR', 'cursor');
      const altered = `${cursor.slice(0, -3)}${cursor.endsWith('AAA') ? 'BBB' : 'AAA'}`;
      expectError(await t.request({ method: 'GET', url: `/${GDRIVE}/files?cursor=${encodeURIComponent(altered)}`, token: who.token }), 400, 'VALIDATION_ERROR', 'cursor');
      // Someone else's cursor is not theirs to use.
      const other = await registerUser(t);
      await connect(t, fake, other);
      expectError(await t.request({ method: 'GET', url: `/${GDRIVE}/files?cursor=${encodeURIComponent(cursor)}`, token: other.token }), 400, 'VALIDATION_ERROR', 'cursor');
      // Without folder, the cursor's own folder is used.
      const next = await listFiles(t, who, `cursor=${encodeURIComponent(cursor)}&limit=5`);
      expect(next.folder).toBe(folder);
      // A folder id Google could never have issued is refused before Google is asked.
      expectError(await t.request({ method: 'GET', url: `/${GDRIVE}/files?folder=${encodeURIComponent("x' or name contains '")}`, token: who.token }), 400, 'VALIDATION_ERROR', 'folder');
    });

    it('searches by name within a folder or the whole drive', async () => {
      const inFolder = await listFiles(t, who, `folder=${folder}&q=${encodeURIComponent('report 1')}`);
      expect(inFolder.items.map((i) => i.name).sort()).toEqual(names.filter((n) => n.includes('report 1')).sort());
      const anywhere = await listFiles(t, who, `q=plan`);
      expect(anywhere.folder).toBeNull();
      expect(anywhere.items.map((i) => i.name)).toContain('Plan');
      expect(fake.requests.some((r) => r.path === '/drive/v3/files' && new URLSearchParams(r.query).get('q') === "trashed = false and name contains 'plan'")).toBe(true);
    });

    it('streams a download with its type, length and name; a Google document as its export', async () => {
      const bytes = randomBytes(300 * 1024);
      const id = fake.addFile('Großes Bild.raw', bytes, { parent: folder, mimeType: 'image/x-raw' });
      let res = await t.request({ method: 'GET', url: `/${GDRIVE}/download?fileId=${id}`, token: who.token });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('image/x-raw');
      expect(res.headers['content-length']).toBe(String(bytes.length));
      expect(res.headers['content-disposition']).toContain("filename*=UTF-8''Gro%C3%9Fes%20Bild.raw");
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(sha256(res.rawPayload)).toBe(sha256(bytes));

      const doc = fake.addDoc('Quarterly plan', 'document', folder);
      res = await t.request({ method: 'GET', url: `/${GDRIVE}/download?fileId=${doc}`, token: who.token });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.wordprocessingml.document');
      expect(res.headers['content-disposition']).toContain('filename="Quarterly plan.docx"');
      expect(res.body).toContain('exported Quarterly plan');

      expectError(await t.request({ method: 'GET', url: `/${GDRIVE}/download?fileId=${folder}`, token: who.token }), 422, 'DRIVE_ITEM_UNSUPPORTED');
      const form = fake.addDoc('Feedback', 'form', folder);
      expectError(await t.request({ method: 'GET', url: `/${GDRIVE}/download?fileId=${form}`, token: who.token }), 422, 'DRIVE_ITEM_UNSUPPORTED');
      expectError(await t.request({ method: 'GET', url: `/${GDRIVE}/download?fileId=doesNotExist123`, token: who.token }), 404, 'NOT_FOUND');
    });

    it("answers 502 with Google's message when Drive fails, rate limits or refuses", async () => {
      fake.failures.push({ path: /^\/drive\/v3\/files$/, status: 500, message: 'Backend Error' });
      let res = await t.request({ method: 'GET', url: `/${GDRIVE}/files`, token: who.token });
      expectError(res, 502, 'DRIVE_PROVIDER_ERROR');
      expect(res.json()).toMatchObject({ error: 'Google Drive: Backend Error', provider: GDRIVE, provider_status: 500 });

      fake.failures.push({ path: /^\/drive\/v3\/files$/, status: 429, message: 'Quota exceeded for quota metric', retryAfter: '7' });
      res = await t.request({ method: 'GET', url: `/${GDRIVE}/files`, token: who.token });
      expectError(res, 502, 'DRIVE_PROVIDER_ERROR');
      expect(res.json()).toMatchObject({ provider_status: 429, retry_after: 7 });
      expect(res.json<{ error: string }>().error).toContain('Quota exceeded');

      const id = fake.addFile('locked.bin', 'x', { parent: folder });
      fake.failures.push({ path: new RegExp(`^/drive/v3/files/${id}$`), query: /alt=media/, status: 403, reason: 'cannotDownloadFile', message: 'This file cannot be downloaded' });
      res = await t.request({ method: 'GET', url: `/${GDRIVE}/download?fileId=${id}`, token: who.token });
      expectError(res, 502, 'DRIVE_PROVIDER_ERROR');
      expect(res.json()).toMatchObject({ error: 'Google Drive: This file cannot be downloaded', provider_status: 403 });
    });
  });

  describe('tokens', () => {
    it('refreshes an expired access token once, transparently, also when Google revoked it early', async () => {
      const who = await registerUser(t);
      await connect(t, fake, who);
      const refreshes = fake.oauth.calls.refresh;
      // Google stopped taking the token before its hour was up: 401, one refresh, the call again.
      fake.oauth.expireAccessTokens();
      await listFiles(t, who);
      expect(fake.oauth.calls.refresh).toBe(refreshes + 1);
      await listFiles(t, who);
      expect(fake.oauth.calls.refresh).toBe(refreshes + 1);
      // Past its expiry on our clock: refreshed before use, without a 401 first.
      const unauthorised = () => fake.requests.length;
      t.advanceClock(3600);
      const before = unauthorised();
      await listFiles(t, who);
      expect(fake.oauth.calls.refresh).toBe(refreshes + 2);
      expect(fake.requests.length).toBe(before + 1);
      const row = (await connectionRow(t, who))!;
      expect(row.status).toBe('active');
    });

    it('marks the connection when the refresh is refused, answers 409 DRIVE_REAUTH_REQUIRED until connected again', async () => {
      const who = await registerUser(t);
      await connect(t, fake, who);
      fake.oauth.revokeAllGrants();
      fake.oauth.expireAccessTokens();
      const res = await t.request({ method: 'GET', url: `/${GDRIVE}/files`, token: who.token });
      expectError(res, 409, 'DRIVE_REAUTH_REQUIRED');
      expect(res.json<{ error: string }>().error).toContain('invalid_grant');
      const [google] = await listDrives(t, who);
      expect(google!.connection).toMatchObject({ status: 'reauth_required' });
      expect(String(google!.connection!.status_note)).toContain('Token has been expired or revoked');
      // No new attempt while marked.
      const refreshes = fake.oauth.calls.refresh;
      expectError(await t.request({ method: 'GET', url: `/${GDRIVE}/files`, token: who.token }), 409, 'DRIVE_REAUTH_REQUIRED');
      expect(fake.oauth.calls.refresh).toBe(refreshes);
      // Connecting again makes it usable.
      await connect(t, fake, who);
      await listFiles(t, who);
      expect((await listDrives(t, who))[0]!.connection).toMatchObject({ status: 'active', status_note: null });
    });

    it("answers 502 and keeps the connection when Google refuses the instance's client (a rotated secret), not the user's grant", async () => {
      const who = await registerUser(t);
      await connect(t, fake, who);
      const oauthFake = fake.oauth as { clientSecret: string | undefined };
      const secret = oauthFake.clientSecret;
      oauthFake.clientSecret = 'rotated-at-google';
      try {
        fake.oauth.expireAccessTokens();
        const res = await t.request({ method: 'GET', url: `/${GDRIVE}/files`, token: who.token });
        expectError(res, 502, 'DRIVE_PROVIDER_ERROR');
        expect(res.json<{ error: string }>().error).toContain('invalid_client');
        expect((await listDrives(t, who))[0]!.connection).toMatchObject({ status: 'active' });
      } finally {
        oauthFake.clientSecret = secret;
      }
      // Once the instance's secret matches again, the same connection works: nobody had to reconnect.
      await listFiles(t, who);
    });
  });

  describe('sending assets to the drive', () => {
    let who: Account;
    beforeAll(async () => {
      who = await registerUser(t);
      await connect(t, fake, who);
    });

    it('sends a small file in one request and a 20 MiB one through the resumable API, resuming after a failed chunk', async () => {
      const target = fake.addFolder('Exports');
      const small = Buffer.from('a small text file\n');
      const asset = await serverUpload(t, who, { bytes: small, name: 'notes.txt', type: 'text/plain' });
      let res = await t.request({ method: 'POST', url: `/${GDRIVE}/upload`, token: who.token, payload: { assetId: asset.id, folder: target } });
      expect(res.statusCode, res.body).toBe(201);
      const created = res.json<{ data: DriveItemJson }>().data;
      expect(created).toMatchObject({ name: 'notes.txt', is_folder: false, size: small.length });
      expect(fake.files.get(created.id)!.parents).toEqual([target]);
      expect(fake.uploads.at(-1)).toMatchObject({ kind: 'multipart', size: small.length, sha256: sha256(small) });

      const big = randomBytes(20 * 1024 * 1024);
      const bigAsset = await serverUpload(t, who, { bytes: big, name: 'footage.bin', type: 'application/octet-stream' });
      // The second chunk fails once with a 503: the upload asks Drive what it holds and goes on from there.
      let chunks = 0;
      const failSecondChunk = { method: 'PUT', path: /^\/upload\/drive\/v3\/files$/, status: 503, message: 'Service Unavailable', times: 1 };
      const original = fake.handle.bind(fake);
      fake.handle = async (req, resp, url) => {
        if (req.method === 'PUT' && ++chunks === 2) fake.failures.push({ ...failSecondChunk });
        return original(req, resp, url);
      };
      try {
        res = await t.request({ method: 'POST', url: `/${GDRIVE}/upload`, token: who.token, payload: { assetId: bigAsset.id } });
      } finally {
        fake.handle = original;
      }
      expect(res.statusCode, res.body).toBe(201);
      const upload = fake.uploads.at(-1)!;
      expect(upload).toMatchObject({ kind: 'resumable', size: big.length, sha256: sha256(big) });
      // 3 chunks of 8, 8 and 4 MiB, the failed one sent again after a status query.
      expect(upload.puts).toBe(4);
      expect(res.json<{ data: DriveItemJson }>().data).toMatchObject({ name: 'footage.bin', size: big.length });
    });

    it('sends an older version when asked, and refuses assets the caller cannot see', async () => {
      const asset = await serverUpload(t, who, { bytes: Buffer.from('first'), name: 'draft.txt', type: 'text/plain' });
      await uploadVersion(t, who, asset.id, { bytes: Buffer.from('second'), name: 'draft.txt', type: 'text/plain' });
      const [, v1] = await listVersions(t, who, asset.id);
      const res = await t.request({ method: 'POST', url: `/${GDRIVE}/upload`, token: who.token, payload: { assetId: asset.id, version_id: v1!.id } });
      expect(res.statusCode, res.body).toBe(201);
      expect(fake.uploads.at(-1)!.sha256).toBe(sha256(Buffer.from('first')));

      expectError(await t.request({ method: 'POST', url: `/${GDRIVE}/upload`, token: team.outsider.token, payload: { assetId: asset.id } }), 404, 'NOT_FOUND');
      const other = await serverUpload(t, who, { bytes: Buffer.from('x'), name: 'x.txt', type: 'text/plain' });
      const [otherVersion] = await listVersions(t, who, other.id);
      expectError(await t.request({ method: 'POST', url: `/${GDRIVE}/upload`, token: who.token, payload: { assetId: asset.id, version_id: otherVersion!.id } }), 404, 'NOT_FOUND');
      // Not connected: 409 (after the asset check, so nothing is revealed about the asset either way).
      const stranger = await registerUser(t);
      const mine = await serverUpload(t, stranger, { bytes: Buffer.from('y'), name: 'y.txt', type: 'text/plain' });
      expectError(await t.request({ method: 'POST', url: `/${GDRIVE}/upload`, token: stranger.token, payload: { assetId: mine.id } }), 409, 'DRIVE_NOT_CONNECTED');
    });
  });

  it('disconnecting revokes the grant at Google and forgets the tokens', async () => {
    const who = await registerUser(t);
    await connect(t, fake, who);
    const revokes = fake.oauth.calls.revoke;
    const live = fake.oauth.liveRefreshTokens();
    const res = await t.request({ method: 'DELETE', url: `/${GDRIVE}/connection`, token: who.token });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ success: true, data: { provider: GDRIVE, revoked: true } });
    expect(fake.oauth.calls.revoke).toBe(revokes + 1);
    expect(fake.oauth.liveRefreshTokens()).toBe(live - 1);
    expect(await connectionRow(t, who)).toBeUndefined();
    expect((await listDrives(t, who))[0]!.connection).toBeNull();
    expectError(await t.request({ method: 'GET', url: `/${GDRIVE}/files`, token: who.token }), 409, 'DRIVE_NOT_CONNECTED');
    expectError(await t.request({ method: 'DELETE', url: `/${GDRIVE}/connection`, token: who.token }), 409, 'DRIVE_NOT_CONNECTED');
  });

  it("keeps each user's connection their own", async () => {
    const a = await registerUser(t);
    const b = await registerUser(t);
    await connect(t, fake, a, { id: '11111111111111111111', email: 'a@example.test', name: 'A' });
    await connect(t, fake, b, { id: '22222222222222222222', email: 'b@example.test', name: 'B' });
    expect((await listDrives(t, a))[0]!.connection).toMatchObject({ account_email: 'a@example.test' });
    expect((await listDrives(t, b))[0]!.connection).toMatchObject({ account_email: 'b@example.test' });
    // B disconnecting leaves A connected.
    await t.request({ method: 'DELETE', url: `/${GDRIVE}/connection`, token: b.token });
    expect((await listDrives(t, a))[0]!.connection).toMatchObject({ account_email: 'a@example.test', status: 'active' });
    await listFiles(t, a);
    expectError(await t.request({ method: 'GET', url: `/${GDRIVE}/files`, token: b.token }), 409, 'DRIVE_NOT_CONNECTED');
    // A sealed token copied into another user's row does not open there: that connection has to be authorised again.
    const rowA = (await connectionRow(t, a))!;
    await connect(t, fake, b);
    await t.database.db.updateTable('drive_connections').set({ access_token: rowA.access_token, expires_at: null }).where('user_id', '=', b.user.id).execute();
    const apiCalls = fake.requests.length;
    expectError(await t.request({ method: 'GET', url: `/${GDRIVE}/files`, token: b.token }), 409, 'DRIVE_REAUTH_REQUIRED');
    expect(fake.requests.length).toBe(apiCalls);
    await listFiles(t, a);
  });

  it('never answers or logs a token, code or the client secret', async () => {
    expectNoSecrets(GDRIVE, fake.oauth, logs, answers);
    const logText = logs.join('\n');
    // The PKCE verifier and the binding cookie's value are not logged either (the state's nonce holds neither).
    expect(logText).not.toMatch(/code_verifier|dam_drive_binding=[A-Za-z0-9_-]{10}/);
  });
});
