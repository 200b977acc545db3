import contentDisposition from 'content-disposition';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from './helpers/databases.js';
import { expectError, makeCollection, makeFolder, makeTeam, type Team } from './helpers/catalog-factories.js';
import { addMember, registerUser, type Account } from './helpers/factories.js';
import { startStorageApp, type StorageTestApp } from './helpers/uploads.js';
import { readZip, uploadAsset } from './helpers/zip.js';

interface Link {
  url: string;
  expires_at: number;
}

const TTL = 300;

/** Issue #14: POST /zip/link and GET /zip/download through the signed URL it answers, without a bearer token. */
describe.each(dialects)('signed ZIP download links on %s', (dialect) => {
  let t: StorageTestApp;
  let team: Team;
  let folder: number;
  let other: number;
  let a: number;
  let b: number;

  beforeAll(async () => {
    t = await startStorageApp('local', undefined, {
      dialect,
      config: { zip: { downloadMaxEntries: 8, maxEntries: 100, maxUncompressed: 1 << 30, maxRatio: 100, linkTtl: TTL } },
    });
    team = await makeTeam(t);
    const { owner, ws } = team;
    folder = (await makeFolder(t, owner, ws, { name: 'Plakate – Ausstellung' })).id;
    other = (await makeFolder(t, owner, ws, { name: 'Other' })).id;
    a = await uploadAsset(t, owner, { bytes: Buffer.from('erstes Plakat'), name: 'eins.txt', type: 'text/plain' }, { folderId: folder });
    b = await uploadAsset(t, owner, { bytes: Buffer.from('zweites Plakat'), name: 'zwei.txt', type: 'text/plain' }, { folderId: folder });
    await uploadAsset(t, owner, { bytes: Buffer.from('elsewhere'), name: 'other.txt', type: 'text/plain' }, { folderId: other });
  });
  afterAll(async () => {
    await t?.close();
  });

  const issue = (who: Account, payload: object) => t.request({ method: 'POST', url: '/zip/link', token: who.token, payload });
  async function link(who: Account, payload: object): Promise<Link> {
    const res = await issue(who, payload);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ success: true; data: Link }>().data;
  }
  /** The URL's path and query, for inject (no bearer token). */
  const local = (url: string) => (url.startsWith(t.baseUrl) ? url.slice(t.baseUrl.length) : url);
  const follow = (url: string) => t.request({ method: 'GET', url: local(url) });
  /** The link's URL with one query parameter changed (value undefined: removed). */
  function tamper(url: string, name: string, value: string | undefined): string {
    const u = new URL(url);
    if (value === undefined) u.searchParams.delete(name);
    else u.searchParams.set(name, value);
    return u.toString();
  }

  it('issues a short-lived URL that a viewer follows without a bearer token, streaming the same archive', async () => {
    const { viewer, ws } = team;
    const before = Math.floor(Date.now() / 1000);
    const signed = await link(viewer, { workspaceId: ws, folder_id: folder });
    expect(signed.url.startsWith(`${t.baseUrl}/zip/download?`)).toBe(true);
    const query = new URL(signed.url).searchParams;
    expect(Object.fromEntries(query)).toMatchObject({ workspaceId: String(ws), folder_id: String(folder), user_id: String(viewer.user.id), expires: String(signed.expires_at) });
    expect(signed.expires_at).toBeGreaterThanOrEqual(before + TTL);
    expect(signed.expires_at).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + TTL);

    // Over real HTTP, no Authorization header at all: what a browser following the link sends.
    const res = await fetch(signed.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expect(contentDisposition.parse(res.headers.get('content-disposition')!).parameters.filename).toBe('Plakate – Ausstellung.zip');
    const archive = Buffer.from(await res.arrayBuffer());
    const entries = (await readZip(archive)).entries.map((e) => [e.name, e.data.toString()]);
    expect(entries.sort()).toEqual([
      ['eins.txt', 'erstes Plakat'],
      ['zwei.txt', 'zweites Plakat'],
    ]);
    // The bearer form still answers the same archive; a signed URL may be used again until it expires.
    const bearer = await t.request({ method: 'GET', url: `/zip/download?workspaceId=${ws}&folder_id=${folder}`, token: viewer.token });
    expect(bearer.statusCode, bearer.body).toBe(200);
    expect((await readZip(bearer.rawPayload)).entries.map((e) => e.name).sort()).toEqual(['eins.txt', 'zwei.txt']);
    expect((await follow(signed.url)).statusCode).toBe(200);
  });

  it('signs lists of assets (in order, repeats once) and collections', async () => {
    const { owner, ws } = team;
    const list = await link(owner, { workspaceId: ws, asset_ids: [b, a, b] });
    expect(new URL(list.url).searchParams.get('asset_ids')).toBe(`${b},${a}`);
    const listed = await follow(list.url);
    expect(listed.statusCode, listed.body).toBe(200);
    expect((await readZip(listed.rawPayload)).entries.map((e) => e.name)).toEqual(['zwei.txt', 'eins.txt']);

    const collection = await makeCollection(t, owner, ws, { name: 'Auswahl' });
    const added = await t.request({ method: 'POST', url: `/dam/collections/${collection.id}/assets`, token: owner.token, payload: { asset_ids: [a] } });
    expect(added.statusCode, added.body).toBe(200);
    const coll = await follow((await link(owner, { workspaceId: ws, collection_id: collection.id })).url);
    expect(coll.statusCode, coll.body).toBe(200);
    expect(contentDisposition.parse(String(coll.headers['content-disposition'])).parameters.filename).toBe('Auswahl.zip');
    expect((await readZip(coll.rawPayload)).entries.map((e) => e.name)).toEqual(['eins.txt']);
  });

  it('refuses a URL whose selection, user, workspace, expiry or signature was changed', async () => {
    const { owner, viewer, ws, otherWs } = team;
    const signed = await link(viewer, { workspaceId: ws, asset_ids: [a] });
    expect((await follow(signed.url)).statusCode).toBe(200);
    const changed = [
      tamper(signed.url, 'asset_ids', `${a},${b}`),
      tamper(signed.url, 'asset_ids', String(b)),
      tamper(tamper(signed.url, 'asset_ids', undefined), 'folder_id', String(folder)),
      tamper(signed.url, 'folder_id', String(other)),
      tamper(signed.url, 'user_id', String(owner.user.id)),
      tamper(signed.url, 'user_id', undefined),
      tamper(signed.url, 'workspaceId', String(otherWs)),
      tamper(signed.url, 'expires', String(signed.expires_at + 3600)),
      tamper(signed.url, 'expires', undefined),
      tamper(signed.url, 'signature', `${new URL(signed.url).searchParams.get('signature')!.slice(0, -2)}AA`),
    ];
    for (const url of changed) expectError(await follow(url), 403, 'INVALID_SIGNATURE');

    // Another selection's signature does not fit this one.
    const theirs = await link(owner, { workspaceId: ws, folder_id: folder });
    const swapped = tamper(signed.url, 'signature', new URL(theirs.url).searchParams.get('signature')!);
    expectError(await follow(swapped), 403, 'INVALID_SIGNATURE');
  });

  it('expires by the app clock', async () => {
    const { viewer, ws } = team;
    const signed = await link(viewer, { workspaceId: ws, folder_id: folder });
    const left = signed.expires_at - Math.floor(Date.now() / 1000);
    t.advanceClock(left - 5);
    expect((await follow(signed.url)).statusCode).toBe(200);
    t.advanceClock(10);
    expectError(await follow(signed.url), 403, 'URL_EXPIRED');
    // A new one works again.
    expect((await follow((await link(viewer, { workspaceId: ws, folder_id: folder })).url)).statusCode).toBe(200);
  });

  it('stops working for a member removed after it was issued, and re-checks the selection when used', async () => {
    const { owner, ws } = team;
    const leaving = await registerUser(t);
    await addMember(t, owner, ws, leaving, 'viewer');
    const signed = await link(leaving, { workspaceId: ws, folder_id: folder });
    expect((await follow(signed.url)).statusCode).toBe(200);
    const removed = await t.request({ method: 'DELETE', url: `/workspaces/${ws}/members/${leaving.user.id}`, token: owner.token });
    expect(removed.statusCode, removed.body).toBeLessThan(300);
    expectError(await follow(signed.url), 404, 'NOT_FOUND');

    // An asset trashed after the link was issued is as missing as for a bearer request.
    const doomed = await uploadAsset(t, owner, { bytes: Buffer.from('soon gone'), name: 'gone.txt', type: 'text/plain' }, { folderId: other });
    const list = await link(owner, { workspaceId: ws, asset_ids: [doomed] });
    expect((await t.request({ method: 'DELETE', url: `/dam/assets/${doomed}`, token: owner.token })).statusCode).toBe(200);
    expectError(await follow(list.url), 404, 'NOT_FOUND');
  });

  it('checks the selection when issuing, as the download does', async () => {
    const { owner, viewer, outsider, ws, otherWs } = team;
    const theirFolder = await makeFolder(t, outsider, otherWs);
    const theirAsset = await uploadAsset(t, outsider, { bytes: Buffer.from('secret'), name: 'secret.txt', type: 'text/plain' });
    expectError(await issue(outsider, { workspaceId: ws, folder_id: folder }), 404, 'NOT_FOUND');
    expectError(await issue(viewer, { workspaceId: ws, folder_id: theirFolder.id }), 404, 'NOT_FOUND');
    expectError(await issue(viewer, { workspaceId: ws, asset_ids: [a, theirAsset] }), 404, 'NOT_FOUND');
    expectError(await issue(viewer, { workspaceId: ws, collection_id: 999_999 }), 404, 'NOT_FOUND');
    expectError(await issue(viewer, { workspaceId: ws }), 400, 'VALIDATION_ERROR');
    expectError(await issue(viewer, { workspaceId: ws, folder_id: folder, asset_ids: [a] }), 400, 'VALIDATION_ERROR');
    expectError(await issue(viewer, { workspaceId: ws, asset_ids: [] }), 400, 'VALIDATION_ERROR');
    expect((await t.request({ method: 'POST', url: '/zip/link', payload: { workspaceId: ws, folder_id: folder } })).statusCode).toBe(401);

    const many = await makeFolder(t, owner, ws, { name: 'Many' });
    for (let i = 0; i < 9; i++) await makeFolder(t, owner, ws, { name: `Sub ${i}`, parent_id: many.id });
    const res = await issue(viewer, { workspaceId: ws, folder_id: many.id });
    expectError(res, 422, 'ZIP_TOO_MANY_ENTRIES');
    expect(res.json<{ entries: number; limit: number }>()).toMatchObject({ entries: 9, limit: 8 });
  });

  it('counts signed downloads per user they were issued to (DAM_USER_RATE_LIMIT), after checking the signature', async () => {
    const limited = await startStorageApp('local', undefined, { dialect, config: { userRateLimit: 3, userRateWindowMs: 60_000 } });
    try {
      // Two of the user's three bearer requests: the upload and the link.
      const user = await registerUser(limited);
      const id = await uploadAsset(limited, user, { bytes: Buffer.from('x'), name: 'x.txt', type: 'text/plain' });
      const res = await limited.request({ method: 'POST', url: '/zip/link', token: user.token, payload: { workspaceId: user.workspaceId, asset_ids: [id] } });
      expect(res.statusCode, res.body).toBe(200);
      const url = res.json<{ data: Link }>().data.url.slice(limited.baseUrl.length);
      // Forged URLs naming the user are refused without using up the user's count.
      for (let i = 0; i < 5; i++) expectError(await limited.request({ method: 'GET', url: `${url}x` }), 403, 'INVALID_SIGNATURE');
      for (let i = 0; i < 3; i++) expect((await limited.request({ method: 'GET', url })).statusCode).toBe(200);
      const over = await limited.request({ method: 'GET', url });
      expectError(over, 429, 'RATE_LIMITED');
      expect(over.headers['retry-after']).toBeDefined();
    } finally {
      await limited.close();
    }
  });

  it('answers malformed signed URLs with a 4xx naming the problem', async () => {
    const { viewer, ws } = team;
    const signed = await link(viewer, { workspaceId: ws, folder_id: folder });
    expectError(await follow(tamper(signed.url, 'user_id', 'abc')), 400, 'VALIDATION_ERROR');
    expectError(await follow(tamper(signed.url, 'expires', 'soon')), 400, 'VALIDATION_ERROR');
    expectError(await follow(tamper(signed.url, 'signature', 'not/base64url')), 400, 'VALIDATION_ERROR');
    expectError(await follow(tamper(signed.url, 'signature', '')), 400, 'VALIDATION_ERROR');
    expectError(await follow(tamper(signed.url, 'extra', '1')), 400, 'VALIDATION_ERROR');
    // Without a signature, user_id and expires are no way around the token...
    const unsigned = tamper(signed.url, 'signature', undefined);
    expectError(await follow(unsigned), 401, 'UNAUTHORIZED');
    // ...and a bearer request may not carry them.
    expectError(await t.request({ method: 'GET', url: local(unsigned), token: viewer.token }), 400, 'VALIDATION_ERROR', 'signature');
    // A made-up signature on an otherwise well-formed URL.
    expectError(await follow(`/zip/download?workspaceId=${ws}&folder_id=${folder}&user_id=${viewer.user.id}&expires=9999999999&signature=abc`), 403, 'INVALID_SIGNATURE');
    expectError(await follow(`/zip/download?workspaceId=${ws}&folder_id=${folder}&signature=abc`), 403, 'INVALID_SIGNATURE');
  });
});
