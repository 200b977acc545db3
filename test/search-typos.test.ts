import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { createSearchSchema } from '../src/search/index-schema/index.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { makeAsset } from './helpers/catalog-factories.js';
import { dialects, openDatabaseAt } from './helpers/databases.js';
import { addMember, registerUser, type Account } from './helpers/factories.js';
import { searchAssets, searchRequest } from './helpers/search-fixtures.js';
import { dropSearchSchema } from './helpers/search-schema.js';

/**
 * Search that forgives (issue #27, section 3): typo tolerance with Typesense's defaults (1 typo from 4 characters,
 * 2 from 7, only when nothing matches as typed), exact matches first, num_typos / min_len_1typo / min_len_2typo /
 * typo_tokens_threshold; camera make, model and lens as text; the term dictionary per workspace (isolation, private
 * assets, deletion) and its backfill; migration 0027 on existing rows.
 */
describe.each(dialects)('typo-tolerant search on %s', (dialect) => {
  let t: TestApp;
  let owner: Account;
  let viewer: Account;
  let outsider: Account;
  const label = new Map<string, string>();

  const add = async (name: string, workspaceId: number, extra: Record<string, unknown> = {}, camera: Record<string, string> = {}) => {
    const asset = await makeAsset(t.database.db, workspaceId, { display_file_name: name, file_name: `${name.toLowerCase().replace(/ /g, '-')}.jpg`, ...extra });
    if (Object.keys(camera).length) await t.database.db.updateTable('assets').set(camera).where('id', '=', asset.id).execute();
    label.set(String(asset.id), name);
    return asset.id;
  };
  const names = async (who: Account, q: string, params: object = {}) => {
    const result = await searchAssets(t, who, q, undefined, { commonSearchParams: { per_page: 50, ...params } });
    return result.hits.map((h) => label.get(h.document.id) ?? `?${h.document.id}`);
  };
  const dictionary = async (workspaceId: number) =>
    (await sql<{ term: string; docs: number }>`SELECT term, docs FROM search_terms WHERE workspace_id = ${workspaceId} ORDER BY term`.execute(t.database.db)).rows.map(
      (r) => `${r.term}:${Number(r.docs)}`,
    );

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    owner = await registerUser(t);
    viewer = await registerUser(t);
    outsider = await registerUser(t);
    await addMember(t, owner, owner.workspaceId, viewer, 'viewer');
    const ws = owner.workspaceId;
    // modified_at decides the order among equals: newest first.
    await add('Sunset over the sea', ws, { modified_at: 100 });
    await add('Beach day', ws, { modified_at: 200 });
    await add('Bench press', ws, { modified_at: 300 });
    await add('Elephant herd', ws, { modified_at: 400 });
    await add('Cat on the sofa', ws, { modified_at: 500 });
    await add('Holiday', ws, { modified_at: 600 }, { camera_make: 'Canon', camera_model: 'Canon EOS R5', lens: 'RF24-105mm F4 L IS USM' });
    // Private, uploaded by the owner: the viewer never sees it, not even through a typo.
    await add('Kilimanjaro summit', ws, { modified_at: 700, visibility: 1, uploaded_by: owner.user.id });
    await add('Zanzibar harbour', outsider.workspaceId, { modified_at: 800 });
  }, 60_000);
  afterAll(() => t.close());

  it('finds a word with one typo from 4 characters: sunst finds sunset', async () => {
    expect(await names(owner, 'sunst')).toEqual(['Sunset over the sea']);
    expect(await names(owner, 'SUNSET')).toEqual(['Sunset over the sea']);
    // A swap of two neighbours is one typo; a deletion (cats -> cat) too.
    expect(await names(owner, 'sunest')).toEqual(['Sunset over the sea']);
    expect(await names(owner, 'cats')).toEqual(['Cat on the sofa']);
    expect(await names(owner, 'sunst sea')).toEqual(['Sunset over the sea']);
    expect(await names(owner, 'sunst beach')).toEqual([]);
  });

  it('allows 2 typos only from 7 characters, and none below 4', async () => {
    expect(await names(owner, 'elehpnat')).toEqual(['Elephant herd']);
    // 6 characters, 2 typos: over the budget of 1.
    expect(await names(owner, 'sansat')).toEqual([]);
    // 3 characters: matched as typed only (cst is no prefix of any word).
    expect(await names(owner, 'cst')).toEqual([]);
    expect(await names(owner, 'xat')).toEqual([]);
  });

  it('honours num_typos, min_len_1typo and min_len_2typo', async () => {
    expect(await names(owner, 'sunst', { num_typos: 0 })).toEqual([]);
    expect(await names(owner, 'elehpnat', { num_typos: 1 })).toEqual([]);
    expect(await names(owner, 'sansat', { min_len_2typo: 6 })).toEqual(['Sunset over the sea']);
    expect(await names(owner, 'sunst', { min_len_1typo: 6 })).toEqual([]);
    expect(await names(owner, 'xat', { min_len_1typo: 3 })).toEqual(['Cat on the sofa']);
  });

  it('corrects only when nothing matches as typed, and ranks exact matches first', async () => {
    // Default typo_tokens_threshold 1: "beach" matches, so "bench" (one typo away) is not added.
    expect(await names(owner, 'beach')).toEqual(['Beach day']);
    // Asked for more: the typo match comes after the exact one although it is newer.
    expect(await names(owner, 'beach', { typo_tokens_threshold: 10 })).toEqual(['Beach day', 'Bench press']);
    expect(await names(owner, 'bench', { typo_tokens_threshold: 10 })).toEqual(['Bench press', 'Beach day']);
    expect(await names(owner, 'beach', { typo_tokens_threshold: 0 })).toEqual(['Beach day']);
  });

  it('searches the camera make and model and the lens', async () => {
    expect(await names(owner, 'Canon')).toEqual(['Holiday']);
    expect(await names(owner, 'eos r5')).toEqual(['Holiday']);
    expect(await names(owner, 'usm')).toEqual(['Holiday']);
    expect(await names(owner, 'cannon')).toEqual(['Holiday']);
  });

  it('answers a 400 naming the parameter for a typo parameter out of range', async () => {
    for (const [param, value] of [['num_typos', 3], ['min_len_1typo', 0], ['typo_tokens_threshold', -1], ['num_typos', 'two']] as const) {
      const res = await searchRequest(t, owner, { request: { q: 'sunst' }, commonSearchParams: { [param]: value } });
      expect(res.statusCode).toBe(400);
      expect(res.body).toContain(param);
    }
    // The one-collection helpers take the same parameters at the top level.
    const helper = (body: object) => t.request({ method: 'POST', url: '/search-engine/search-assets', token: owner.token, payload: { q: 'sunst', ...body } });
    expect((await helper({})).json<{ data: { found: number } }>().data.found).toBe(1);
    expect((await helper({ num_typos: 0 })).json<{ data: { found: number } }>().data.found).toBe(0);
  });

  it("keeps workspaces apart: another workspace's words are no candidates", async () => {
    expect(await names(owner, 'zanzibr')).toEqual([]);
    expect(await names(outsider, 'zanzibr')).toEqual(['Zanzibar harbour']);
    expect(await names(outsider, 'sunst')).toEqual([]);
    expect(await dictionary(outsider.workspaceId)).toEqual(['harbour:1', 'jpg:1', 'zanzibar:1']);
  });

  it('never shows a viewer a private asset through a typo', async () => {
    expect(await names(owner, 'kilimanjoro')).toEqual(['Kilimanjaro summit']);
    expect(await names(viewer, 'kilimanjoro')).toEqual([]);
    expect(await names(viewer, 'kilimanjaro')).toEqual([]);
    expect(await names(viewer, 'sunst')).toEqual(['Sunset over the sea']);
  });

  it("removes a document's words from the dictionary when it leaves the index", async () => {
    const id = await add('Quokka portrait', owner.workspaceId, { modified_at: 900 });
    const other = await add('Portrait of a quokka', owner.workspaceId, { modified_at: 901 });
    expect(await names(owner, 'quoka')).toEqual(['Portrait of a quokka', 'Quokka portrait']);
    expect((await dictionary(owner.workspaceId)).filter((e) => e.startsWith('quokka') || e.startsWith('portrait'))).toEqual(['portrait:2', 'quokka:2']);
    const trashed = await t.request({ method: 'DELETE', url: `/dam/assets/${id}`, token: owner.token });
    expect(trashed.statusCode).toBeLessThan(300);
    expect((await dictionary(owner.workspaceId)).filter((e) => e.startsWith('quokka'))).toEqual(['quokka:1']);
    // Renamed: the old words go, the new ones come.
    await t.database.db.updateTable('assets').set({ display_file_name: 'Wombat', file_name: 'wombat.jpg' }).where('id', '=', other).execute();
    expect((await dictionary(owner.workspaceId)).filter((e) => /^(quokka|portrait|wombat)/.test(e))).toEqual(['wombat:1']);
    expect(await names(owner, 'quoka')).toEqual([]);
  });

  it('backfills the dictionary exactly as the triggers count it', async () => {
    const before = [await dictionary(owner.workspaceId), await dictionary(outsider.workspaceId)];
    await dropSearchSchema(t.database);
    await createSearchSchema[dialect](t.database.db);
    expect([await dictionary(owner.workspaceId), await dictionary(outsider.workspaceId)]).toEqual(before);
    expect(await names(owner, 'sunst')).toEqual(['Sunset over the sea']);
  });
});

