import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DB } from '../src/db/database.js';
import { KIND } from '../src/search/collections.js';
import { facetDialects, listedFacets, toFacetCounts, type FacetPlan } from '../src/search/facets/index.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { expectError, makeAsset } from './helpers/catalog-factories.js';
import { dialects } from './helpers/databases.js';
import { registerUser, type Account, type Envelope } from './helpers/factories.js';
import { search, searchAssets, searchRequest, seedCorpus, type Corpus, type SearchResultJson } from './helpers/search-fixtures.js';

/**
 * Facet counts of a search (issue #12): Typesense's facet_counts over the whole filtered result,
 * top values by count then value, text grouped as filters compare it, embedded facts of assets,
 * folders and collections, isolation, the sampled estimate of large results, malformed requests.
 */

interface FacetJson {
  counts: { count: number; highlighted: string; value: string }[];
  field_name: string;
  sampled: boolean;
  stats: { total_values: number };
}
type Faceted = SearchResultJson & { facet_counts: FacetJson[] };

/** [value, count] pairs of one field. */
const pairs = (f: FacetJson | undefined) => f?.counts.map((c) => [c.value, c.count]);
const byField = (r: Faceted, name: string) => r.facet_counts.find((f) => f.field_name === name);

/** Embedded columns written directly (extraction is another feature); the index triggers re-index the asset. */
async function setFacts(db: DB, id: number, facts: { taken_at?: number | null; camera_model?: string | null; creator?: string | null }): Promise<void> {
  await db.updateTable('assets').set(facts).where('id', '=', id).execute();
}

