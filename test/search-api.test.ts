import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';
import { expectError, makeAsset } from './helpers/catalog-factories.js';
import { dialects } from './helpers/databases.js';
import { registerUser, type Account } from './helpers/factories.js';
import { labels, search, searchAssets, searchRequest, seedCorpus, type Corpus, type SearchResultJson } from './helpers/search-fixtures.js';

/** POST /search-engine/search and the helper endpoints (seed 2.1, 2.2, 4.1, 4.2): shapes, defaults, paging, sorting. */
describe.each(dialects)('search API on %s', (dialect) => {
  let t: TestApp;
  let owner: Account;
  let corpus: Corpus;

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    owner = await registerUser(t);
    corpus = await seedCorpus(t, owner, owner.workspaceId);
  });
  afterAll(() => t.close());

  it('accepts a body with only request: q defaults to *, all three collections in seed order, page 1 of 10', async () => {
    const res = await searchRequest(t, owner, { request: {} });
    expect(res.statusCode).toBe(200);
    const { results } = res.json<{ results: SearchResultJson[] }>();
    expect(results.map((r) => [r.collection, r.found, r.page, r.request_params])).toEqual([
      ['digital_assets', 10, 1, { q: '*', collection: 'digital_assets', per_page: 10 }],
      ['digital_assets_categories', 2, 1, { q: '*', collection: 'digital_assets_categories', per_page: 10 }],
      ['dam_collections', 2, 1, { q: '*', collection: 'dam_collections', per_page: 10 }],
    ]);
    const sunset = results[0]!.hits.find((h) => h.document.id === String(corpus.asset.sunset))!.document;
    expect(sunset).toEqual({
      id: String(corpus.asset.sunset),
      workspace_id: owner.workspaceId,
      display_file_name: 'Sunset at the beach',
      file_type: 'image',
      modified_at: 5000,
      created_at: 1000,
      tags: ['beach', 'sunset', 'summer'],
      visibility: 0,
      orientation: 'landscape',
      folder_id: corpus.folder.trips,
      file_name: 'IMG_2041.jpg',
      mime_type: 'image/jpeg',
      file_size: expect.any(Number) as number,
      width: 4000,
      height: 3000,
      // Embedded metadata (issue #12): the file has none.
      ...Object.fromEntries(
        ['taken_at', 'camera_make', 'camera_model', 'lens', 'iso', 'exposure', 'aperture', 'focal_length', 'gps_lat', 'gps_lon', 'duration', 'color_space', 'caption', 'creator', 'copyright', 'usage_terms'].map((f) => [f, null]),
      ),
      keywords: [],
      // Issue #27: the file could be read (or was never checked).
      unreadable: false,
      unreadable_reason: null,
      // Issue #19: the current file's SHA-256; the corpus's assets have no stored file to hash.
      sha256: null,
    });
    const folder = results[1]!.hits.find((h) => h.document.id === String(corpus.folder.invoices))!.document;
    expect(folder).toMatchObject({ display_file_name: 'Invoices 2021', file_type: 'folder', folder_id: corpus.folder.trips, orientation: null, visibility: 1, tags: ['finance'] });
    expect(folder).not.toHaveProperty('taken_at');
    expect(folder).not.toHaveProperty('keywords');
    const collection = results[2]!.hits.find((h) => h.document.id === String(corpus.collection.best))!.document;
    expect(collection).toMatchObject({ display_file_name: 'Best of summer', file_type: 'collection', description: 'sunny beach days', folder_id: null });
    expect(typeof collection.modified_at).toBe('number');
  });

  it('answers the collections in request order, each with its own filter', async () => {
    const results = await search(t, owner, {
      request: { q: '*', collections: ['dam_collections', 'digital_assets', 'digital_assets_categories'] },
      filterQuery: { digital_assets: 'file_type:=video', digital_assets_categories: 'visibility:!=0', dam_collections: 'tags:=[summer]' },
    });
    expect(results.map((r) => r.collection)).toEqual(['dam_collections', 'digital_assets', 'digital_assets_categories']);
    expect(results[0]!.hits.map((h) => h.document.display_file_name)).toEqual(['Best of summer']);
    expect(labels(corpus, results[1]!)).toEqual(['party']);
    expect(results[2]!.hits.map((h) => h.document.display_file_name)).toEqual(['Invoices 2021']);
  });

  it('pages: disjoint pages whose union is the whole result, true found past the end', async () => {
    const page = (n: number) => searchAssets(t, owner, '*', undefined, { commonSearchParams: { per_page: 3, page: n } });
    const pages = await Promise.all([1, 2, 3, 4, 5].map(page));
    expect(pages.map((p) => [p.page, p.found, p.hits.length, p.request_params.per_page])).toEqual([
      [1, 10, 3, 3],
      [2, 10, 3, 3],
      [3, 10, 3, 3],
      [4, 10, 1, 3],
      [5, 10, 0, 3],
    ]);
    const ids = pages.flatMap((p) => p.hits.map((h) => h.document.id));
    expect(new Set(ids).size).toBe(10);
    expect(labels(corpus, { ...pages[0]!, hits: pages.flatMap((p) => p.hits) })).toEqual([
      'quote', 'podcast', 'party', 'sunset', 'img2042', 'cafe', 'dsc', 'report', 'beachball', 'zip',
    ]);
  });

  it.each([undefined, 'created_at:asc'])('pages of a text query (sort_by %s) are disjoint, complete, and past the end keep found', async (sortBy) => {
    const request = (page: number, perPage: number) =>
      searchAssets(t, owner, 'jpg', undefined, { request: { q: 'jpg', collections: ['digital_assets'], sort_by: sortBy }, commonSearchParams: { per_page: perPage, page } });
    const whole = await request(1, 250);
    expect(whole.found).toBeGreaterThanOrEqual(3);
    const pages = await Promise.all([1, 2, 3, 4, 5, 6, 7].map((n) => request(n, 2)));
    expect(pages.flatMap((p) => p.hits.map((h) => h.document.id))).toEqual(whole.hits.map((h) => h.document.id));
    expect(pages.every((p) => p.found === whole.found)).toBe(true);
    const past = await request(50, 2);
    expect([past.found, past.hits]).toEqual([whole.found, []]);
  });

  it.each([
    ['modified_at:desc', ['quote', 'podcast', 'party', 'sunset', 'img2042', 'cafe', 'dsc', 'report', 'beachball', 'zip']],
    ['modified_at:asc', ['zip', 'beachball', 'report', 'dsc', 'cafe', 'img2042', 'sunset', 'party', 'podcast', 'quote']],
    ['created_at:desc', ['beachball', 'cafe', 'quote', 'zip', 'podcast', 'report', 'party', 'dsc', 'img2042', 'sunset']],
    ['created_at:asc', ['sunset', 'img2042', 'dsc', 'party', 'report', 'podcast', 'zip', 'quote', 'cafe', 'beachball']],
  ])('sorts by %s', async (sort_by, expected) => {
    expect(labels(corpus, await searchAssets(t, owner, '*', undefined, { request: { q: '*', collections: ['digital_assets'], sort_by } }))).toEqual(expected);
  });

  it('merges the workspaces of a caller in date order, page by page', async () => {
    const other = await registerUser(t);
    const created = await t.request({ method: 'POST', url: '/workspaces', token: other.token, payload: { name: 'Second' } });
    const second = created.json<{ data: { id: number } }>().data.id;
    // Same dates in both workspaces (ties broken by id), interleaved with the first's.
    const dates = [4000, 4000, 2500, 8000, 1];
    const mine = [];
    for (const d of dates) mine.push((await makeAsset(t.database.db, other.workspaceId, { file_name: `own-${d}.png`, created_at: d, modified_at: d })).id);
    for (const d of dates) mine.push((await makeAsset(t.database.db, second, { file_name: `second-${d}.png`, created_at: d, modified_at: 9000 - d })).id);
    const facts = new Map<number, number>();
    mine.forEach((id, i) => facts.set(id, i < 5 ? dates[i]! : 9000 - dates[i - 5]!));
    for (const direction of ['desc', 'asc'] as const) {
      const expected = [...facts].sort(([ia, a], [ib, b]) => (direction === 'desc' ? b - a || ib - ia : a - b || ia - ib)).map(([id]) => String(id));
      const pages = [];
      for (let page = 1; page <= 4; page += 1) {
        const [r] = await search(t, other, { request: { q: '*', collections: ['digital_assets'], sort_by: `modified_at:${direction}` }, commonSearchParams: { per_page: 3, page } });
        expect(r!.found).toBe(10);
        pages.push(...r!.hits.map((h) => h.document.id));
      }
      expect(pages).toEqual(expected);
    }
    const filtered = await search(t, other, { request: { q: '*', collections: ['digital_assets'] }, filterQuery: { digital_assets: 'modified_at:>=4000' } });
    expect(filtered[0]!.hits.map((h) => h.document.id)).toEqual([...facts].filter(([, m]) => m >= 4000).sort(([ia, a], [ib, b]) => b - a || ib - ia).map(([id]) => String(id)));
  });

  it('serves the helper endpoints in the {success, data} envelope', async () => {
    const body = { q: 'beach', filter_by: 'file_type:=image', sort_by: 'modified_at:desc', per_page: 5 };
    const assets = await t.request({ method: 'POST', url: '/search-engine/search-assets', token: owner.token, payload: body });
    expect(assets.statusCode).toBe(200);
    const data = assets.json<{ success: true; data: SearchResultJson }>();
    expect(data.success).toBe(true);
    expect(data.data.collection).toBe('digital_assets');
    expect(data.data.request_params).toEqual({ q: 'beach', collection: 'digital_assets', per_page: 5 });
    expect(labels(corpus, data.data)).toEqual(['sunset', 'img2042', 'beachball']);
    const folders = await t.request({ method: 'POST', url: '/search-engine/search-folders', token: owner.token, payload: { q: 'trips' } });
    expect(folders.json<{ data: SearchResultJson }>().data.hits.map((h) => h.document.display_file_name)).toEqual(['Beach trips']);
    const collages = await t.request({ method: 'POST', url: '/search-engine/search-collages', token: owner.token, payload: {} });
    expect(collages.json<{ data: SearchResultJson }>().data).toMatchObject({ collection: 'dam_collections', found: 2, page: 1 });
  });

  it('suggests up to 10 completions from tags, then names, case-insensitively', async () => {
    const suggest = async (q: string) => {
      const res = await t.request({ method: 'GET', url: `/search-engine/suggestions?q=${encodeURIComponent(q)}&workspaceId=${owner.workspaceId}`, token: owner.token });
      expect(res.statusCode).toBe(200);
      return res.json<{ success: true; data: string[] }>().data;
    };
    expect(await suggest('bea')).toEqual(['beach', 'Beach trips', 'beach-party-2021.mp4', 'beachball.png']);
    expect(await suggest('BEA')).toEqual(['beach', 'Beach trips', 'beach-party-2021.mp4', 'beachball.png']);
    expect(await suggest('su')).toEqual(['summer', 'sunset', 'Sunset at the beach']);
    expect(await suggest('%')).toEqual([]);
    for (let i = 0; i < 12; i += 1) await makeAsset(t.database.db, owner.workspaceId, { file_name: `zz-${String(i).padStart(2, '0')}.png`, created_at: 1 });
    expect(await suggest('zz')).toHaveLength(10);
    expectError(await t.request({ method: 'GET', url: '/search-engine/suggestions?q=', token: owner.token }), 400, 'VALIDATION_ERROR', 'q');
  });

  it.each([
    [{ request: { collections: ['nope'] } }, 'request.collections.0'],
    [{ request: { collections: ['digital_assets', 'digital_assets'] } }, 'request.collections'],
    [{ request: { collections: [] } }, 'request.collections'],
    [{ request: { sort_by: 'name:asc' } }, 'request.sort_by'],
    [{ request: {}, commonSearchParams: { per_page: 251 } }, 'commonSearchParams.per_page'],
    [{ request: {}, commonSearchParams: { per_page: 0 } }, 'commonSearchParams.per_page'],
    [{ request: {}, commonSearchParams: { page: 0 } }, 'commonSearchParams.page'],
    [{ request: {}, commonSearchParams: { query_by: 'name' } }, 'commonSearchParams.query_by'],
    [{ request: {}, workspace_id_filter: 'abc' }, 'workspace_id_filter'],
    [{ request: {}, filterQuery: { folders: 'x:=1' } }, 'filterQuery.folders'],
    [{ request: {}, instance_id: '1' }, 'instance_id'],
  ])('rejects %j naming %s', async (payload, field) => {
    expectError(await searchRequest(t, owner, payload), 400, 'VALIDATION_ERROR', field);
  });

  it('requires request and a bearer token', async () => {
    expectError(await searchRequest(t, owner, { commonSearchParams: {} }), 400, 'MISSING_PARAMETER', 'request');
    expectError(await t.request({ method: 'POST', url: '/search-engine/search', payload: { request: {} } }), 401, 'UNAUTHORIZED');
    expectError(await t.request({ method: 'GET', url: '/search-engine/suggestions?q=a' }), 401, 'UNAUTHORIZED');
  });

  it('allows per_page 250 and a numeric workspace_id_filter', async () => {
    const res = await searchRequest(t, owner, { request: { collections: ['digital_assets'] }, commonSearchParams: { per_page: 250 }, workspace_id_filter: owner.workspaceId });
    expect(res.statusCode).toBe(200);
    expect(res.json<{ results: SearchResultJson[] }>().results[0]!.request_params.per_page).toBe(250);
  });
});
