import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { openMigratedDatabase } from '../src/db/database.js';
import { startHttpTestApp, type TestApp } from './helpers/app.js';
import { expectError, makeAsset, makeTeam, type Team } from './helpers/catalog-factories.js';
import { dialects, tempDir } from './helpers/databases.js';
import { registerUser, type Account } from './helpers/factories.js';

/** Issue #18: repeated lists and searches are answered from the answer cache while the database is unchanged (SQLite). */
describe.each(dialects)('answers of repeated reads on %s', (dialect) => {
  let t: TestApp & { baseUrl: string };
  let team: Team;
  let file: string | undefined;

  beforeAll(async () => {
    if (dialect === 'sqlite') {
      file = path.join(tempDir(), 'dam.sqlite');
      t = await startHttpTestApp({ database: await openMigratedDatabase(`sqlite:${file}`) });
    } else {
      t = await startHttpTestApp({ dialect });
    }
    team = await makeTeam(t);
    for (const name of ['harbour.jpg', 'lighthouse.jpg', 'dunes.jpg']) await makeAsset(t.database.db, team.ws, { display_file_name: name, file_name: name });
    await makeAsset(t.database.db, team.otherWs, { display_file_name: 'outsider-only.jpg', file_name: 'outsider-only.jpg' });
  });
  afterAll(() => t.close());

  const list = (who: Account, query = `workspaceId=${team.ws}&per_page=50`) => t.request({ method: 'GET', url: `/dam/assets?${query}`, token: who.token });
  const names = (res: { json<T>(): T }) => res.json<{ data: { items: { display_file_name: string }[] } }>().data.items.map((a) => a.display_file_name);
  const search = (who: Account, payload: object) => t.request({ method: 'POST', url: '/search-engine/search', token: who.token, payload });

  /** The cache's own counts, from GET /metrics. */
  async function counts(): Promise<{ hit: number; miss: number }> {
    const text = (await t.request({ method: 'GET', url: '/metrics' })).body;
    const count = (outcome: string) => Number(new RegExp(`^dam_answer_cache_requests_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    return { hit: count('hit'), miss: count('miss') };
  }

  async function cachedBytes(): Promise<number> {
    const text = (await t.request({ method: 'GET', url: '/metrics' })).body;
    return Number(/^dam_answer_cache_size\{unit="bytes"\} (\d+)$/m.exec(text)?.[1] ?? 0);
  }

  it('answers a repeated list byte for byte, from the cache on SQLite only, whichever manager or admin asks and in any parameter order', async () => {
    const first = await list(team.manager);
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
    const before = await counts();
    const again = await list(team.manager);
    const reordered = await list(team.owner, `per_page=50&workspaceId=${team.ws}`);
    expect(again.body).toBe(first.body);
    expect(reordered.body).toBe(first.body);
    const after = await counts();
    expect(after.hit - before.hit).toBe(dialect === 'sqlite' ? 2 : 0);
    expect(after.miss - before.miss).toBe(dialect === 'sqlite' ? 0 : 2);
  });

  it("keeps a viewer's answers apart from the managers' (private assets, issue #27): never a cached page with another's private asset", async () => {
    const secret = await makeAsset(t.database.db, team.ws, { display_file_name: 'secret.jpg', file_name: 'secret.jpg', visibility: 1, uploaded_by: team.manager.user.id });
    try {
      expect(names(await list(team.manager))).toContain('secret.jpg');
      expect(names(await list(team.owner))).toContain('secret.jpg');
      const viewer = await list(team.viewer);
      expect(names(viewer)).not.toContain('secret.jpg');
      expect(viewer.json<{ data: { total: number } }>().data.total).toBe(names(viewer).length);
      // Repeated, the viewer's own answer comes back, not the managers'.
      expect((await list(team.viewer)).body).toBe(viewer.body);
      const body = { request: { q: '*', collections: ['digital_assets'] }, commonSearchParams: { per_page: 50 }, workspace_id_filter: team.ws };
      const hitsOf = (res: { json<T>(): T }) =>
        res.json<{ results: { hits: { document: { display_file_name: string } }[] }[] }>().results[0]!.hits.map((h) => h.document.display_file_name);
      expect(hitsOf(await search(team.manager, body))).toContain('secret.jpg');
      expect(hitsOf(await search(team.viewer, body))).not.toContain('secret.jpg');
    } finally {
      await t.database.db.deleteFrom('assets').where('id', '=', secret.id).execute();
    }
  });

  it('checks who asks on every request: a cached page is no answer for an outsider or a missing token', async () => {
    expect((await list(team.viewer)).statusCode).toBe(200);
    expectError(await list(team.outsider), 404, 'NOT_FOUND');
    expect((await t.request({ method: 'GET', url: `/dam/assets?workspaceId=${team.ws}&per_page=50` })).statusCode).toBe(401);
  });

  it('sees at once a change made through the API, through the same connection, and by another connection (another process)', async () => {
    const [asset] = (await list(team.viewer)).json<{ data: { items: { id: number }[] } }>().data.items;
    const patched = await t.request({ method: 'PATCH', url: `/dam/assets/${asset!.id}`, token: team.manager.token, payload: { display_file_name: 'renamed-by-api.jpg' } });
    expect(patched.statusCode).toBe(200);
    expect(names(await list(team.viewer))).toContain('renamed-by-api.jpg');

    await t.database.db.updateTable('assets').set({ display_file_name: 'renamed-in-process.jpg' }).where('id', '=', asset!.id).execute();
    expect(names(await list(team.viewer))).toContain('renamed-in-process.jpg');

    if (file) {
      // A worker process on the same SQLite file: a commit of another connection.
      const other = new Database(file);
      try {
        other.prepare('UPDATE assets SET display_file_name = ? WHERE id = ?').run('renamed-elsewhere.jpg', asset!.id);
      } finally {
        other.close();
      }
      expect(names(await list(team.viewer))).toContain('renamed-elsewhere.jpg');
    }
    // A new asset and a deleted one.
    const added = await makeAsset(t.database.db, team.ws, { display_file_name: 'added.jpg', file_name: 'added.jpg' });
    expect(names(await list(team.viewer))).toContain('added.jpg');
    expect((await t.request({ method: 'DELETE', url: `/dam/assets/${added.id}`, token: team.manager.token })).statusCode).toBe(200);
    expect(names(await list(team.viewer))).not.toContain('added.jpg');
  });

  it("keeps searches apart by the caller's workspaces, and refuses a workspace filter of someone else's workspace", async () => {
    const body = { request: { q: '*', collections: ['digital_assets'] }, commonSearchParams: { per_page: 50 } };
    const hitsOf = (res: { json<T>(): T }) =>
      res.json<{ results: { hits: { document: { display_file_name: string } }[] }[] }>().results[0]!.hits.map((h) => h.document.display_file_name);
    const sizeBefore = await cachedBytes();
    const owner = await search(team.owner, body);
    expect(owner.statusCode).toBe(200);
    // The key (which holds the request body a client chose) counts toward the cache's bound, with the answer.
    if (dialect === 'sqlite') expect((await cachedBytes()) - sizeBefore).toBeGreaterThanOrEqual(owner.body.length + JSON.stringify(body).length);
    expect(hitsOf(owner)).not.toContain('outsider-only.jpg');
    expect((await search(team.owner, body)).body).toBe(owner.body);
    // Same body, another caller: their own workspaces' hits, never the cached answer of the owner.
    expect(hitsOf(await search(team.outsider, body))).toEqual(['outsider-only.jpg']);
    expectError(await search(team.outsider, { ...body, workspace_id_filter: team.ws }), 404, 'NOT_FOUND');
    expect(hitsOf(await search(team.viewer, { ...body, workspace_id_filter: team.ws })).sort()).toEqual(hitsOf(owner).sort());
  });

  it('refuses at once a logged-out session, a removed member and an expired session, also when another process wrote the change', async () => {
    const me = (who: Account) => t.request({ method: 'GET', url: '/auth/me', token: who.token });
    // Another API process: its own connection on SQLite (the same file), the same handle's pool on PostgreSQL.
    const otherDb = file ? await openMigratedDatabase(`sqlite:${file}`) : t.database;
    const other = await buildApp({ ...t.config, jobs: { ...t.config.jobs, concurrency: 0 } }, { database: otherDb, logger: false });
    try {
      const leaving = await registerUser(t);
      expect((await me(leaving)).statusCode).toBe(200);
      expect((await me(leaving)).statusCode).toBe(200);
      expect((await other.inject({ method: 'POST', url: '/auth/logout', headers: { authorization: `Bearer ${leaving.token}` } })).statusCode).toBe(200);
      expect((await me(leaving)).statusCode).toBe(401);

      const member = await registerUser(t);
      await t.request({ method: 'POST', url: `/workspaces/${team.ws}/members`, token: team.owner.token, payload: { email: member.user.email, role: 'viewer' } });
      expect((await list(member)).statusCode).toBe(200);
      expect((await list(member)).statusCode).toBe(200);
      const removed = await other.inject({ method: 'DELETE', url: `/workspaces/${team.ws}/members/${member.user.id}`, headers: { authorization: `Bearer ${team.owner.token}` } });
      expect(removed.statusCode).toBe(200);
      expectError(await list(member), 404, 'NOT_FOUND');
      const scoped = await search(member, { request: { q: '*' }, workspace_id_filter: team.ws });
      expectError(scoped, 404, 'NOT_FOUND');

      // No write at all: a session's end is a matter of the clock (the test config's sessions last an hour).
      const expiring = await registerUser(t);
      expect((await me(expiring)).statusCode).toBe(200);
      t.advanceClock(3601);
      expect((await me(expiring)).statusCode).toBe(401);
      t.advanceClock(-3601);
    } finally {
      await other.close();
      if (otherDb !== t.database) await otherDb.close();
    }
  });

  it('computes an answer again once it is older than 30 seconds, so the signed links in it stay fresh', async () => {
    await list(team.viewer);
    const before = await counts();
    t.advanceClock(31);
    expect((await list(team.viewer)).statusCode).toBe(200);
    const after = await counts();
    expect(after.miss - before.miss).toBe(1);
    expect(after.hit - before.hit).toBe(0);
  });
});
