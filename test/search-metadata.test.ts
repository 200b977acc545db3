import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle, DB } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { KIND } from '../src/search/collections.js';
import { textSearchDialects } from '../src/search/dialects/index.js';
import { createSearchSchema } from '../src/search/index-schema/index.js';
import { searchDocuments } from '../src/search/repository.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { expectError, makeAsset, makeCollection, makeFolder } from './helpers/catalog-factories.js';
import { dialects, openDatabaseAt } from './helpers/databases.js';
import { registerUser, type Account, type Envelope } from './helpers/factories.js';
import { search, searchAssets, searchRequest, type SearchResultJson } from './helpers/search-fixtures.js';
import { dropSearchSchema, embeddedSnapshot, indexSnapshot } from './helpers/search-schema.js';

/**
 * Embedded metadata in search (issue #12): filters on taken_at, taken_year, camera_make, camera_model,
 * creator, keywords and the gps box; caption, creator and keywords as text; the taken_at order with
 * undated assets last; re-indexing on every change of the columns; isolation between workspaces; the
 * backfill of migration 0012. The columns are written directly (extraction is another feature).
 */

interface Embedded {
  taken_at?: number | null;
  camera_make?: string | null;
  camera_model?: string | null;
  creator?: string | null;
  caption?: string | null;
  keywords?: string[];
  gps?: [number, number] | null;
}

/** Writes embedded-metadata columns of an asset (an UPDATE: the index triggers re-index it). */
async function setEmbedded(db: DB, id: number, e: Embedded): Promise<void> {
  const { gps, keywords, ...rest } = e;
  const values = {
    ...rest,
    ...(keywords !== undefined && { keywords: JSON.stringify(keywords) }),
    ...(gps !== undefined && { gps_lat: gps?.[0] ?? null, gps_lon: gps?.[1] ?? null }),
  };
  if (Object.keys(values).length === 0) return;
  await db.updateTable('assets').set(values).where('id', '=', id).execute();
}

/** label, file name, modified_at (distinct: newest first is the default order), embedded metadata. */
const CORPUS: [string, string, number, Embedded][] = [
  ['canon', 'IMG_0001.jpg', 9000, { taken_at: 1_600_000_000, camera_make: 'Canon', camera_model: 'Canon EOS R5', creator: 'Anna Berger', caption: 'Sunrise over the harbour', keywords: ['Harbour', 'boats'], gps: [53.55, 9.99] }],
  ['nikon', 'DSC_0002.jpg', 8000, { taken_at: 1_500_000_000, camera_make: 'NIKON CORPORATION', camera_model: 'NIKON D750', creator: 'Ben Costa', caption: 'Mountain lake at dawn', keywords: ['lake', 'Alps'], gps: [46.5, 8] }],
  // Taken the same second as canon: ties are broken by id.
  ['iphone', 'IMG_0003.jpg', 7000, { taken_at: 1_600_000_000, camera_make: 'Apple', camera_model: 'iPhone 15 Pro', gps: [-33.86, 151.21] }],
  // Both sides of the antimeridian.
  ['fiji', 'fiji.jpg', 6000, { taken_at: 1_700_000_000, camera_model: 'X100V', keywords: ['Été'], gps: [-17.7, 178] }],
  // 2010-01-01T00:00:00Z exactly: the first second of 2010.
  ['samoa', 'samoa.jpg', 5000, { taken_at: 1_262_304_000, creator: 'anna berger', gps: [-13.8, -172] }],
  ['old', 'scan.jpg', 4000, { taken_at: -100_000_000, creator: 'Anna Berger' }],
  ['notes', 'notes.pdf', 3000, {}],
  ['song', 'song.mp3', 2000, {}],
  ['harbour', 'harbour.jpg', 1000, {}],
];
const NEWEST_FIRST = CORPUS.map(([label]) => label);
const except = (...out: string[]) => NEWEST_FIRST.filter((l) => !out.includes(l));
const MIME: Record<string, string> = { jpg: 'image/jpeg', pdf: 'application/pdf', mp3: 'audio/mpeg' };

