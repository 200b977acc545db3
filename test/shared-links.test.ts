import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { expectError, makeCollection, makeFolder, makeTeam, type Team } from './helpers/catalog-factories.js';
import { dialects, tempDir } from './helpers/databases.js';
import type { Envelope } from './helpers/factories.js';
import { accessLog, createShare, createShareRequest, publicRequest, textFile, unlock, uploadInto, type ShareJson } from './helpers/shares.js';
import { listVersions } from './helpers/versions.js';

const DAY = 86_400;

interface ActivityJson {
  action: string;
  actor: { id: number | null; name: string };
  subject: { kind: string; id: number; name: string };
  asset_id: number | null;
  changes: Record<string, { before: unknown; after: unknown }>;
}

/** Shared links, the managing side (issue #14): create, list, read, change, revoke, access log; roles and isolation. */
describe.each(dialects)('shared links: management (%s)', (dialect) => {
  let t: TestApp;
  let team: Team;
  let assetA: number;
  let assetB: number;
  let otherAsset: number;

  beforeAll(async () => {
    t = await startTestApp({ dialect, config: { publicUrl: 'https://dam.example.test' } });
    team = await makeTeam(t);
    assetA = (await uploadInto(t, team.owner, textFile('a.txt'))).id;
    assetB = (await uploadInto(t, team.owner, textFile('b.txt'))).id;
    otherAsset = (await uploadInto(t, team.outsider, textFile('other.txt'))).id;
  });
  afterAll(() => t.close());

  const get = (id: number, who = team.owner) => t.request({ method: 'GET', url: `/shared/${id}`, token: who.token });
  const patch = (id: number, payload: object, who = team.owner) => t.request({ method: 'PATCH', url: `/shared/${id}`, token: who.token, payload });
  const revoke = (id: number, who = team.owner) => t.request({ method: 'DELETE', url: `/shared/${id}`, token: who.token });

  async function activity(): Promise<ActivityJson[]> {
    const res = await t.request({ method: 'GET', url: `/dam/activity?workspaceId=${team.ws}&limit=200`, token: team.owner.token });
    return res.json<Envelope<{ items: ActivityJson[] }>>().data.items.filter((e) => e.subject.kind === 'share');
  }

  it('creates a link to assets with a random key, its url on DAM_PUBLIC_URL, the defaults and no password in the answer', async () => {
    const before = Math.floor(Date.now() / 1000);
    const res = await createShareRequest(t, team.manager, { workspaceId: team.ws, asset_ids: [assetB, assetA], password: 'open sesame' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.body).not.toContain('open sesame');
    expect(res.body).not.toContain('scrypt');
    const link = res.json<Envelope<ShareJson>>().data;
    expect(link.key).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(link.url).toBe(`https://dam.example.test/s/${link.key}`);
    expect(link).toMatchObject({
      workspace_id: team.ws,
      target: 'assets',
      asset_ids: [assetB, assetA],
      folder_id: null,
      collection_id: null,
      version_id: null,
      has_password: true,
      allow_download: true,
      max_downloads: null,
      download_count: 0,
      view_count: 0,
      last_accessed_at: null,
      description: null,
      status: 'active',
      created_by: { id: team.manager.user.id, name: team.manager.user.name },
      revoked_at: null,
    });
    // Default expiry: 30 days from now.
    expect(link.expires_at! - before).toBeGreaterThanOrEqual(30 * DAY);
    expect(link.expires_at! - before).toBeLessThanOrEqual(30 * DAY + 5);

    const other = await createShare(t, team.manager, { workspaceId: team.ws, asset_ids: [assetA] });
    expect(other.key).not.toBe(link.key);
    const again = await get(link.id);
    expect(again.json<Envelope<ShareJson>>().data).toEqual(link);
  });

  it('creates links to a folder, a collection and a pinned version, each with its target', async () => {
    const folder = await makeFolder(t, team.owner, team.ws);
    const folderLink = await createShare(t, team.owner, { workspaceId: team.ws, folder_id: folder.id, description: 'Holiday\nphotos' });
    expect(folderLink).toMatchObject({ target: 'folder', folder_id: folder.id, asset_ids: [], description: 'Holiday\nphotos', has_password: false });

    const collection = await makeCollection(t, team.owner, team.ws);
    const collectionLink = await createShare(t, team.owner, { workspaceId: team.ws, collection_id: collection.id, allow_download: false, max_downloads: 3 });
    expect(collectionLink).toMatchObject({ target: 'collection', collection_id: collection.id, allow_download: false, max_downloads: 3 });

    const [v1] = await listVersions(t, team.owner, assetA);
    const versionLink = await createShare(t, team.owner, { workspaceId: team.ws, version_id: v1!.id });
    expect(versionLink).toMatchObject({ target: 'version', version_id: v1!.id });
  });

  it('refuses a request without a target, with two targets, or with a target outside the workspace or in the trash (400 naming the field)', async () => {
    const ws = team.ws;
    expectError(await createShareRequest(t, team.owner, { workspaceId: ws }), 400, 'VALIDATION_ERROR', 'asset_ids');
    const folder = await makeFolder(t, team.owner, ws);
    expectError(await createShareRequest(t, team.owner, { workspaceId: ws, asset_ids: [assetA], folder_id: folder.id }), 400, 'VALIDATION_ERROR', 'folder_id');
    expectError(await createShareRequest(t, team.owner, { workspaceId: ws, asset_ids: [assetA, otherAsset] }), 400, 'VALIDATION_ERROR', 'asset_ids');
    const foreignFolder = await makeFolder(t, team.outsider, team.otherWs);
    expectError(await createShareRequest(t, team.owner, { workspaceId: ws, folder_id: foreignFolder.id }), 400, 'VALIDATION_ERROR', 'folder_id');
    const foreignCollection = await makeCollection(t, team.outsider, team.otherWs);
    expectError(await createShareRequest(t, team.owner, { workspaceId: ws, collection_id: foreignCollection.id }), 400, 'VALIDATION_ERROR', 'collection_id');
    const [foreignVersion] = await listVersions(t, team.outsider, otherAsset);
    expectError(await createShareRequest(t, team.owner, { workspaceId: ws, version_id: foreignVersion!.id }), 400, 'VALIDATION_ERROR', 'version_id');
    expect((await t.request({ method: 'DELETE', url: `/dam/folders/${folder.id}`, token: team.owner.token })).statusCode).toBe(200);
    expectError(await createShareRequest(t, team.owner, { workspaceId: ws, folder_id: folder.id }), 400, 'VALIDATION_ERROR', 'folder_id');
    // Schema: bounds and types.
    expectError(await createShareRequest(t, team.owner, { workspaceId: ws, asset_ids: [] }), 400, 'VALIDATION_ERROR', 'asset_ids');
    expectError(await createShareRequest(t, team.owner, { workspaceId: ws, asset_ids: [assetA], max_downloads: 0 }), 400, 'VALIDATION_ERROR', 'max_downloads');
    expectError(await createShareRequest(t, team.owner, { workspaceId: ws, asset_ids: [assetA], password: '' }), 400, 'VALIDATION_ERROR', 'password');
  });

  it('expiry: in the future only; never-expiring links are for admins (403 for managers)', async () => {
    const now = Math.floor(Date.now() / 1000);
    expectError(await createShareRequest(t, team.owner, { workspaceId: team.ws, asset_ids: [assetA], expires_at: now - 10 }), 400, 'VALIDATION_ERROR', 'expires_at');
    expectError(await createShareRequest(t, team.manager, { workspaceId: team.ws, asset_ids: [assetA], expires_at: null }), 403, 'FORBIDDEN');
    const forever = await createShare(t, team.owner, { workspaceId: team.ws, asset_ids: [assetA], expires_at: null });
    expect(forever.expires_at).toBeNull();
    const soon = await createShare(t, team.manager, { workspaceId: team.ws, asset_ids: [assetA], expires_at: now + 60 });
    expect(soon.expires_at).toBe(now + 60);
    expectError(await patch(soon.id, { expires_at: null }, team.manager), 403, 'FORBIDDEN');
    expect((await patch(soon.id, { expires_at: null }, team.owner)).json<Envelope<ShareJson>>().data.expires_at).toBeNull();
  });

  it('viewers get 403 and members of other workspaces 404 on every management route', async () => {
    const link = await createShare(t, team.owner, { workspaceId: team.ws, asset_ids: [assetA] });
    const { viewer, outsider } = team;
    expectError(await createShareRequest(t, viewer, { workspaceId: team.ws, asset_ids: [assetA] }), 403, 'FORBIDDEN');
    expectError(await t.request({ method: 'GET', url: `/shared?workspaceId=${team.ws}`, token: viewer.token }), 403, 'FORBIDDEN');
    expectError(await get(link.id, viewer), 403, 'FORBIDDEN');
    expectError(await patch(link.id, { description: 'x' }, viewer), 403, 'FORBIDDEN');
    expectError(await revoke(link.id, viewer), 403, 'FORBIDDEN');
    expectError(await t.request({ method: 'GET', url: `/shared/${link.id}/access-log`, token: viewer.token }), 403, 'FORBIDDEN');

    const missing = await get(999_999, outsider);
    for (const res of [
      await get(link.id, outsider),
      await patch(link.id, { description: 'x' }, outsider),
      await revoke(link.id, outsider),
      await t.request({ method: 'GET', url: `/shared/${link.id}/access-log`, token: outsider.token }),
    ]) {
      expectError(res, 404, 'NOT_FOUND');
      expect(res.json()).toEqual(missing.json());
    }
    expectError(await t.request({ method: 'GET', url: `/shared?workspaceId=${team.ws}`, token: outsider.token }), 404, 'NOT_FOUND');
    expectError(await createShareRequest(t, outsider, { workspaceId: team.ws, asset_ids: [assetA] }), 404, 'NOT_FOUND');
    expectError(await t.request({ method: 'GET', url: `/shared/${link.id}` }), 401, 'UNAUTHORIZED');
    // Still active: nothing above changed it.
    expect((await get(link.id)).json<Envelope<ShareJson>>().data).toMatchObject({ status: 'active', description: null });
  });

  it('lists a workspace\'s links newest first, paged, by status', async () => {
    const list = async (query: string) => {
      const res = await t.request({ method: 'GET', url: `/shared?workspaceId=${team.ws}${query}`, token: team.manager.token });
      expect(res.statusCode, res.body).toBe(200);
      return res.json<Envelope<{ items: ShareJson[]; total: number; page: number; per_page: number }>>().data;
    };
    const now = Math.floor(Date.now() / 1000);
    const expiring = await createShare(t, team.owner, { workspaceId: team.ws, asset_ids: [assetA], expires_at: now + 100 });
    const revoked = await createShare(t, team.owner, { workspaceId: team.ws, asset_ids: [assetA] });
    expect((await revoke(revoked.id)).statusCode).toBe(200);
    const all = await list('');
    expect(all.items.map((l) => l.id)).toEqual([...all.items.map((l) => l.id)].sort((a, b) => b - a));
    expect(all.items[0]!.id).toBe(revoked.id);
    expect(all.total).toBe(all.items.length);
    const page = await list('&per_page=2&page=2');
    expect(page.items.map((l) => l.id)).toEqual(all.items.slice(2, 4).map((l) => l.id));
    expect(page).toMatchObject({ page: 2, per_page: 2, total: all.total });
    expect((await list('&status=revoked')).items.map((l) => l.id)).toEqual([revoked.id]);
    expect((await list('&status=active')).items.map((l) => l.id)).toContain(expiring.id);

    t.advanceClock(200);
    try {
      expect((await list('&status=expired')).items.map((l) => l.id)).toContain(expiring.id);
      expect((await list('&status=active')).items.map((l) => l.id)).not.toContain(expiring.id);
      expect((await get(expiring.id)).json<Envelope<ShareJson>>().data.status).toBe('expired');
    } finally {
      t.advanceClock(-200);
    }
    // Other workspaces' links never appear.
    const theirs = await createShare(t, team.outsider, { workspaceId: team.otherWs, asset_ids: [otherAsset] });
    expect((await list('&per_page=250')).items.map((l) => l.id)).not.toContain(theirs.id);
  });

  it('changes settings (only those sent), removes the password and the limit, and refuses changes to a revoked link', async () => {
    const link = await createShare(t, team.owner, { workspaceId: team.ws, asset_ids: [assetA], password: 'first passphrase', max_downloads: 5, description: 'Old' });
    const res = await patch(link.id, { allow_download: false, description: 'New' }, team.manager);
    expect(res.statusCode, res.body).toBe(200);
    const changed = res.json<Envelope<ShareJson>>().data;
    expect(changed).toMatchObject({ allow_download: false, description: 'New', has_password: true, max_downloads: 5, expires_at: link.expires_at });
    expect(changed.updated_at).toBeGreaterThanOrEqual(link.updated_at);

    const cleared = (await patch(link.id, { password: null, max_downloads: null, description: null })).json<Envelope<ShareJson>>().data;
    expect(cleared).toMatchObject({ has_password: false, max_downloads: null, description: null });
    expectError(await patch(link.id, {}), 400, 'VALIDATION_ERROR');
    expectError(await patch(link.id, { target: 'folder' }), 400, 'VALIDATION_ERROR', 'target');

    expect((await revoke(link.id)).json<Envelope<ShareJson>>().data).toMatchObject({ status: 'revoked' });
    expectError(await patch(link.id, { description: 'again' }), 409, 'CONFLICT');
    // Revoking twice is harmless and keeps the first revocation time.
    const first = (await get(link.id)).json<Envelope<ShareJson>>().data.revoked_at;
    const twice = await revoke(link.id);
    expect(twice.statusCode).toBe(200);
    expect(twice.json<Envelope<ShareJson>>().data.revoked_at).toBe(first);
  });

  it('a revoked link answers 404 on the public side at once', async () => {
    const link = await createShare(t, team.owner, { workspaceId: team.ws, asset_ids: [assetA] });
    expect((await publicRequest(t, `/shared/public/${link.key}`)).statusCode).toBe(200);
    expect((await revoke(link.id)).statusCode).toBe(200);
    const gone = await publicRequest(t, `/shared/public/${link.key}`);
    const unknown = await publicRequest(t, '/shared/public/AAAAAAAAAAAAAAAAAAAAAAAA');
    expectError(gone, 404, 'NOT_FOUND');
    expect(gone.body).toBe(unknown.body);
  });

  it('records share.create, share.update (changed settings, never the password) and share.revoke in the activity log', async () => {
    const folder = await makeFolder(t, team.owner, team.ws, { name: 'Press kit' });
    const link = await createShare(t, team.manager, { workspaceId: team.ws, folder_id: folder.id, password: 'hunter2hunter2' });
    await patch(link.id, { password: 'hunter3hunter3', max_downloads: 2 }, team.manager);
    await patch(link.id, { max_downloads: 2 }, team.manager); // no change: no entry
    await patch(link.id, { password: null, description: 'For the press' }, team.manager);
    await revoke(link.id, team.manager);
    const entries = (await activity()).filter((e) => e.subject.id === link.id).reverse();
    expect(entries.map((e) => e.action)).toEqual(['share.create', 'share.update', 'share.update', 'share.revoke']);
    expect(entries[0]).toMatchObject({ actor: { id: team.manager.user.id }, subject: { kind: 'share', name: 'Press kit' }, asset_id: null });
    expect(entries[1]!.changes).toEqual({ max_downloads: { before: null, after: 2 }, password: { before: 'set', after: 'changed' } });
    expect(entries[2]!.changes).toEqual({
      has_password: { before: true, after: false },
      description: { before: null, after: 'For the press' },
    });
    expect(entries[3]!.subject.name).toBe('For the press');
    expect(JSON.stringify(entries)).not.toContain('hunter');
  });

  it('answers the access log newest first, paged, to managers', async () => {
    const link = await createShare(t, team.owner, { workspaceId: team.ws, asset_ids: [assetA], password: 'pass word' });
    expect((await unlock(t, link.key, 'wrong', { 'user-agent': 'Browser/1' })).statusCode).toBe(401);
    const right = await unlock(t, link.key, 'pass word', { 'user-agent': 'Browser/2' });
    expect(right.statusCode).toBe(200);
    const token = right.json<Envelope<{ token: string }>>().data.token;
    expect((await publicRequest(t, `/shared/public/${link.key}`, { shareToken: token })).statusCode).toBe(200);
    const log = await accessLog(t, team.manager, link.id);
    expect(log.map((e) => e.action)).toEqual(['view', 'unlock', 'unlock-failed']);
    expect(log[1]).toMatchObject({ address: '127.0.0.1', user_agent: 'Browser/2', asset_id: null });
    const paged = await t.request({ method: 'GET', url: `/shared/${link.id}/access-log?per_page=1&page=2`, token: team.manager.token });
    expect(paged.json<Envelope<{ items: { action: string }[]; total: number }>>().data).toMatchObject({ items: [{ action: 'unlock' }], total: 3 });
  });
});

describe.each(dialects)('shared links access-log retention on %s', (dialect) => {
  let t: TestApp;
  let team: Team;

  // Housekeeping runs on the app's own minute timer (no endpoint triggers it): fake intervals drive it here.
  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    t = await startTestApp({ dialect, config: { sessionTtl: 3 * 365 * DAY, shares: { rateLimit: 100_000, linkRateLimit: 100_000, tokenTtl: 3600, logDays: 30 } } });
    team = await makeTeam(t);
  });
  afterAll(async () => {
    vi.useRealTimers();
    await t?.close();
  });

  it('forgets entries older than DAM_SHARE_LOG_DAYS at the next housekeeping run, and keeps younger ones and the link', async () => {
    const asset = await uploadInto(t, team.owner, textFile('kept.txt'));
    const link = await createShare(t, team.owner, { workspaceId: team.ws, asset_ids: [asset.id] });
    expect((await publicRequest(t, `/shared/public/${link.key}`)).statusCode).toBe(200);
    expect((await publicRequest(t, `/shared/public/${link.key}`)).statusCode).toBe(200);
    t.advanceClock(20 * DAY);
    expect((await publicRequest(t, `/shared/public/${link.key}`)).statusCode).toBe(200);
    expect(await accessLog(t, team.manager, link.id)).toHaveLength(3);
    // 31 days after the first two views, 11 after the third: only the third stays.
    t.advanceClock(11 * DAY);
    vi.advanceTimersByTime(60_000);
    await vi.waitFor(async () => expect(await accessLog(t, team.manager, link.id)).toHaveLength(1));
    const res = await t.request({ method: 'GET', url: `/shared/${link.id}`, token: team.owner.token });
    expect(res.json<Envelope<ShareJson>>().data).toMatchObject({ view_count: 3 });
  });
});