describe.each(dialects)('search facets on %s', (dialect) => {
  let t: TestApp;
  let owner: Account;
  let corpus: Corpus;

  const facetSearch = async (facetBy: string, extra: { q?: string; filter?: string; max?: number; collections?: string[] } = {}) =>
    (await search(t, owner, {
      request: { q: extra.q ?? '*', collections: extra.collections ?? ['digital_assets'] },
      ...(extra.filter !== undefined && { filterQuery: { digital_assets: extra.filter } }),
      commonSearchParams: { facet_by: facetBy, per_page: 1, ...(extra.max !== undefined && { max_facet_values: extra.max }) },
    })) as Faceted[];

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    owner = await registerUser(t);
    corpus = await seedCorpus(t, owner, owner.workspaceId);
    const db = t.database.db;
    await setFacts(db, corpus.asset.sunset!, { taken_at: 1_600_000_000, camera_model: 'Canon EOS R5', creator: 'Anna Berger' });
    await setFacts(db, corpus.asset.img2042!, { taken_at: 1_600_086_400, camera_model: 'canon eos r5', creator: 'anna berger' });
    await setFacts(db, corpus.asset.dsc!, { taken_at: 1_262_304_000, camera_model: 'NIKON D750' });
    // 1966 (before 1970) and the last second of 2009: years are UTC calendar years.
    await setFacts(db, corpus.asset.party!, { taken_at: -100_000_000, creator: 'Ben Costa' });
    await setFacts(db, corpus.asset.cafe!, { taken_at: 1_262_303_999 });
    // Another workspace's assets never count.
    const stranger = await registerUser(t);
    for (let i = 0; i < 3; i += 1) {
      const a = await makeAsset(db, stranger.workspaceId, { file_name: `x${i}.mp4`, mime_type: 'video/mp4', tags: ['beach'], created_at: 10 });
      await setFacts(db, a.id, { taken_at: 1_600_000_000, camera_model: 'Canon EOS R5' });
    }
  });
  afterAll(() => t.close());

  it('answers facet_counts: [] on every result without facet_by', async () => {
    const results = (await search(t, owner, { request: { q: '*' } })) as Faceted[];
    expect(results.map((r) => r.facet_counts)).toEqual([[], [], []]);
  });

  it('counts over every page of the result, most frequent first, ties by value, in the order asked', async () => {
    const [assets] = await facetSearch('file_type, tags,orientation , visibility');
    expect(assets!.hits).toHaveLength(1);
    expect(assets!.facet_counts.map((f) => f.field_name)).toEqual(['file_type', 'tags', 'orientation', 'visibility']);
    expect(byField(assets!, 'file_type')).toEqual({
      counts: [
        { count: 6, highlighted: 'image', value: 'image' },
        ...['archive', 'audio', 'document', 'video'].map((v) => ({ count: 1, highlighted: v, value: v })),
      ],
      field_name: 'file_type',
      sampled: false,
      stats: { total_values: 5 },
    });
    // Ten of fourteen tags: the two in two assets, then by bytes ('5' < 'R' < 'b' ... < 'É'); "Red" is the only spelling of red.
    expect(pairs(byField(assets!, 'tags'))).toEqual([
      ['beach', 2], ['summer', 2], ['50%_off\\', 1], ['Red', 1], ['backup', 1], ['car', 1], ['finance', 1], ["it's", 1], ['party', 1], ['q3', 1],
    ]);
    expect(byField(assets!, 'tags')!.stats).toEqual({ total_values: 14 });
    // Assets without dimensions have no orientation and are not counted.
    expect(pairs(byField(assets!, 'orientation'))).toEqual([['landscape', 4], ['square', 2], ['portrait', 1]]);
    // Visibility: the stored integers, ordered by number on ties.
    expect(pairs(byField(assets!, 'visibility'))).toEqual([['0', 6], ['1', 2], ['2', 1], ['3', 1]]);
  });

  it('counts the filtered result of a text query, and max_facet_values cuts the values, not total_values', async () => {
    // beach finds sunset, img2042, party and beachball; visibility 0 keeps sunset and beachball.
    const [assets] = await facetSearch('tags,orientation', { q: 'beach', filter: 'visibility:=0' });
    expect(assets!.found).toBe(2);
    expect(pairs(byField(assets!, 'tags'))).toEqual([['beach', 1], ['summer', 1], ['sunset', 1], ['toys', 1]]);
    expect(pairs(byField(assets!, 'orientation'))).toEqual([['landscape', 1], ['square', 1]]);
    const [cut] = await facetSearch('tags', { max: 2 });
    expect(pairs(byField(cut!, 'tags'))).toEqual([['beach', 2], ['summer', 2]]);
    expect(byField(cut!, 'tags')!.stats.total_values).toBe(14);
    const [none] = await facetSearch('tags,file_type', { q: 'nothingmatchesthis' });
    expect(none!.facet_counts).toEqual([
      { counts: [], field_name: 'tags', sampled: false, stats: { total_values: 0 } },
      { counts: [], field_name: 'file_type', sampled: false, stats: { total_values: 0 } },
    ]);
  });

  it('groups text as filters compare it (ASCII case folded), shown in its first spelling by bytes, and counts years in UTC', async () => {
    for (const q of ['*', 'img']) {
      const [assets] = await facetSearch('camera_model,creator,taken_year', { q, filter: 'id:>0' });
      expect(assets!.found).toBe(q === '*' ? 10 : 2);
      if (q === 'img') {
        // IMG_2041.jpg (sunset) and IMG2042.JPG.
        expect(pairs(byField(assets!, 'camera_model'))).toEqual([['Canon EOS R5', 2]]);
        continue;
      }
      expect(pairs(byField(assets!, 'camera_model'))).toEqual([['Canon EOS R5', 2], ['NIKON D750', 1]]);
      expect(pairs(byField(assets!, 'creator'))).toEqual([['Anna Berger', 2], ['Ben Costa', 1]]);
      expect(pairs(byField(assets!, 'taken_year'))).toEqual([['2020', 2], ['1966', 1], ['2009', 1], ['2010', 1]]);
    }
    // The count is what the filter on that value finds.
    const [filtered] = await facetSearch('camera_model', { filter: 'camera_model:=`canon eos r5`' });
    expect(filtered!.found).toBe(2);
  });

  it('counts folders and collections too: their file_type, tags and visibility; they have no orientation, camera, creator or date taken', async () => {
    const [folders, collections] = await facetSearch('file_type,tags,visibility,orientation,camera_model,creator,taken_year', {
      collections: ['digital_assets_categories', 'dam_collections'],
    });
    expect(folders!.facet_counts.map((f) => [f.field_name, pairs(f)])).toEqual([
      ['file_type', [['folder', 2]]],
      ['tags', [['beach', 1], ['finance', 1]]],
      ['visibility', [['0', 1], ['1', 1]]],
      ...['orientation', 'camera_model', 'creator', 'taken_year'].map((f) => [f, []]),
    ]);
    expect(pairs(byField(collections!, 'file_type'))).toEqual([['collection', 2]]);
    expect(pairs(byField(collections!, 'tags'))).toEqual([['finance', 1], ['summer', 1]]);
  });

  it('counts a document once per folded tag, and takes facet_by on the helper endpoints', async () => {
    const other = await registerUser(t);
    const db = t.database.db;
    await makeAsset(db, other.workspaceId, { tags: ['Beach', 'beach'] });
    await makeAsset(db, other.workspaceId, { tags: ['beach'] });
    await makeAsset(db, other.workspaceId, { tags: ['BEACH', 'sea'] });
    const res = await t.request({ method: 'POST', url: '/search-engine/search-assets', token: other.token, payload: { facet_by: 'tags', max_facet_values: 1 } });
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json<Envelope<Faceted>>().data;
    expect(data.facet_counts).toEqual([{ counts: [{ count: 3, highlighted: 'BEACH', value: 'BEACH' }], field_name: 'tags', sampled: false, stats: { total_values: 2 } }]);
  });

  it('refuses unknown and empty facet names and out-of-range max_facet_values with a 400 naming the field', async () => {
    const common = (params: object) => searchRequest(t, owner, { request: { q: '*' }, commonSearchParams: params });
    expectError(await common({ facet_by: 'file_type,colour' }), 400, 'VALIDATION_ERROR', 'commonSearchParams.facet_by');
    expect((await common({ facet_by: 'file_type,colour' })).json<{ error: string }>().error).toContain('"colour"');
    expectError(await common({ facet_by: 'tags,,file_type' }), 400, 'VALIDATION_ERROR', 'commonSearchParams.facet_by');
    expectError(await common({ facet_by: 'Tags' }), 400, 'VALIDATION_ERROR', 'commonSearchParams.facet_by');
    const helper = await t.request({ method: 'POST', url: '/search-engine/search-folders', token: owner.token, payload: { facet_by: 'workspace_id' } });
    expectError(helper, 400, 'VALIDATION_ERROR', 'facet_by');
    for (const max of [0, 101, 1.5, '10']) {
      const res = await common({ facet_by: 'tags', max_facet_values: max });
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.json<{ error: string }>().error).toContain('max_facet_values');
    }
    expectError(await common({ facet_by: 'x'.repeat(257) }), 400, 'VALIDATION_ERROR');
    // Blank is no facets, a repeated name counts once.
    const [blank] = (await search(t, owner, { request: { q: '*', collections: ['digital_assets'] }, commonSearchParams: { facet_by: ' ' } })) as Faceted[];
    expect(blank!.facet_counts).toEqual([]);
    const [twice] = await facetSearch('tags,tags');
    expect(twice!.facet_counts.map((f) => f.field_name)).toEqual(['tags']);
  });
});