describe.each(dialects)('embedded metadata in search on %s', (dialect) => {
  let t: TestApp;
  let owner: Account;
  let outsider: Account;
  const id: Record<string, number> = {};
  const label = new Map<string, string>();

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    owner = await registerUser(t);
    outsider = await registerUser(t);
    const db = t.database.db;
    for (const [name, fileName, modified, embedded] of CORPUS) {
      const displayName = name === 'harbour' ? { display_file_name: 'Harbour view' } : {};
      const mime = MIME[fileName.split('.').pop()!]!;
      const asset = await makeAsset(db, owner.workspaceId, { file_name: fileName, ...displayName, mime_type: mime, created_at: 100, modified_at: modified });
      await setEmbedded(db, asset.id, embedded);
      id[name] = asset.id;
      label.set(String(asset.id), name);
    }
    // The same facts in another workspace, and on an upload that has not completed: never found.
    const other = await makeAsset(db, outsider.workspaceId, { file_name: 'other.jpg', modified_at: 9999 });
    await setEmbedded(db, other.id, { taken_at: 1_600_000_000, camera_model: 'Canon EOS R5', creator: 'Anna Berger', caption: 'harbour secret', keywords: ['harbour'], gps: [53.55, 9.99] });
    const uploading = await makeAsset(db, owner.workspaceId, { file_name: 'draft.jpg', status: 'uploading', modified_at: 9999 });
    await setEmbedded(db, uploading.id, { taken_at: 1_600_000_000, camera_model: 'Canon EOS R5', caption: 'harbour draft', keywords: ['harbour'] });
    await makeFolder(t, owner, owner.workspaceId, { name: 'Harbour folder' });
    await makeCollection(t, owner, owner.workspaceId, { name: 'Harbour set' });
  }, 60_000);
  afterAll(() => t.close());

  const labels = (r: SearchResultJson) => r.hits.map((h) => label.get(h.document.id) ?? `?${h.document.id}`);
  const hits = async (filter: string, q = '*', extra: object = {}) => labels(await searchAssets(t, owner, q, filter, { commonSearchParams: { per_page: 50 }, ...extra }));

  it.each([
    // strings: equality and contains with ASCII letters folded, as file_type and tags; :!= includes documents without a value
    ['camera_model:=`Canon EOS R5`', ['canon']],
    ['camera_model:=`canon eos r5`', ['canon']],
    ['camera_model:eos', ['canon']],
    ['camera_model:=[X100V, `iPhone 15 Pro`]', ['iphone', 'fiji']],
    ['camera_model:!=`NIKON D750`', except('nikon')],
    ['camera_model:!=[`NIKON D750`, x100v]', except('nikon', 'fiji')],
    ['camera_make:=canon', ['canon']],
    ['camera_make:NIKON', ['nikon']],
    ['camera_make:=Nikon', []],
    ['creator:=`Anna Berger`', ['canon', 'samoa', 'old']],
    ['creator:!=`Anna Berger`', except('canon', 'samoa', 'old')],
    ['creator:cost', ['nikon']],
    ['creator:%', []],
    // taken_at: numbers, nullable (no date: no comparison holds, :!= holds)
    ['taken_at:>=1600000000', ['canon', 'iphone', 'fiji']],
    ['taken_at:<0', ['old']],
    ['taken_at:=1600000000', ['canon', 'iphone']],
    ['taken_at:1600000000', ['canon', 'iphone']],
    ['taken_at:[1262304000..1500000000]', ['nikon', 'samoa']],
    ['taken_at:=[-100000000, 1700000000]', ['fiji', 'old']],
    ['taken_at:!=1600000000', except('canon', 'iphone')],
    ['taken_at:>99999999999', []],
    // taken_year: the UTC year of taken_at
    ['taken_year:=2020', ['canon', 'iphone']],
    ['taken_year:=2010', ['samoa']],
    ['taken_year:=2009', []],
    ['taken_year:<1970', ['old']],
    ['taken_year:=[2017..2020]', ['canon', 'nikon', 'iphone']],
    ['taken_year:!=2020', except('canon', 'iphone')],
    // keywords: like tags
    ['keywords:=[harbour]', ['canon']],
    ['keywords:=HARBOUR', ['canon']],
    ['keywords:=[lake, `Été`]', ['nikon', 'fiji']],
    ['keywords:=[été]', []],
    ['keywords:!=[harbour]', except('canon')],
    ['keywords:arb', ['canon']],
    ['keywords:=[harbour] && keywords:=[boats]', ['canon']],
    ['tags:=[harbour]', []],
    // gps: [south, west, north, east], edges included
    ['gps:[50, 5, 55, 15]', ['canon']],
    ['gps:=[50, 5, 55, 15]', ['canon']],
    ['gps:[53.55, 9.99, 53.55, 9.99]', ['canon']],
    ['gps:[-90, -180, 90, 180]', ['canon', 'nikon', 'iphone', 'fiji', 'samoa']],
    ['gps:[-20, 170, -10, -170]', ['fiji', 'samoa']],
    ['gps:[-20, 175, -10, 180]', ['fiji']],
    ['gps:[-20, -170, -10, 170]', []],
    ['gps:[-40, 150, -30, 152]', ['iphone']],
    ['gps:!=[-20, 170, -10, -170]', except('fiji', 'samoa')],
    // combinations with the catalog's fields
    ['camera_model:=`Canon EOS R5` && file_type:=image', ['canon']],
    ['taken_at:>=1600000000 || creator:ben', ['canon', 'nikon', 'iphone', 'fiji']],
    ['(gps:[-90, -180, 0, 180]) && (taken_year:>=2020)', ['iphone', 'fiji']],
    ['file_type:=document || camera_make:=apple', ['iphone', 'notes']],
  ] as [string, string[]][])('%s', async (filter, expected) => {
    expect(await hits(filter)).toEqual(expected);
  });

  it.each([
    ['gps:[1, 2, 3]', 3],
    ['gps:=1', 3],
    ['gps:[91, 0, 92, 0]', 5],
    ['gps:[0, 181, 1, 0]', 8],
    ['gps:[10, 0, 5, 0]', 5],
    ['gps:>[0, 0, 1, 1]', 3],
    ['gps:[0..1, 0, 1, 1]', 5],
    ['gps:[1e1, 0, 20, 0]', 5],
    ['gps:[0x1, 0, 20, 0]', 5],
    ['taken_at:>=yesterday', 11],
    ['taken_year:=2020.5', 12],
    ['camera_model:>5', 12],
    ['keywords:>=a', 8],
  ])('%s is a 400 with its position', async (filter, position) => {
    const res = await searchRequest(t, owner, { request: { collections: ['digital_assets'] }, filterQuery: { digital_assets: filter } });
    expectError(res, 400, 'VALIDATION_ERROR', 'filterQuery.digital_assets');
    expect(res.json<{ position: number }>().position).toBe(position);
  });

  it('folders and collections have no embedded metadata: := finds none of them, :!= all', async () => {
    for (const collection of ['digital_assets_categories', 'dam_collections']) {
      for (const [filter, found] of [
        ['camera_model:=`Canon EOS R5`', 0],
        ['taken_at:>0', 0],
        ['keywords:=[harbour]', 0],
        ['gps:[-90, -180, 90, 180]', 0],
        ['camera_model:!=`Canon EOS R5` && taken_at:!=0 && keywords:!=[x] && gps:!=[0, 0, 1, 1]', 1],
      ] as const) {
        const [result] = await search(t, owner, { request: { collections: [collection] }, filterQuery: { [collection]: filter } });
        expect(result!.found, `${collection} ${filter}`).toBe(found);
      }
    }
  });

  it('searches caption, creator and keywords as text, after the names (relevance tier 2)', async () => {
    expect(await hits('', 'harbour')).toEqual(['harbour', 'canon']);
    expect(await hits('', 'dawn')).toEqual(['nikon']);
    expect(await hits('', 'costa')).toEqual(['nikon']);
    expect(await hits('', 'alps')).toEqual(['nikon']);
    expect(await hits('', 'ÉTÉ')).toEqual(['fiji']);
    expect(await hits('', 'sunrise boats')).toEqual(['canon']);
    expect(await hits('', 'anna')).toEqual(['canon', 'samoa', 'old']);
    // Camera make and model are text too since issue #27 (and filters).
    expect(await hits('', 'nikon')).toEqual(['nikon']);
    // Another workspace's caption and an unfinished upload's are never found.
    expect(await hits('', 'secret')).toEqual([]);
    expect(await hits('', 'draft')).toEqual([]);
    expect(await hits('keywords:=[boats]', 'harbour')).toEqual(['canon']);
  });

  const TAKEN_DESC = ['fiji', 'iphone', 'canon', 'nikon', 'samoa', 'old', 'harbour', 'song', 'notes'];
  const TAKEN_ASC = ['old', 'samoa', 'nikon', 'canon', 'iphone', 'fiji', 'notes', 'song', 'harbour'];

  /** Every page of an asset search in order, per_page at a time. */
  async function pages(q: string, sortBy: string, perPage: number, filter?: string): Promise<{ labels: string[]; found: Set<number> }> {
    const out: string[] = [];
    const found = new Set<number>();
    for (let page = 1; ; page += 1) {
      const result = await searchAssets(t, owner, q, filter, { request: { q, collections: ['digital_assets'], sort_by: sortBy }, commonSearchParams: { per_page: perPage, page } });
      found.add(result.found);
      if (result.hits.length === 0) return { labels: out, found };
      out.push(...labels(result));
    }
  }

  it('sorts by taken_at: dated assets in order, ties by id, undated ones last in both directions, pages disjoint and complete', async () => {
    for (const [order, expected] of [['taken_at:desc', TAKEN_DESC], ['taken_at:asc', TAKEN_ASC]] as const) {
      for (const perPage of [1, 2, 4, 50]) {
        const listed = await pages('*', order, perPage);
        expect(listed.labels, `${order} per ${perPage}`).toEqual(expected);
        expect([...listed.found]).toEqual([expected.length]);
      }
      // With words: the matches, in the same order.
      const jpg = expected.filter((l) => CORPUS.find(([name]) => name === l)![1].endsWith('.jpg'));
      for (const perPage of [1, 3]) expect((await pages('jpg', order, perPage)).labels, `jpg ${order}`).toEqual(jpg);
      // With a filter.
      expect((await pages('*', order, 2, 'file_type:=image')).labels).toEqual(jpg);
      expect((await pages('*', order, 2, 'taken_at:!=1600000000')).labels).toEqual(expected.filter((l) => l !== 'canon' && l !== 'iphone'));
    }
  });

  it('sorts folders and collections by created_at when asked for taken_at (they have no date taken)', async () => {
    const ws = (await t.request({ method: 'POST', url: '/workspaces', token: owner.token, payload: { name: 'Folders by date' } })).json<Envelope<{ id: number }>>().data.id;
    const made = [];
    for (const name of ['first', 'second', 'third']) made.push(await makeFolder(t, owner, ws, { name }));
    // Creation dates against the id order: third, then first, then second.
    const created = [200, 300, 100];
    for (const [i, f] of made.entries()) await t.database.db.updateTable('folders').set({ created_at: created[i]! }).where('id', '=', f.id).execute();
    for (const [order, expected] of [['taken_at:asc', ['third', 'first', 'second']], ['taken_at:desc', ['second', 'first', 'third']]] as const) {
      const [result] = await search(t, owner, { request: { collections: ['digital_assets_categories'], sort_by: order }, workspace_id_filter: ws });
      expect(result!.hits.map((h) => h.document.display_file_name), order).toEqual(expected);
    }
  });

  it('merges the taken_at order of several workspaces page by page', async () => {
    const user = await registerUser(t);
    const team = (await t.request({ method: 'POST', url: '/workspaces', token: user.token, payload: { name: 'Team' } })).json<Envelope<{ id: number }>>().data.id;
    const model: { id: number; taken: number | null }[] = [];
    const takens = [50, null, 10, 50, null, 30, 20, null, 40, 10];
    for (const [i, taken] of takens.entries()) {
      const asset = await makeAsset(t.database.db, i % 2 ? team : user.workspaceId, { file_name: `m${i}.jpg` });
      await setEmbedded(t.database.db, asset.id, { taken_at: taken });
      model.push({ id: asset.id, taken });
    }
    for (const direction of ['asc', 'desc'] as const) {
      const sign = direction === 'asc' ? 1 : -1;
      const expected = [...model]
        .sort((a, b) => (a.taken === null) !== (b.taken === null) ? (a.taken === null ? 1 : -1) : sign * ((a.taken ?? 0) - (b.taken ?? 0) || a.id - b.id))
        .map((a) => String(a.id));
      for (const perPage of [1, 3, 4]) {
        const got: string[] = [];
        for (let page = 1; page <= Math.ceil(takens.length / perPage) + 1; page += 1) {
          const [result] = await search(t, user, { request: { collections: ['digital_assets'], sort_by: `taken_at:${direction}` }, commonSearchParams: { per_page: perPage, page } });
          expect(result!.found).toBe(takens.length);
          got.push(...result!.hits.map((h) => h.document.id));
        }
        expect(got, `${direction} per ${perPage}`).toEqual(expected);
      }
    }
  });

  it('taken_year is the UTC year of taken_at, from year 1 to 9999, in filters and in the facts table', async () => {
    const user = await registerUser(t);
    const db = t.database.db;
    const year = (y: number) => {
      const d = new Date(0);
      d.setUTCFullYear(y, 0, 1);
      return d.getTime() / 1000;
    };
    // Each side of several year boundaries, years 0 to 99 (which Date.UTC would read as 1900 to 1999), and beyond 1..9999.
    const takens = [year(1) - 1, year(1), year(99), year(100) - 1, -1, 0, year(2010) - 1, year(2010), year(9999), year(10_000) - 1, year(10_000)];
    const assets = new Map<number, number>();
    for (const taken of takens) {
      const asset = await makeAsset(db, user.workspaceId, { file_name: `y${taken}.jpg` });
      await setEmbedded(db, asset.id, { taken_at: taken });
      assets.set(asset.id, taken);
    }
    const yearOf = (s: number) => {
      const y = new Date(s * 1000).getUTCFullYear();
      return y >= 1 && y <= 9999 ? y : null;
    };
    const ids = async (filter: string) =>
      (await searchAssets(t, user, '*', filter, { commonSearchParams: { per_page: 50 } })).hits.map((h) => Number(h.document.id)).sort((a, b) => a - b);
    const where = (test: (y: number | null) => boolean) => [...assets].filter(([, s]) => test(yearOf(s))).map(([a]) => a).sort((a, b) => a - b);
    for (const y of [0, 1, 2, 99, 100, 1969, 1970, 2009, 2010, 9999, 10_000]) {
      expect(await ids(`taken_year:=${y}`), `= ${y}`).toEqual(where((x) => x === y));
      expect(await ids(`taken_year:!=${y}`), `!= ${y}`).toEqual(where((x) => x !== y));
      expect(await ids(`taken_year:>=${y}`), `>= ${y}`).toEqual(where((x) => x !== null && x >= y));
      expect(await ids(`taken_year:>${y}`), `> ${y}`).toEqual(where((x) => x !== null && x > y));
      expect(await ids(`taken_year:<${y}`), `< ${y}`).toEqual(where((x) => x !== null && x < y));
      expect(await ids(`taken_year:<=${y}`), `<= ${y}`).toEqual(where((x) => x !== null && x <= y));
    }
    expect(await ids('taken_year:=[0..99, 9999..20000]')).toEqual(where((x) => x !== null && (x <= 99 || x >= 9999)));
    const stored = await db.selectFrom('search_asset_facts').select(['doc_id', 'taken_year']).where('workspace_id', '=', user.workspaceId).orderBy('doc_id').execute();
    expect(stored.map((r) => [(Number(r.doc_id) - KIND.digital_assets) / 4, r.taken_year])).toEqual([...assets].map(([a, s]) => [a, yearOf(s)]));
  });

  it('answers the embedded fields on asset hits', async () => {
    const [hit] = (await searchAssets(t, owner, '*', `id:=${id.canon}`)).hits;
    expect(hit!.document).toMatchObject({
      taken_at: 1_600_000_000,
      camera_make: 'Canon',
      camera_model: 'Canon EOS R5',
      creator: 'Anna Berger',
      caption: 'Sunrise over the harbour',
      keywords: ['Harbour', 'boats'],
      gps_lat: 53.55,
      gps_lon: 9.99,
      lens: null,
    });
  });

  it('re-indexes an asset when its metadata changes, leaves with the trash and comes back with a restore', async () => {
    const db = t.database.db;
    const asset = await makeAsset(db, owner.workspaceId, { file_name: 'changing.jpg' });
    const find = async (filter: string, q = '*') => (await searchAssets(t, owner, q, `id:=${asset.id} && ${filter}`)).found;
    await setEmbedded(db, asset.id, { caption: 'zebra crossing', creator: 'Carla', keywords: ['stripes'], taken_at: 5, camera_make: 'Leica', camera_model: 'M6', gps: [1, 1] });
    const before = ['keywords:=stripes', 'taken_at:=5', 'taken_year:=1970', 'camera_model:=m6', 'camera_make:=leica', 'creator:=carla', 'gps:[0, 0, 2, 2]'];
    for (const filter of before) expect(await find(filter), filter).toBe(1);
    expect(await find('id:>0', 'zebra')).toBe(1);
    expect(await find('id:>0', 'carla')).toBe(1);

    await setEmbedded(db, asset.id, { caption: 'giraffe', creator: null, keywords: [], taken_at: null, camera_make: null, camera_model: 'M7', gps: null });
    for (const filter of before) expect(await find(filter), filter).toBe(0);
    expect(await find('camera_model:=m7')).toBe(1);
    expect(await find('taken_at:!=5 && gps:!=[0, 0, 2, 2] && keywords:!=[stripes]')).toBe(1);
    expect(await find('id:>0', 'zebra')).toBe(0);
    expect(await find('id:>0', 'giraffe')).toBe(1);
    const facts = async () => (await db.selectFrom('search_asset_facts').select('camera_model').where('doc_id', '=', asset.id * 4 + KIND.digital_assets).execute()).map((r) => r.camera_model);
    expect(await facts()).toEqual(['M7']);
    // Without any fact left, the row goes.
    await setEmbedded(db, asset.id, { camera_model: null });
    expect(await facts()).toEqual([]);
    await setEmbedded(db, asset.id, { camera_model: 'M7' });
    expect(await facts()).toEqual(['M7']);

    expect((await t.request({ method: 'DELETE', url: `/dam/assets/${asset.id}`, token: owner.token })).statusCode).toBe(200);
    expect(await facts()).toEqual([]);
    expect(await find('camera_model:=m7')).toBe(0);
    const restored = await t.request({ method: 'POST', url: '/dam/trash/restore', token: owner.token, payload: { workspaceId: owner.workspaceId, asset_ids: [asset.id] } });
    expect(restored.statusCode, restored.body).toBe(200);
    expect(await facts()).toEqual(['M7']);
    expect(await find('camera_model:=m7', 'giraffe')).toBe(1);
  });

  it("never shows another workspace's assets, whatever the filter", async () => {
    const theirs = async (filter: string, q = '*') => (await searchAssets(t, outsider, q, filter)).hits.map((h) => h.document.display_file_name);
    expect(await theirs('camera_model:=`Canon EOS R5` && keywords:=[harbour] && gps:[50, 5, 55, 15] && taken_at:=1600000000', 'harbour')).toEqual(['other.jpg']);
    expect(await theirs('creator:!=nobody')).toEqual(['other.jpg']);
    expect(await hits('camera_model:=`Canon EOS R5` && taken_at:=1600000000 && gps:[50, 5, 55, 15]')).toEqual(['canon']);
    // An explicit workspace of someone else is a 404, as without metadata.
    const res = await searchRequest(t, owner, { request: { q: '*' }, filterQuery: { digital_assets: 'camera_model:eos' }, workspace_id_filter: outsider.workspaceId });
    expectError(res, 404, 'NOT_FOUND');
  });

  it('holds a facts row for each searchable asset with a fact, and a backfill reproduces what the triggers wrote', async () => {
    const db = t.database.db;
    const facts = await db.selectFrom('search_asset_facts').select('doc_id').orderBy('doc_id').execute();
    const withFacts = ['canon', 'nikon', 'iphone', 'fiji', 'samoa', 'old'].map((l) => id[l]! * 4 + KIND.digital_assets);
    expect(facts.map((f) => Number(f.doc_id)).filter((d) => withFacts.includes(d))).toEqual(withFacts);
    expect(facts.map((f) => Number(f.doc_id))).not.toContain(id.notes! * 4 + KIND.digital_assets);
    const before = [await indexSnapshot(t.database), await embeddedSnapshot(t.database)];
    expect((before[1] as unknown[][]).map((rows) => rows.length > 4)).toEqual([true, true, true]);
    await dropSearchSchema(t.database);
    await createSearchSchema[dialect](db);
    expect([await indexSnapshot(t.database), await embeddedSnapshot(t.database)]).toEqual(before);
    expect(await hits('keywords:=[harbour]', 'sunrise')).toEqual(['canon']);
  });
});

