import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sortKey } from '../src/domain/sort-key.js';
import { SORT_ORDERS, type SortOrder } from '../src/domain/sort-orders.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { makeAsset, makeCollection, makeFolder } from './helpers/catalog-factories.js';
import { dialects } from './helpers/databases.js';
import { registerUser, type Account, type Envelope } from './helpers/factories.js';
import { search, type SearchResultJson } from './helpers/search-fixtures.js';
import { serverUpload, text, uploadVersion } from './helpers/versions.js';

/**
 * Sorting by name and size (issue #11) on search and on the catalog lists:
 * natural, case-insensitive names; sizes; ties by id in the same direction;
 * pages that are disjoint and complete; renames and new versions re-sort;
 * both databases give the same order; the default orders are unchanged.
 */

/** Names in their expected natural order (Apple and apple tie: by id, Apple first, as it is created first). */
const BY_NAME = ['a 2.png', 'a 10.png', 'a-c', 'ab', 'Apple', 'apple', 'Éclair', 'eclair 3', 'img2.jpg', 'img10.jpg', 'IMG11.jpg', 'zebra 01'];
/** Creation order (ids ascending), each with a size (ties: 100, 300, 800) and a distinct modified_at. */
const ASSETS: { name: string; size: number }[] = [
  { name: 'img10.jpg', size: 500 },
  { name: 'IMG11.jpg', size: 300 },
  { name: 'img2.jpg', size: 300 },
  { name: 'a 10.png', size: 100 },
  { name: 'a 2.png', size: 900 },
  { name: 'Apple', size: 100 },
  { name: 'apple', size: 700 },
  { name: 'a-c', size: 50 },
  { name: 'ab', size: 60 },
  { name: 'Éclair', size: 800 },
  { name: 'eclair 3', size: 800 },
  { name: 'zebra 01', size: 1 },
];
const FOLDERS = ['Folder 10', 'folder 9', 'Alpha', 'beta'];
const FOLDERS_BY_NAME = ['Alpha', 'beta', 'folder 9', 'Folder 10'];
const COLLECTIONS = ['Set 10', 'set 2', 'Archive'];
const COLLECTIONS_BY_NAME = ['Archive', 'set 2', 'Set 10'];

interface Seeded {
  ws: number;
  /** name -> asset id */
  asset: Map<string, number>;
}

async function seed(t: TestApp, owner: Account, ws: number): Promise<Seeded> {
  const asset = new Map<string, number>();
  for (const [i, { name, size }] of ASSETS.entries()) {
    const made = await makeAsset(t.database.db, ws, { display_file_name: name, file_size: size, created_at: 1000 + i, modified_at: 5000 - i * 7 });
    asset.set(name, made.id);
  }
  // Neither an unfinished upload nor an asset in the trash is listed, whatever the order.
  await makeAsset(t.database.db, ws, { display_file_name: 'aaa uploading', file_size: 0, status: 'uploading', created_by: 'x', created_at: 1 });
  const trashed = await makeAsset(t.database.db, ws, { display_file_name: 'aaa trashed', file_size: 0, created_at: 1 });
  expect((await t.request({ method: 'DELETE', url: `/dam/assets/${trashed.id}`, token: owner.token })).statusCode).toBe(200);
  for (const name of FOLDERS) await makeFolder(t, owner, ws, { name });
  for (const name of COLLECTIONS) await makeCollection(t, owner, ws, { name });
  return { ws, asset };
}

const COLLECTION_OF = { assets: 'digital_assets', folders: 'digital_assets_categories', collections: 'dam_collections' } as const;
type Listed = keyof typeof COLLECTION_OF;

/** Every page of a search in one collection, per_page at a time, until an empty page. */
async function searchPages(t: TestApp, who: Account, what: Listed, request: object, perPage: number, ws?: number): Promise<{ names: string[]; found: number[] }> {
  const names: string[] = [];
  const found: number[] = [];
  for (let page = 1; ; page += 1) {
    const [result] = await search(t, who, {
      request: { collections: [COLLECTION_OF[what]], ...request },
      commonSearchParams: { per_page: perPage, page },
      ...(ws !== undefined && { workspace_id_filter: ws }),
    });
    found.push(result!.found);
    if (result!.hits.length === 0) return { names, found };
    names.push(...result!.hits.map((h) => h.document.display_file_name));
  }
}

