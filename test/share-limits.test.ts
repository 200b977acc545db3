import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';
import { expectError, makeTeam, type Team } from './helpers/catalog-factories.js';
import { dialects } from './helpers/databases.js';
import type { Envelope } from './helpers/factories.js';
import { accessLog, createShare, createShareRequest, publicRequest, textFile, uploadInto, type ShareJson } from './helpers/shares.js';

const DAY = 86_400;

/**
 * Issue #28 items 10 and 11: a download limit that Range requests could not slip past (download grants), and the
 * managers' cap on a shared link's expiry (the workspace's share_max_expiry_days).
 */
describe.each(dialects)('shared links: limits (%s)', (dialect) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ dialect });
  });
  afterAll(() => t.close());

  // The app's clock: the real one plus what the tests moved it by.
  let moved = 0;
  const now = () => Math.floor(Date.now() / 1000) + moved;
  const managed = async (team: Team, id: number) =>
    (await t.request({ method: 'GET', url: `/shared/${id}`, token: team.owner.token })).json<Envelope<ShareJson>>().data;
  const download = (key: string, assetId: number, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') =>
    publicRequest(t, `/shared/public/${key}/assets/${assetId}/download`, { headers, method });
  const patchShare = (team: Team, id: number, body: Record<string, unknown>, who = team.manager) =>
    t.request({ method: 'PATCH', url: `/shared/${id}`, token: who.token, payload: body });
  const patchWorkspace = (team: Team, body: Record<string, unknown>, who = team.owner) =>
    t.request({ method: 'PATCH', url: `/workspaces/${team.ws}`, token: who.token, payload: body });

  describe('max_downloads and Range (item 10)', () => {
    it('counts the first ranged request, refuses a new one once the limit is reached, and lets the counted download resume', async () => {
      const team = await makeTeam(t);
      const content = 'abcdefghijklmnopqrstuvwxyz';
      const asset = await uploadInto(t, team.owner, textFile('limited.txt', content));
      const link = await createShare(t, team.owner, { asset_ids: [asset.id], max_downloads: 1 });

      // Before the fix, `Range: bytes=1-` was never counted: 21 such requests all answered 206 with download_count 0.
      const first = await download(link.key, asset.id, { range: 'bytes=1-' });
      expect(first.statusCode).toBe(206);
      expect(first.rawPayload.toString()).toBe(content.slice(1));
      const grant = String(first.headers['x-download-grant']);
      expect(grant.length).toBeGreaterThan(20);
      const cookie = String(first.headers['set-cookie']);
      expect(cookie).toContain(`dam_dl=${grant}`);
      expect(cookie).toContain(`Path=/shared/public/${link.key}/assets/${asset.id}/download`);
      expect(cookie).toContain('HttpOnly');
      expect((await managed(team, link.id)).download_count).toBe(1);

      // Another visitor (or the same one without the grant), ranged or not: a new download, refused.
      for (const range of ['bytes=1-', 'bytes=0-', 'bytes=20-25']) {
        expectError(await download(link.key, asset.id, { range }), 410, 'SHARE_DOWNLOAD_LIMIT');
      }
      expectError(await download(link.key, asset.id), 410, 'SHARE_DOWNLOAD_LIMIT');
      expectError(await download(link.key, asset.id, { range: 'bytes=1-', 'x-download-grant': 'forged.grant.value' }), 410, 'SHARE_DOWNLOAD_LIMIT');

      // The counted download resumes with its grant: the header (API clients) or the cookie (browsers).
      const resumed = await download(link.key, asset.id, { range: 'bytes=10-', 'x-download-grant': grant });
      expect(resumed.statusCode).toBe(206);
      expect(resumed.rawPayload.toString()).toBe(content.slice(10));
      expect(resumed.headers['x-download-grant']).toBeUndefined();
      const byCookie = await download(link.key, asset.id, { range: 'bytes=0-0', cookie: `other=1; dam_dl=${grant}` });
      expect(byCookie.statusCode).toBe(206);
      expect(byCookie.rawPayload.toString()).toBe('a');

      expect((await managed(team, link.id)).download_count).toBe(1);
      expect((await accessLog(t, team.owner, link.id)).map((e) => [e.action, e.asset_id])).toEqual([['download', asset.id]]);
    });

    it("a grant is for one file and one day: it does not open the link's other files, nor the same file after it expired", async () => {
      const team = await makeTeam(t);
      const a = await uploadInto(t, team.owner, textFile('a.txt', 'first file'));
      const b = await uploadInto(t, team.owner, textFile('b.txt', 'second file'));
      const link = await createShare(t, team.owner, { asset_ids: [a.id, b.id], max_downloads: 1 });
      const first = await download(link.key, a.id, { range: 'bytes=2-' });
      expect(first.statusCode).toBe(206);
      const grant = String(first.headers['x-download-grant']);

      expectError(await download(link.key, b.id, { range: 'bytes=2-', 'x-download-grant': grant }), 410, 'SHARE_DOWNLOAD_LIMIT');
      expect((await download(link.key, a.id, { 'x-download-grant': grant })).statusCode).toBe(200);
      expect((await managed(team, link.id)).download_count).toBe(1);
      // A day later (the link itself lasts 30): a new download, refused.
      t.advanceClock(DAY + 60);
      moved += DAY + 60;
      expectError(await download(link.key, a.id, { range: 'bytes=2-', 'x-download-grant': grant }), 410, 'SHARE_DOWNLOAD_LIMIT');
    });

    it('every visitor without a grant counts, ranges or not, up to the limit', async () => {
      const team = await makeTeam(t);
      const asset = await uploadInto(t, team.owner, textFile('three.txt', '0123456789'));
      const link = await createShare(t, team.owner, { asset_ids: [asset.id], max_downloads: 3 });
      const statuses = [];
      for (let i = 0; i < 5; i += 1) statuses.push((await download(link.key, asset.id, { range: `bytes=${i + 1}-` })).statusCode);
      expect(statuses).toEqual([206, 206, 206, 410, 410]);
      expect((await managed(team, link.id)).download_count).toBe(3);
    });

    it('a ZIP answers no ranges: each request is a new archive and counts', async () => {
      const team = await makeTeam(t);
      const asset = await uploadInto(t, team.owner, textFile('zipped.txt', 'zip me'));
      const link = await createShare(t, team.owner, { asset_ids: [asset.id], max_downloads: 1 });
      const zip = await publicRequest(t, `/shared/public/${link.key}/zip`, { headers: { range: 'bytes=1-' } });
      expect(zip.statusCode).toBe(200);
      expect(zip.headers['content-range']).toBeUndefined();
      expectError(await publicRequest(t, `/shared/public/${link.key}/zip`, { headers: { range: 'bytes=1-' } }), 410, 'SHARE_DOWNLOAD_LIMIT');
      expect((await managed(team, link.id)).download_count).toBe(1);
    });
  });

  describe("managers' expiry cap (item 11)", () => {
    it('refuses a manager an expiry past the cap on create and PATCH (403 naming the latest allowed); admins may go further', async () => {
      const team = await makeTeam(t);
      const asset = await uploadInto(t, team.owner, textFile('cap.txt'));
      const ws = (await t.request({ method: 'GET', url: `/workspaces/${team.ws}`, token: team.manager.token })).json<Envelope<{ share_max_expiry_days: number }>>().data;
      expect(ws.share_max_expiry_days).toBe(90);

      // The case: the year 5138 from a manager.
      const far = await createShareRequest(t, team.manager, { workspaceId: team.ws, asset_ids: [asset.id], expires_at: 99_999_999_999 });
      expectError(far, 403, 'FORBIDDEN');
      const body = far.json<{ error: string; field: string; max_expires_at: number; share_max_expiry_days: number }>();
      expect(body.error).toContain('90 days');
      expect(body).toMatchObject({ field: 'expires_at', share_max_expiry_days: 90 });
      expect(body.max_expires_at).toBeGreaterThanOrEqual(now() + 90 * DAY - 5);
      expectError(await createShareRequest(t, team.manager, { workspaceId: team.ws, asset_ids: [asset.id], expires_at: now() + 91 * DAY }), 403, 'FORBIDDEN');

      const within = await createShare(t, team.manager, { workspaceId: team.ws, asset_ids: [asset.id], expires_at: now() + 89 * DAY });
      expect(within.expires_at).toBeGreaterThan(now());
      expectError(await patchShare(team, within.id, { expires_at: 99_999_999_999 }), 403, 'FORBIDDEN');
      expectError(await patchShare(team, within.id, { expires_at: now() + 91 * DAY }), 403, 'FORBIDDEN');
      expect((await patchShare(team, within.id, { expires_at: now() + 60 * DAY })).statusCode).toBe(200);

      // An admin is not capped, and a manager may still change the other settings of such a link.
      const admins = await createShare(t, team.owner, { workspaceId: team.ws, asset_ids: [asset.id], expires_at: 99_999_999_999 });
      expect(admins.expires_at).toBe(99_999_999_999);
      expect((await patchShare(team, within.id, { expires_at: now() + 400 * DAY }, team.owner)).statusCode).toBe(200);
      const described = await patchShare(team, admins.id, { description: 'Kept as the admin set it' });
      expect(described.statusCode).toBe(200);
      expect(described.json<Envelope<ShareJson>>().data.expires_at).toBe(99_999_999_999);
    });

    it("admins change the cap (PATCH /workspaces/:id); a manager's default expiry never passes it", async () => {
      const team = await makeTeam(t);
      const asset = await uploadInto(t, team.owner, textFile('setting.txt'));
      expectError(await patchWorkspace(team, { share_max_expiry_days: 365 }, team.manager), 403, 'FORBIDDEN');
      expectError(await patchWorkspace(team, { share_max_expiry_days: 0 }), 400, 'VALIDATION_ERROR');
      expectError(await patchWorkspace(team, {}), 400, 'VALIDATION_ERROR');

      const raised = await patchWorkspace(team, { share_max_expiry_days: 365 });
      expect(raised.statusCode, raised.body).toBe(200);
      expect(raised.json<Envelope<{ share_max_expiry_days: number; name: string }>>().data).toMatchObject({ share_max_expiry_days: 365 });
      const year = await createShare(t, team.manager, { workspaceId: team.ws, asset_ids: [asset.id], expires_at: now() + 300 * DAY });
      expect(year.expires_at).toBeGreaterThan(now() + 299 * DAY);

      expect((await patchWorkspace(team, { share_max_expiry_days: 7 })).statusCode).toBe(200);
      const capped = await createShareRequest(t, team.manager, { workspaceId: team.ws, asset_ids: [asset.id], expires_at: now() + 8 * DAY });
      expectError(capped, 403, 'FORBIDDEN');
      expect(capped.json<{ error: string }>().error).toContain('7 days');
      // Without expires_at a link lasts 30 days, or the cap when shorter.
      const defaulted = await createShare(t, team.manager, { workspaceId: team.ws, asset_ids: [asset.id] });
      expect(defaulted.expires_at! - now()).toBeLessThanOrEqual(7 * DAY);
      expect(defaulted.expires_at! - now()).toBeGreaterThan(7 * DAY - 60);
      const adminDefault = await createShare(t, team.owner, { workspaceId: team.ws, asset_ids: [asset.id] });
      expect(adminDefault.expires_at! - now()).toBeGreaterThan(29 * DAY);

      const activity = await t.request({ method: 'GET', url: `/dam/activity?workspaceId=${team.ws}`, token: team.owner.token });
      const entries = activity.json<Envelope<{ items: { action: string; changes: Record<string, unknown> }[] }>>().data.items;
      expect(entries.filter((e) => e.action === 'workspace.settings').map((e) => e.changes)).toEqual([
        { share_max_expiry_days: { before: 365, after: 7 } },
        { share_max_expiry_days: { before: 90, after: 365 } },
      ]);
    });
  });
});
