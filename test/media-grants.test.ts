import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHARE_GRANT_CACHE_SECONDS } from '../src/services/media-grants.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { expectError, makeCollection, makeTeam, type Team } from './helpers/catalog-factories.js';
import { dialects } from './helpers/databases.js';
import { addMember, registerUser } from './helpers/factories.js';
import { createShare, jpeg, publicRequest, uploadInto, viewShare, type ShareItemJson } from './helpers/shares.js';
import { listVersions, pathOf } from './helpers/versions.js';

/**
 * Issue #28, item 12: a signed media URL serves only while what it was handed out under still holds. A shared
 * link's thumbnail and preview URLs are bound to that link (`grant=s<id>`), a member's to the member (`grant=u<id>`).
 * The link part of the check is cached for SHARE_GRANT_CACHE_SECONDS by the app's clock, so the tests move the
 * clock past it instead of sleeping.
 */
describe.each(dialects)('media URLs bound to their grant (%s)', (dialect) => {
  let t: TestApp;
  let team: Team;

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    team = await makeTeam(t);
  });
  afterAll(() => t.close());

  const owner = () => team.owner;
  const get = (url: string) => t.request({ method: 'GET', url: pathOf(url) });
  const pastCache = () => t.advanceClock(SHARE_GRANT_CACHE_SECONDS);

  async function photo(name: string) {
    const asset = await uploadInto(t, owner(), { bytes: await jpeg(), name, type: 'image/jpeg' });
    await t.app.jobs.drain();
    return asset;
  }

  async function itemOf(key: string, assetId: number): Promise<ShareItemJson> {
    const item = (await viewShare(t, key)).items.find((i) => i.id === assetId);
    if (!item) throw new Error(`asset ${assetId} is not an item of link ${key}`);
    return item;
  }

  it('a revoked link\'s thumbnail and preview URLs answer 404; another link to the same asset keeps serving its own', async () => {
    const asset = await photo('revoked.jpg');
    const revoked = await createShare(t, owner(), { asset_ids: [asset.id] });
    const kept = await createShare(t, owner(), { asset_ids: [asset.id] });
    const item = await itemOf(revoked.key, asset.id);
    const other = await itemOf(kept.key, asset.id);
    expect(item.thumbnail_url).toContain(`grant=s${revoked.id}`);
    expect(item.preview_url).toContain(`grant=s${revoked.id}`);
    expect(other.thumbnail_url).toContain(`grant=s${kept.id}`);
    for (const url of [item.thumbnail_url, item.preview_url!, other.thumbnail_url]) expect((await get(url)).statusCode).toBe(200);

    expect((await t.request({ method: 'DELETE', url: `/shared/${revoked.id}`, token: owner().token })).statusCode).toBe(200);
    expectError(await publicRequest(t, `/shared/public/${revoked.key}`), 404, 'NOT_FOUND');
    pastCache();
    expectError(await get(item.thumbnail_url), 404, 'NOT_FOUND');
    expectError(await get(item.preview_url!), 404, 'NOT_FOUND');
    expect((await get(other.thumbnail_url)).statusCode).toBe(200);
    // The grant is signed: the revoked link's URL cannot be moved to the live link, nor back to the unbound grant.
    const moved = pathOf(item.thumbnail_url).replace(`grant=s${revoked.id}`, `grant=s${kept.id}`);
    expectError(await t.request({ method: 'GET', url: moved }), 403, 'INVALID_SIGNATURE');
    const unbound = pathOf(item.thumbnail_url).replace(`grant=s${revoked.id}`, 'grant=public');
    expectError(await t.request({ method: 'GET', url: unbound }), 400, 'VALIDATION_ERROR');
  });

  it('an expired link\'s URLs stop serving', async () => {
    const asset = await photo('expiring.jpg');
    // The app's clock may have been moved on by earlier tests: read it from a link made now.
    const probe = await createShare(t, owner(), { asset_ids: [asset.id] });
    const link = await createShare(t, owner(), { asset_ids: [asset.id], expires_at: probe.created_at + 60 });
    const item = await itemOf(link.key, asset.id);
    expect((await get(item.thumbnail_url)).statusCode).toBe(200);
    t.advanceClock(60);
    expectError(await get(item.thumbnail_url), 404, 'NOT_FOUND');
    expectError(await publicRequest(t, `/shared/public/${link.key}`), 404, 'NOT_FOUND');
  });

  it('a URL of link A stops serving once the asset leaves link A; a link still showing it serves its own', async () => {
    const asset = await photo('leaving.jpg');
    const collection = await makeCollection(t, owner(), team.ws);
    const add = await t.request({ method: 'POST', url: `/dam/collections/${collection.id}/assets`, token: owner().token, payload: { asset_ids: [asset.id] } });
    expect(add.statusCode, add.body).toBe(200);
    const linkA = await createShare(t, owner(), { collection_id: collection.id });
    const linkB = await createShare(t, owner(), { asset_ids: [asset.id] });
    const fromA = await itemOf(linkA.key, asset.id);
    const fromB = await itemOf(linkB.key, asset.id);
    expect((await get(fromA.thumbnail_url)).statusCode).toBe(200);
    expect((await get(fromA.preview_url!)).statusCode).toBe(200);

    const removed = await t.request({ method: 'DELETE', url: `/dam/collections/${collection.id}/assets`, token: owner().token, payload: { asset_ids: [asset.id] } });
    expect(removed.statusCode, removed.body).toBe(200);
    expect((await viewShare(t, linkA.key)).items).toEqual([]);
    pastCache();
    expectError(await get(fromA.thumbnail_url), 404, 'NOT_FOUND');
    expectError(await get(fromA.preview_url!), 404, 'NOT_FOUND');
    expect((await get(fromB.thumbnail_url)).statusCode).toBe(200);

    // Back in the collection: link A shows it again, and its URL serves again.
    await t.request({ method: 'POST', url: `/dam/collections/${collection.id}/assets`, token: owner().token, payload: { asset_ids: [asset.id] } });
    pastCache();
    expect((await get(fromA.thumbnail_url)).statusCode).toBe(200);
  });

  it('a removed member\'s file_url and thumbnail_url stop serving at once', async () => {
    const member = await registerUser(t);
    await addMember(t, owner(), team.ws, member, 'manager');
    const asset = await photo('members.jpg');
    const [version] = await listVersions(t, member, asset.id);
    expect(version!.file_url).toContain(`grant=u${member.user.id}`);
    expect((await get(version!.file_url)).statusCode).toBe(200);
    expect((await get(version!.thumbnail_url)).statusCode).toBe(200);

    const res = await t.request({ method: 'DELETE', url: `/workspaces/${team.ws}/members/${member.user.id}`, token: owner().token });
    expect(res.statusCode, res.body).toBe(200);
    expectError(await get(version!.file_url), 404, 'NOT_FOUND');
    expectError(await get(version!.thumbnail_url), 404, 'NOT_FOUND');
    // The owner's own URL of the same file is untouched.
    const [mine] = await listVersions(t, owner(), asset.id);
    expect((await get(mine!.file_url)).statusCode).toBe(200);
  });
});