interface ListItem {
  id: number;
  name?: string;
  display_file_name?: string;
  file_size?: number;
}

async function listPage(t: TestApp, who: Account, what: Listed, ws: number, sortBy: SortOrder | undefined, page: number, perPage: number) {
  const qs = new URLSearchParams({ workspaceId: String(ws), page: String(page), per_page: String(perPage), ...(sortBy && { sort_by: sortBy }) });
  const res = await t.request({ method: 'GET', url: `/dam/${what}?${qs.toString()}`, token: who.token });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<Envelope<{ items: ListItem[]; total: number }>>().data;
}

/** Every page of a catalog list. */
async function listAll(t: TestApp, who: Account, what: Listed, ws: number, sortBy: SortOrder | undefined, perPage = 250): Promise<string[]> {
  const names: string[] = [];
  for (let page = 1; ; page += 1) {
    const { items } = await listPage(t, who, what, ws, sortBy, page, perPage);
    if (items.length === 0) return names;
    names.push(...items.map((i) => i.display_file_name ?? i.name!));
  }
}

const names = (result: SearchResultJson) => result.hits.map((h) => h.document.display_file_name);
const reversed = <T>(xs: readonly T[]) => [...xs].reverse();
/** The assets by size, ties by id (creation order). */
const BY_SIZE = ASSETS.map((a, id) => ({ ...a, id }))
  .sort((a, b) => a.size - b.size || a.id - b.id)
  .map((a) => a.name);

