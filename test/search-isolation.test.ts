import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';
import { expectError, makeAsset, makeCollection, makeFolder } from './helpers/catalog-factories.js';
import { dialects } from './helpers/databases.js';
import { addMember, registerUser, type Account } from './helpers/factories.js';
import { search, searchRequest, type SearchResultJson } from './helpers/search-fixtures.js';

/** Issue #4 item 7, seed 5: no query, filter, sort or suggestion returns a document of a workspace the caller is not in. */
describe.each(dialects)('search isolation on %s', (dialect) => {
  let t: TestApp;
  let alice: Account;
  let bob: Account;
  let carol: Account;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    [alice, bob, carol] = await Promise.all([registerUser(t), registerUser(t), registerUser(t)]);
    // carol is a viewer in both workspaces; alice and bob only in their own.
    await addMember(t, alice, alice.workspaceId, carol, 'viewer');
    await addMember(t, bob, bob.workspaceId, carol, 'viewer');
    for (const [who, owner] of [['a', alice], ['b', bob]] as const) {
      const folder = await makeFolder(t, owner, owner.workspaceId, { name: `secret folder ${who}`, tags: ['secret'] });
      await makeCollection(t, owner, owner.workspaceId, { name: `secret collection ${who}`, tags: ['secret'] });
      const asset = await makeAsset(t.database.db, owner.workspaceId, { file_name: `secret-plan-${who}.pdf`, mime_type: 'application/pdf', tags: ['secret', `only-${who}`], folder_id: folder.id, created_at: who === 'a' ? 100 : 200 });
      ids[`asset_${who}`] = asset.id;
      ids[`folder_${who}`] = folder.id;
    }
  });
  afterAll(() => t.close());

  const workspacesOf = (results: SearchResultJson[]) => new Set(results.flatMap((r) => r.hits.map((h) => h.document.workspace_id)));

  it("searches only the caller's workspaces, in every collection and sort order", async () => {
    for (const sort_by of [undefined, 'modified_at:asc', 'created_at:desc']) {
      const results = await search(t, alice, { request: { q: 'secret', ...(sort_by && { sort_by }) } });
      expect(results.map((r) => r.found)).toEqual([1, 1, 1]);
      expect(workspacesOf(results)).toEqual(new Set([alice.workspaceId]));
    }
    const both = await search(t, carol, { request: { q: 'secret' } });
    expect(both.map((r) => r.found)).toEqual([2, 2, 2]);
    expect(workspacesOf(both)).toEqual(new Set([alice.workspaceId, bob.workspaceId]));
    const one = await search(t, carol, { request: { q: 'secret' }, workspace_id_filter: String(bob.workspaceId) });
    expect(workspacesOf(one)).toEqual(new Set([bob.workspaceId]));
  });

  it('cannot reach another workspace through filters', async () => {
    for (const filter of [`id:=${ids.asset_b}`, `folder_id:=${ids.folder_b}`, 'tags:=[only-b]', `id:[1..${ids.asset_b! + 10}] || visibility:>=0`]) {
      const results = await search(t, alice, { request: { q: '*', collections: ['digital_assets'] }, filterQuery: { digital_assets: filter } });
      expect(workspacesOf(results).has(bob.workspaceId)).toBe(false);
    }
    expectError(await searchRequest(t, alice, { request: {}, filterQuery: { digital_assets: `workspace_id:=${bob.workspaceId}` } }), 400, 'VALIDATION_ERROR');
  });

  it("cannot name the index's workspace scope in q", async () => {
    // SQLite's FTS5 rows carry a scope token U+E000 w<workspace> k<kind> (src/search/dialects/scope.ts).
    for (const q of [`\uE000w${bob.workspaceId}k1`, `secret \uE000w${bob.workspaceId}k1`, `w${bob.workspaceId}k1`]) {
      const results = await search(t, alice, { request: { q } });
      expect(workspacesOf(results).has(bob.workspaceId)).toBe(false);
    }
  });

  it('answers 404 for a workspace_id_filter the caller is not a member of, or that does not exist', async () => {
    for (const ws of [String(bob.workspaceId), '999999', '99999999999']) {
      expectError(await searchRequest(t, alice, { request: {}, workspace_id_filter: ws }), 404, 'NOT_FOUND');
      const helper = await t.request({ method: 'POST', url: '/search-engine/search-folders', token: alice.token, payload: { workspace_id_filter: ws } });
      expectError(helper, 404, 'NOT_FOUND');
    }
    const suggestions = await t.request({ method: 'GET', url: `/search-engine/suggestions?q=s&workspaceId=${bob.workspaceId}`, token: alice.token });
    expectError(suggestions, 404, 'NOT_FOUND');
  });

  it("never suggests another workspace's tags or names", async () => {
    const res = await t.request({ method: 'GET', url: '/search-engine/suggestions?q=', token: alice.token });
    expect(res.statusCode).toBe(400);
    const only = await t.request({ method: 'GET', url: '/search-engine/suggestions?q=only', token: alice.token });
    expect(only.json<{ data: string[] }>().data).toEqual(['only-a']);
    const secret = await t.request({ method: 'GET', url: '/search-engine/suggestions?q=secret', token: carol.token });
    expect(secret.json<{ data: string[] }>().data).toEqual(['secret', 'secret collection a', 'secret collection b', 'secret folder a', 'secret folder b', 'secret-plan-a.pdf', 'secret-plan-b.pdf']);
  });

  it('stops showing a workspace once the caller leaves it', async () => {
    const res = await t.request({ method: 'DELETE', url: `/workspaces/${bob.workspaceId}/members/${carol.user.id}`, token: bob.token });
    expect(res.statusCode).toBe(200);
    const results = await search(t, carol, { request: { q: 'secret' } });
    expect(workspacesOf(results)).toEqual(new Set([alice.workspaceId]));
    expectError(await searchRequest(t, carol, { request: {}, workspace_id_filter: String(bob.workspaceId) }), 404, 'NOT_FOUND');
  });
});