/** Upgrading an installation (migration 0027): existing assets' camera text is searchable and their words are counted. */
describe.each(dialects)('migration 0027 on %s', (dialect) => {
  const open: DatabaseHandle[] = [];
  afterEach(async () => {
    for (const handle of open.splice(0)) await handle.close();
  });

  it('re-indexes the camera make, model and lens and fills the dictionary', async () => {
    const handle = await openDatabaseAt(dialect, '0026_asset_unreadable');
    open.push(handle);
    const db = handle.db;
    await sql`INSERT INTO workspaces (name, created_at, modified_at) VALUES ('old', 1, 1)`.execute(db);
    await makeAsset(db, 1, { display_file_name: 'Sunset', file_name: 'IMG_1.jpg' });
    const camera = await makeAsset(db, 1, { display_file_name: 'Harbour', file_name: 'IMG_2.jpg' });
    await db.updateTable('assets').set({ camera_make: 'NIKON CORPORATION', camera_model: 'NIKON D750', lens: 'Nikkor' }).where('id', '=', camera.id).execute();
    await migrateToLatest(handle);
    const terms = await sql<{ term: string; docs: number }>`SELECT term, docs FROM search_terms WHERE workspace_id = 1 ORDER BY term`.execute(db);
    expect(terms.rows.map((r) => `${r.term}:${Number(r.docs)}`)).toEqual(['corporation:1', 'harbour:1', 'img:2', 'jpg:2', 'nikkor:1', 'nikon:1', 'sunset:1']);
    const words =
      dialect === 'sqlite'
        ? sql<{ n: number }>`SELECT count(*) AS n FROM search_fts WHERE search_fts MATCH 'nikkor'`
        : sql<{ n: number }>`SELECT count(*) AS n FROM search_documents WHERE search_vector @@ 'nikkor'::tsquery`;
    expect(Number((await words.execute(db)).rows[0]!.n)).toBe(1);
  });
});