describe.each(dialects)('sorting on %s', (dialect) => {
  let t: TestApp;
  let owner: Account;
  let a: Seeded;
  let otherWs: number;

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    owner = await registerUser(t);
    a = await seed(t, owner, owner.workspaceId);
    const res = await t.request({ method: 'POST', url: '/workspaces', token: owner.token, payload: { name: 'Second' } });
    otherWs = res.json<Envelope<{ id: number }>>().data.id;
    await makeAsset(t.database.db, otherWs, { display_file_name: 'img3.jpg', file_size: 400, created_at: 10 });
    await makeAsset(t.database.db, otherWs, { display_file_name: 'B', file_size: 10_000, created_at: 11 });
  });
  afterAll(() => t.close());

  it('search: names in natural, case-insensitive order, ties by id in the same direction', async () => {
    const asc = await search(t, owner, { request: { q: '*', collections: ['digital_assets'], sort_by: 'display_file_name:asc' }, commonSearchParams: { per_page: 50 }, workspace_id_filter: a.ws });
    expect(names(asc[0]!)).toEqual(BY_NAME);
    const desc = await search(t, owner, { request: { q: '*', collections: ['digital_assets'], sort_by: 'display_file_name:desc' }, commonSearchParams: { per_page: 50 }, workspace_id_filter: a.ws });
    expect(names(desc[0]!)).toEqual(reversed(BY_NAME));
  });

  it('search: sizes, ties by id in the same direction', async () => {
    for (const [order, expected] of [['file_size:asc', BY_SIZE], ['file_size:desc', reversed(BY_SIZE)]] as const) {
      const [result] = await search(t, owner, { request: { collections: ['digital_assets'], sort_by: order }, commonSearchParams: { per_page: 50 }, workspace_id_filter: a.ws });
      expect(names(result!), order).toEqual(expected);
      const sizes = result!.hits.map((h) => (h.document as { file_size?: number }).file_size!);
      expect(sizes).toEqual(order === 'file_size:asc' ? [...sizes].sort((x, y) => x - y) : [...sizes].sort((x, y) => y - x));
    }
  });

  it('search: folders and collections by name; a size order sorts them by name too', async () => {
    for (const [order, dir] of [['display_file_name:asc', 1], ['display_file_name:desc', -1], ['file_size:asc', 1], ['file_size:desc', -1]] as const) {
      const [folders, collections] = await search(t, owner, {
        request: { collections: ['digital_assets_categories', 'dam_collections'], sort_by: order },
        workspace_id_filter: a.ws,
      });
      expect(names(folders!), order).toEqual(dir === 1 ? FOLDERS_BY_NAME : reversed(FOLDERS_BY_NAME));
      expect(names(collections!), order).toEqual(dir === 1 ? COLLECTIONS_BY_NAME : reversed(COLLECTIONS_BY_NAME));
    }
  });

  it('search: pages of a name or size order are disjoint and complete, in one workspace and across two', async () => {
    for (const order of ['display_file_name:asc', 'display_file_name:desc', 'file_size:asc', 'file_size:desc'] as const) {
      for (const ws of [a.ws, undefined]) {
        const whole = await searchPages(t, owner, 'assets', { sort_by: order }, 250, ws);
        expect(whole.names).toHaveLength(ws === undefined ? ASSETS.length + 2 : ASSETS.length);
        for (const perPage of [1, 5]) {
          const paged = await searchPages(t, owner, 'assets', { sort_by: order }, perPage, ws);
          expect(paged.names, `${order} per ${perPage}`).toEqual(whole.names);
          expect(new Set(paged.found)).toEqual(new Set([whole.names.length]));
        }
      }
    }
  });

  it('search: several workspaces are merged in one order', async () => {
    const [byName] = await search(t, owner, { request: { collections: ['digital_assets'], sort_by: 'display_file_name:asc' }, commonSearchParams: { per_page: 50 } });
    expect(names(byName!)).toEqual(['a 2.png', 'a 10.png', 'a-c', 'ab', 'Apple', 'apple', 'B', 'Éclair', 'eclair 3', 'img2.jpg', 'img3.jpg', 'img10.jpg', 'IMG11.jpg', 'zebra 01']);
    const [bySize] = await search(t, owner, { request: { collections: ['digital_assets'], sort_by: 'file_size:desc' }, commonSearchParams: { per_page: 3 } });
    expect(names(bySize!)).toEqual(['B', 'a 2.png', 'eclair 3']); // 800 bytes twice: the larger id first
  });

  it('search: a text query sorted by name or size keeps its matches and takes the order', async () => {
    const [byName] = await search(t, owner, { request: { q: 'img', collections: ['digital_assets'], sort_by: 'display_file_name:desc' } });
    expect(names(byName!)).toEqual(['IMG11.jpg', 'img10.jpg', 'img3.jpg', 'img2.jpg']);
    const [bySize] = await search(t, owner, { request: { q: 'a', collections: ['digital_assets'], sort_by: 'file_size:asc' }, workspace_id_filter: a.ws });
    // `a` as the last word is a prefix: ab, Apple and apple match too.
    expect(names(bySize!)).toEqual(['a-c', 'ab', 'a 10.png', 'Apple', 'apple', 'a 2.png']);
    const paged = await searchPages(t, owner, 'assets', { q: 'img', sort_by: 'display_file_name:asc' }, 3);
    expect(paged.names).toEqual(['img2.jpg', 'img3.jpg', 'img10.jpg', 'IMG11.jpg']);
  });

  it('search: a name order with a filter', async () => {
    const [result] = await search(t, owner, {
      request: { collections: ['digital_assets'], sort_by: 'display_file_name:asc' },
      filterQuery: { digital_assets: 'modified_at:<=4944' },
      workspace_id_filter: a.ws,
    });
    // modified_at = 5000 - 7 * i: the assets created from the 9th on.
    expect(names(result!)).toEqual(['ab', 'Éclair', 'eclair 3', 'zebra 01']);
  });

  it('catalog lists: name and size orders, pages disjoint and complete', async () => {
    const cases: [Listed, SortOrder, string[]][] = [
      ['assets', 'display_file_name:asc', BY_NAME],
      ['assets', 'display_file_name:desc', reversed(BY_NAME)],
      ['assets', 'file_size:asc', BY_SIZE],
      ['assets', 'file_size:desc', reversed(BY_SIZE)],
      ['folders', 'display_file_name:asc', FOLDERS_BY_NAME],
      ['folders', 'file_size:desc', reversed(FOLDERS_BY_NAME)],
      ['collections', 'display_file_name:desc', reversed(COLLECTIONS_BY_NAME)],
      ['collections', 'file_size:asc', COLLECTIONS_BY_NAME],
    ];
    for (const [what, order, expected] of cases) {
      expect(await listAll(t, owner, what, a.ws, order), `${what} ${order}`).toEqual(expected);
      for (const perPage of [1, 5]) expect(await listAll(t, owner, what, a.ws, order, perPage), `${what} ${order} per ${perPage}`).toEqual(expected);
    }
  });

  it('catalog lists: date orders, ties by id', async () => {
    const byCreated = await listAll(t, owner, 'assets', a.ws, 'created_at:desc', 5);
    expect(byCreated).toEqual(reversed(ASSETS.map((x) => x.name)));
    const byModified = await listAll(t, owner, 'folders', a.ws, 'modified_at:asc');
    // Folders made in the same second tie on modified_at: by id, i.e. creation order.
    expect(byModified).toEqual(FOLDERS);
  });

  it('the defaults are unchanged: search newest first, catalog lists by id ascending', async () => {
    const [result] = await search(t, owner, { request: { collections: ['digital_assets'] }, commonSearchParams: { per_page: 50 }, workspace_id_filter: a.ws });
    expect(names(result!)).toEqual(ASSETS.map((x) => x.name)); // modified_at decreases with creation
    expect(await listAll(t, owner, 'assets', a.ws, undefined)).toEqual(ASSETS.map((x) => x.name));
    expect(await listAll(t, owner, 'folders', a.ws, undefined)).toEqual(FOLDERS);
    expect(await listAll(t, owner, 'collections', a.ws, undefined)).toEqual(COLLECTIONS);
  });

  it('a sort_by outside the list is a 400 naming it, on search and on the lists', async () => {
    const bad = await t.request({ method: 'POST', url: '/search-engine/search', token: owner.token, payload: { request: { sort_by: 'name:asc' } } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json<{ error: string }>().error).toContain('sort_by');
    for (const what of ['assets', 'folders', 'collections']) {
      const res = await t.request({ method: 'GET', url: `/dam/${what}?workspaceId=${a.ws}&sort_by=file_size`, token: owner.token });
      expect(res.statusCode, what).toBe(400);
      expect(res.json<{ error: string }>().error).toContain('sort_by');
    }
  });

  it('renames and new versions re-sort, on search and on the lists', async () => {
    const res = await t.request({ method: 'POST', url: '/workspaces', token: owner.token, payload: { name: 'Renames' } });
    const ws = res.json<Envelope<{ id: number }>>().data.id;
    const first = await serverUpload(t, owner, text('x'.repeat(10), 'File 1.txt'), ws);
    await serverUpload(t, owner, text('x'.repeat(20), 'file 2.txt'), ws);
    const folder = await makeFolder(t, owner, ws, { name: 'b folder' });
    await makeFolder(t, owner, ws, { name: 'c folder' });
    const collection = await makeCollection(t, owner, ws, { name: 'b set' });
    await makeCollection(t, owner, ws, { name: 'c set' });
    const searchNames = async (what: Listed, order: SortOrder) => (await searchPages(t, owner, what, { sort_by: order }, 250, ws)).names;

    expect(await searchNames('assets', 'display_file_name:asc')).toEqual(['File 1.txt', 'file 2.txt']);
    const patch = (url: string, payload: object) => t.request({ method: 'PATCH', url, token: owner.token, payload });
    expect((await patch(`/dam/assets/${first.id}`, { display_file_name: 'File 10.txt' })).statusCode).toBe(200);
    expect((await patch(`/dam/folders/${folder.id}`, { name: 'd folder' })).statusCode).toBe(200);
    expect((await patch(`/dam/collections/${collection.id}`, { name: 'D set' })).statusCode).toBe(200);
    expect(await searchNames('assets', 'display_file_name:asc')).toEqual(['file 2.txt', 'File 10.txt']);
    expect(await listAll(t, owner, 'assets', ws, 'display_file_name:asc')).toEqual(['file 2.txt', 'File 10.txt']);
    expect(await searchNames('folders', 'display_file_name:asc')).toEqual(['c folder', 'd folder']);
    expect(await listAll(t, owner, 'folders', ws, 'display_file_name:asc')).toEqual(['c folder', 'd folder']);
    expect(await searchNames('collections', 'display_file_name:asc')).toEqual(['c set', 'D set']);
    expect(await listAll(t, owner, 'collections', ws, 'display_file_name:asc')).toEqual(['c set', 'D set']);

    // A new version brings its size: the asset moves in the size order.
    expect(await searchNames('assets', 'file_size:desc')).toEqual(['file 2.txt', 'File 10.txt']);
    await uploadVersion(t, owner, first.id, text('x'.repeat(30), 'File 1.txt'));
    expect(await searchNames('assets', 'file_size:desc')).toEqual(['File 10.txt', 'file 2.txt']);
    expect(await listAll(t, owner, 'assets', ws, 'file_size:desc')).toEqual(['File 10.txt', 'file 2.txt']);
  });

  it('every row carries the key of its name, and search_sort mirrors the catalog', async () => {
    const db = t.database.db;
    const catalog = await sql<{ doc_id: number; name: string; name_key: string; file_size: number }>`
      SELECT id * 4 + 1 AS doc_id, display_file_name AS name, name_key, file_size FROM assets
      UNION ALL SELECT id * 4 + 2, name, name_key, 0 FROM folders
      UNION ALL SELECT id * 4 + 3, name, name_key, 0 FROM collections`.execute(db);
    expect(catalog.rows.length).toBeGreaterThan(ASSETS.length);
    for (const row of catalog.rows) expect(row.name_key, row.name).toBe(sortKey(row.name));
    const mirror = await db.selectFrom('search_sort').select(['doc_id', 'name_key', 'file_size']).orderBy('doc_id').execute();
    const expected = catalog.rows.map(({ doc_id, name_key, file_size }) => ({ doc_id: Number(doc_id), name_key, file_size: Number(file_size) }));
    expect(mirror.map((r) => ({ ...r, doc_id: Number(r.doc_id), file_size: Number(r.file_size) }))).toEqual(expected.sort((x, y) => x.doc_id - y.doc_id));
  });

  it.runIf(dialect === 'postgres')('PostgreSQL: every name_key compares bytes (COLLATE "C"), whatever the database locale', async () => {
    const { rows } = await sql<{ table_name: string; collation_name: string | null }>`
      SELECT table_name, collation_name FROM information_schema.columns
      WHERE column_name = 'name_key' AND table_schema = current_schema() ORDER BY table_name`.execute(t.database.db);
    expect(rows).toEqual(['assets', 'collections', 'folders', 'search_sort'].map((table_name) => ({ table_name, collation_name: 'C' })));
  });
});