/** Upgrading an installation (migration 0012): assets written before it are filterable, sortable and searchable by their metadata. */
describe.each(dialects)('migration 0012 on %s', (dialect) => {
  const open: DatabaseHandle[] = [];
  afterEach(async () => {
    for (const handle of open.splice(0)) await handle.close();
  });

  it('backfills the facts and keywords of searchable assets and the words of their caption, creator and keywords', async () => {
    const handle = await openDatabaseAt(dialect, '0011_embedded_metadata');
    open.push(handle);
    const db = handle.db;
    await sql`INSERT INTO workspaces (name, created_at, modified_at) VALUES ('old', 1, 1)`.execute(db);
    await sql`INSERT INTO folders (workspace_id, parent_id, name, name_key, visibility, tags, created_at, modified_at) VALUES (1, NULL, 'Trips', 'trips', 0, '[]', 2, 3)`.execute(db);
    const asset = (name: string, status: string, deleted: number | null, embedded: string) => sql`
      INSERT INTO assets (workspace_id, folder_id, display_file_name, name_key, file_name, file_type, mime_type, file_size, tags, visibility, metadata,
        created_by, created_at, modified_at, status, deleted_at, taken_at, camera_make, camera_model, creator, caption, keywords, gps_lat, gps_lon)
      VALUES (1, NULL, ${name}, ${name}, ${name}, 'image', 'image/jpeg', 10, '["trip"]', 0, '{}', 'x', 4, 5, ${status}, ${deleted}, ${sql.raw(embedded)})`;
    await asset('harbour.jpg', 'ready', null, `1600000000, 'Canon', 'Canon EOS R5', 'Anna Berger', 'Sunrise over the water', '["Boats","boats","Harbour"]', 53.55, 9.99`).execute(db);
    await asset('plain.jpg', 'ready', null, `NULL, NULL, NULL, NULL, NULL, '[]', NULL, NULL`).execute(db);
    await asset('draft.jpg', 'uploading', null, `5, NULL, 'X100V', NULL, 'draft caption', '["draft"]', NULL, NULL`).execute(db);
    await asset('trashed.jpg', 'ready', 100, `6, NULL, 'X100V', NULL, 'trashed caption', '["trashed"]', NULL, NULL`).execute(db);

    await migrateToLatest(handle);

    const [taken, facts, keywords] = (await embeddedSnapshot(handle)) as Record<string, unknown>[][];
    expect(taken!.map((d) => [Number(d.doc_id), Number(d.taken_at)])).toEqual([[5, 1_600_000_000]]);
    // The plain asset (doc 9) has no fact, hence no row.
    expect(facts!.map((f) => ({ ...f, doc_id: Number(f.doc_id) }))).toEqual([
      { doc_id: 5, workspace_id: 1, taken_year: 2020, camera_make: 'Canon', camera_make_folded: 'canon', camera_model: 'Canon EOS R5', camera_model_folded: 'canon eos r5', creator: 'Anna Berger', creator_folded: 'anna berger', gps_lat: 53.55, gps_lon: 9.99 },
    ]);
    expect(keywords!.map((k) => [Number(k.doc_id), k.keyword, k.keyword_folded])).toEqual([
      [5, 'Boats', 'boats'],
      [5, 'Harbour', 'harbour'],
      [5, 'boats', 'boats'],
    ]);

    const find = async (words: string[] | null) => {
      const plan = { kind: KIND.digital_assets, workspaceIds: [1], words, filter: null, required: [], sort: null };
      return (await searchDocuments(db, textSearchDialects[dialect], plan, 10, 0)).rows.map((r) => r.name);
    };
    for (const word of ['sunrise', 'anna', 'harbour', 'boats']) expect(await find([word]), word).toEqual(['harbour.jpg']);
    expect(await find(['draft'])).toEqual([]);
    expect(await find(['trashed'])).toEqual([]);
    expect(await find(null)).toEqual(['plain.jpg', 'harbour.jpg']);

    // The migrated index is what a fresh backfill makes.
    const migrated = [await indexSnapshot(handle), await embeddedSnapshot(handle)];
    await dropSearchSchema(handle);
    await createSearchSchema[dialect](db);
    expect([await indexSnapshot(handle), await embeddedSnapshot(handle)]).toEqual(migrated);
  });
});