describe('shared links configuration', () => {
  const env = (vars: Record<string, string> = {}) => ({ DAM_DATA_DIR: tempDir('dam-config-'), DAM_JWT_SECRET: 's'.repeat(32), ...vars });

  it('reads DAM_SHARE_RATE_LIMIT, DAM_SHARE_LINK_RATE_LIMIT, DAM_SHARE_TOKEN_TTL and DAM_SHARE_LOG_DAYS, with their defaults', () => {
    expect(loadConfig(env()).shares).toEqual({ rateLimit: 300, linkRateLimit: 1200, tokenTtl: 3600, logDays: 365 });
    expect(
      loadConfig(env({ DAM_SHARE_RATE_LIMIT: '20', DAM_SHARE_LINK_RATE_LIMIT: '50', DAM_SHARE_TOKEN_TTL: '600', DAM_SHARE_LOG_DAYS: '0' })).shares,
    ).toEqual({ rateLimit: 20, linkRateLimit: 50, tokenTtl: 600, logDays: 0 });
    expect(() => loadConfig(env({ DAM_SHARE_LOG_DAYS: '-1' }))).toThrow(/DAM_SHARE_LOG_DAYS/);
    expect(() => loadConfig(env({ DAM_SHARE_TOKEN_TTL: '10' }))).toThrow(ConfigError);
    expect(() => loadConfig(env({ DAM_SHARE_RATE_LIMIT: '0' }))).toThrow(/DAM_SHARE_RATE_LIMIT/);
  });
});