/**
 * Large results: counted over a sample and scaled (`sampled: true`). A small DAM_SEARCH_FACET_SAMPLE
 * makes a small corpus large; the expectations re-state the sampling (every k-th id among a text
 * query's matches; id windows, or every k-th id, for a listing) and the scaling in plain JS.
 */
describe.each(dialects)('sampled search facets on %s', (dialect) => {
  const SAMPLE = 5;
  let t: TestApp;
  let owner: Account;
  /** id -> file type of the ready assets, in id order. */
  const types = new Map<number, string>();

  beforeAll(async () => {
    t = await startTestApp({ dialect, config: { searchFacetSample: SAMPLE } });
    owner = await registerUser(t);
    const mimes = ['image/jpeg', 'image/png', 'video/mp4', 'application/pdf'];
    for (let i = 0; i < 40; i += 1) {
      const mime = mimes[(i * 7) % 5 % mimes.length]!;
      const a = await makeAsset(t.database.db, owner.workspaceId, { file_name: `${i % 3 === 0 ? 'sunset' : 'other'} ${i}.x`, mime_type: mime, created_at: 100 + i });
      types.set(a.id, a.file_type);
    }
  });
  afterAll(() => t.close());

  /** Expected counts of `ids` sampled to `kept`, scaled to ids.length and ranked. */
  function expected(ids: number[], kept: number[]) {
    const counts = new Map<string, number>();
    for (const id of kept) counts.set(types.get(id)!, (counts.get(types.get(id)!) ?? 0) + 1);
    return [...counts]
      .map(([v, n]) => [v, n] as [string, number])
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .map(([v, n]) => [v, Math.max(1, Math.round((n * ids.length) / kept.length))]);
  }

  it('estimates a text query with more matches than the sample from every k-th id among them', async () => {
    const result = (await searchAssets(t, owner, 'sunset', undefined, { commonSearchParams: { facet_by: 'file_type' } })) as Faceted;
    const ids = [...types.keys()].filter((_, i) => i % 3 === 0);
    expect(result.found).toBe(ids.length);
    const k = Math.ceil(ids.length / SAMPLE);
    const f = byField(result, 'file_type')!;
    expect(f.sampled).toBe(true);
    expect(pairs(f)).toEqual(expected(ids, ids.filter((id) => id % k === 0)));
  });

  it('marks a listing with more matches than the sample as sampled, and counts small results exactly', async () => {
    const all = (await searchAssets(t, owner, '*', undefined, { commonSearchParams: { facet_by: 'file_type' } })) as Faceted;
    expect(all.found).toBe(40);
    // One window of 64 ids covers every id here: the sample is the whole result, the flag says how it was counted.
    expect(byField(all, 'file_type')!.sampled).toBe(true);
    expect(pairs(byField(all, 'file_type'))).toEqual(expected([...types.keys()], [...types.keys()]));
    const few = (await searchAssets(t, owner, '*', 'file_type:=video && created_at:<120', { commonSearchParams: { facet_by: 'file_type' } })) as Faceted;
    expect(few.found).toBeLessThanOrEqual(SAMPLE);
    expect(byField(few, 'file_type')).toMatchObject({ sampled: false, counts: [{ value: 'video', count: few.found }] });
  });

  it('reads a listing sample from evenly spaced id windows, or every k-th id when windows would be too many', async () => {
    const db = t.database.db;
    const plan: FacetPlan = { fields: ['file_type'], limit: 10, sample: SAMPLE, dialect: facetDialects[dialect] };
    const scope = { kind: KIND.digital_assets, catalog: sql.raw('assets'), where: sql`d.kind = 1 AND d.workspace_id = ${owner.workspaceId}` };
    const ids = [...types.keys()];
    const maxId = Math.max(...ids);
    // Windows of 2 ids: ceil(5 * maxId / 40 / 2) of them, the i-th from floor(i * maxId / count) + 1.
    const count = Math.ceil((SAMPLE * maxId) / ids.length / 2);
    const inWindows = ids.filter((id) => Array.from({ length: count }, (_, i) => Math.floor((i * maxId) / count) + 1).some((first) => id >= first && id <= first + 1));
    const windowed = await listedFacets(db, plan, scope, ids.length, { ids: 2, max: count });
    expect(windowed.sampled).toBe(true);
    expect(pairs(toFacetCounts(['file_type'], windowed.rows, ids.length, true)[0])).toEqual(expected(ids, inWindows));
    // One window fewer allowed: every k-th id instead.
    const strided = await listedFacets(db, plan, scope, ids.length, { ids: 2, max: count - 1 });
    const k = Math.ceil(ids.length / SAMPLE);
    expect(pairs(toFacetCounts(['file_type'], strided.rows, ids.length, true)[0])).toEqual(expected(ids, ids.filter((id) => id % k === 0)));
  });
});