/** The same catalog on every configured database answers every order identically. */
describe('sorting parity', () => {
  const apps: { t: TestApp; owner: Account; ws: number }[] = [];

  beforeAll(async () => {
    for (const dialect of dialects) {
      const t = await startTestApp({ dialect });
      const owner = await registerUser(t, { email: 'parity@example.test' });
      await seed(t, owner, owner.workspaceId);
      apps.push({ t, owner, ws: owner.workspaceId });
    }
  });
  afterAll(() => Promise.all(apps.map(({ t }) => t.close())));

  it(`search and lists agree on ${dialects.join(' and ')}`, async () => {
    for (const order of SORT_ORDERS) {
      const answers = await Promise.all(
        apps.map(async ({ t, owner, ws }) => ({
          search: (await searchPages(t, owner, 'assets', { q: '*', sort_by: order }, 5)).names,
          text: (await searchPages(t, owner, 'assets', { q: 'a', sort_by: order }, 2)).names,
          folders: (await searchPages(t, owner, 'folders', { sort_by: order }, 3)).names,
          list: await listAll(t, owner, 'assets', ws, order, 4),
          collections: await listAll(t, owner, 'collections', ws, order, 2),
        })),
      );
      for (const other of answers.slice(1)) expect(other, order).toEqual(answers[0]);
      expect(answers[0]!.search, order).toHaveLength(ASSETS.length);
    }
  });
});
