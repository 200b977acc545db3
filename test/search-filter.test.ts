import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';
import { expectError } from './helpers/catalog-factories.js';
import { dialects } from './helpers/databases.js';
import { registerUser, type Account } from './helpers/factories.js';
import { labels, searchAssets, searchRequest, seedCorpus, type Corpus } from './helpers/search-fixtures.js';

/**
 * The filter grammar of seed 4.1 on both dialects: every operator on every
 * field with known answers, combinations, malformed expressions (400 with a
 * position, never 500) and injection attempts. Expected hits are listed
 * newest first (modified_at desc, ties by id desc), the order of q=* without sort_by.
 */
describe.each(dialects)('search filters on %s', (dialect) => {
  let t: TestApp;
  let owner: Account;
  let corpus: Corpus;

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    owner = await registerUser(t);
    corpus = await seedCorpus(t, owner, owner.workspaceId);
  });
  afterAll(() => t.close());

  const hits = async (filter: string) => labels(corpus, await searchAssets(t, owner, '*', filter));

  const NEWEST_FIRST = ['quote', 'podcast', 'party', 'sunset', 'img2042', 'cafe', 'dsc', 'report', 'beachball', 'zip'];
  const except = (...out: string[]) => NEWEST_FIRST.filter((l) => !out.includes(l));

  it.each([
    // strings: :=, :!=, : (contains), lists; case-insensitive for ASCII
    ['file_type:=image', ['quote', 'sunset', 'img2042', 'cafe', 'dsc', 'beachball']],
    ['file_type:=IMAGE', ['quote', 'sunset', 'img2042', 'cafe', 'dsc', 'beachball']],
    ['file_type:!=image', ['podcast', 'party', 'report', 'zip']],
    ['file_type:=[video, audio]', ['podcast', 'party']],
    ['file_type:!=[image,video]', ['podcast', 'report', 'zip']],
    ['file_type:ide', ['party']],
    ['file_type:=`document`', ['report']],
    ['orientation:=landscape', ['quote', 'party', 'sunset', 'cafe']],
    ['orientation:!=landscape', except('quote', 'party', 'sunset', 'cafe')],
    ['orientation:=[portrait, square]', ['img2042', 'dsc', 'beachball']],
    ['orientation:scape', ['quote', 'party', 'sunset', 'cafe']],
    // numbers: every comparison, lists, ranges; ':' is equality
    ['visibility:=0', ['quote', 'sunset', 'dsc', 'report', 'beachball', 'zip']],
    ['visibility:!=0', ['podcast', 'party', 'img2042', 'cafe']],
    ['visibility:>1', ['party', 'cafe']],
    ['visibility:>=1', ['podcast', 'party', 'img2042', 'cafe']],
    ['visibility:<1', ['quote', 'sunset', 'dsc', 'report', 'beachball', 'zip']],
    ['visibility:<=2', except('cafe')],
    ['visibility:2', ['party']],
    ['visibility:[1..2]', ['podcast', 'party', 'img2042']],
    ['visibility:=[0, 3]', except('podcast', 'party', 'img2042')],
    ['visibility:=[1, 3..5]', ['podcast', 'img2042', 'cafe']],
    ['visibility:!=[0..1]', ['party', 'cafe']],
    ['visibility:=99999999999', []],
    ['visibility:<99999999999', NEWEST_FIRST],
    ['modified_at:>=5000', ['quote', 'podcast', 'party', 'sunset']],
    ['modified_at:<2000', ['beachball', 'zip']],
    ['modified_at:[2000..4000]', ['img2042', 'cafe', 'dsc', 'report']],
    ['modified_at:>-5', NEWEST_FIRST],
    ['created_at:>1700', ['cafe', 'beachball']],
    ['created_at:<=1000', ['sunset']],
    ['created_at:!=1000', except('sunset')],
    // tags: an array; := has any of the values, :!= has none, : a tag contains the text
    ['tags:=[beach]', ['sunset', 'img2042']],
    ['tags:=beach', ['sunset', 'img2042']],
    ['tags:=[Beach]', ['sunset', 'img2042']],
    ['tags:=[beach, party]', ['party', 'sunset', 'img2042']],
    ['tags:!=[beach]', except('sunset', 'img2042')],
    ['tags:!=[beach, red]', except('sunset', 'img2042', 'dsc')],
    ['tags:=[beach] && tags:=[summer]', ['sunset']],
    ['tags:red', ['dsc', 'zip']],
    ['tags:=[`red car`]', ['zip']],
    ['tags:=`red car`', ['zip']],
    ["tags:=[`it's`]", ['quote']],
    ['tags:=[`50%_off\\`]', ['quote']],
    ['tags:%', ['quote']],
    ['tags:_', ['quote']],
    ['tags:\\', ['quote']],
    ['tags:=[%]', []],
    ['tags:Été', ['cafe']],
    // combinations, parentheses, the seed's always-parenthesised style
    ['(file_type:=image) && (visibility:=0)', ['quote', 'sunset', 'dsc', 'beachball']],
    ['file_type:=video || file_type:=audio', ['podcast', 'party']],
    ['file_type:=image && visibility:=0 && orientation:=square', ['dsc', 'beachball']],
    ['(tags:=[beach] || tags:=[red]) && orientation:=landscape', ['sunset']],
    ['tags:=[beach] || (tags:=[red] && orientation:=square)', ['sunset', 'img2042', 'dsc']],
    ['((visibility:=0))', ['quote', 'sunset', 'dsc', 'report', 'beachball', 'zip']],
    ['(tags:=[beach]) && (file_type:=image) && (modified_at:>=4500)', ['sunset']],
    ['(visibility:=0) || (visibility:!=0)', NEWEST_FIRST],
    ['  file_type : = image  ', null],
    ['', NEWEST_FIRST],
  ] as [string, string[] | null][])('%s', async (filter, expected) => {
    if (expected === null) {
      expectError(await searchRequest(t, owner, { request: { collections: ['digital_assets'] }, filterQuery: { digital_assets: filter } }), 400, 'VALIDATION_ERROR');
      return;
    }
    expect(await hits(filter)).toEqual(expected);
  });

  it('filters on id and folder_id', async () => {
    expect(await hits(`id:=${corpus.asset.dsc}`)).toEqual(['dsc']);
    expect(await hits(`id:=[${corpus.asset.dsc}, ${corpus.asset.zip}]`)).toEqual(['dsc', 'zip']);
    expect(await hits(`folder_id:=${corpus.folder.trips}`)).toEqual(['sunset']);
    expect(await hits(`folder_id:!=${corpus.folder.trips}`)).toEqual(except('sunset'));
  });

  it('filters on collection_id: membership, any of, none of; folders belong to none; never across workspaces', async () => {
    const { best, client } = corpus.collection;
    const add = (id: number, labels: string[]) =>
      t.request({ method: 'POST', url: `/dam/collections/${id}/assets`, token: owner.token, payload: { asset_ids: labels.map((l) => corpus.asset[l]) } });
    expect((await add(best, ['sunset', 'party'])).statusCode).toBe(200);
    expect((await add(client, ['party'])).statusCode).toBe(200);
    expect(await hits(`collection_id:=${best}`)).toEqual(['party', 'sunset']);
    expect(await hits(`collection_id:=${client}`)).toEqual(['party']);
    expect(await hits(`collection_id:=[${best}, ${client}]`)).toEqual(['party', 'sunset']);
    expect(await hits(`collection_id:!=${best}`)).toEqual(except('party', 'sunset'));
    expect(await hits(`collection_id:=${best} && file_type:=image`)).toEqual(['sunset']);
    expect(await hits(`collection_id:=99999999999`)).toEqual([]);
    const folders = await searchRequest(t, owner, { request: { collections: ['digital_assets_categories'] }, filterQuery: { digital_assets_categories: `collection_id:=${best}` } });
    expect(folders.json<{ results: { found: number }[] }>().results[0]!.found).toBe(0);
    for (const bad of [`collection_id:>${best}`, `collection_id:=[1..3]`, 'collection_id:=best', `collection_id:${best}`]) {
      expectError(await searchRequest(t, owner, { request: { collections: ['digital_assets'] }, filterQuery: { digital_assets: bad } }), 400, 'VALIDATION_ERROR');
    }
    const stranger = await registerUser(t);
    expect((await searchAssets(t, stranger, '*', `collection_id:=${best}`)).found).toBe(0);
  });

  it('treats values as data: quotes, semicolons and SQL in values match nothing and change nothing', async () => {
    for (const filter of ["file_type:=`image' OR '1'='1`", 'tags:=[`x); DROP TABLE assets; --`]', "tags:`' OR 1=1 --`", 'file_type:=`%`']) {
      expect(await hits(filter)).toEqual([]);
    }
    // The catalog and the index are intact.
    expect(await hits('visibility:>=0')).toEqual(NEWEST_FIRST);
  });

  describe('malformed expressions answer 400 naming the position', () => {
    it.each([
      ['colour:=red', 0, 'unknown field "colour"'],
      ['file_type', 9, 'expected an operator'],
      ['file_type:=', 11, 'expected a value'],
      ['file_type:=image &&', 19, 'expected a condition'],
      ['(file_type:=image', 17, "expected ')'"],
      ['file_type:=image)', 16, "unexpected a ')'"],
      ['file_type:>image', 9, ':> compares numbers'],
      ['visibility:=abc', 12, 'needs an integer'],
      ['visibility:=1.5', 12, 'needs an integer'],
      ['visibility:=[1..]', 16, "after '..'"],
      ['modified_at:[5..1]', 13, 'empty'],
      ['tags:=[a..b]', 7, 'numeric field'],
      ['tags:=[]', 7, 'expected a value in the list'],
      ['file_type:=`image', 11, 'unterminated'],
      ['file_type:=image || visibility:=0 && orientation:=square', 34, 'cannot be mixed'],
      ['visibility:>[1, 2]', 10, 'one value'],
      ['file_type:=image file_type:=video', 17, 'expected &&'],
      ["file_type:=image' OR 1=1 --", 18, 'expected &&'],
      ['&& file_type:=image', 0, 'expected a condition'],
      ['workspace_id:=1', 0, 'unknown field'],
    ])('%s', async (filter, position, message) => {
      const res = await searchRequest(t, owner, { request: { collections: ['digital_assets'] }, filterQuery: { digital_assets: filter } });
      expectError(res, 400, 'VALIDATION_ERROR', 'filterQuery.digital_assets');
      const body = res.json<{ error: string; position: number }>();
      expect(body.position).toBe(position);
      expect(body.error).toContain(message);
    });

    it('allows at most 100 operators and bounded nesting', async () => {
      const ok = Array.from({ length: 50 }, () => 'visibility:=0').join(' || ');
      expect(await hits(ok)).toHaveLength(6);
      const tooMany = Array.from({ length: 51 }, () => 'visibility:=0').join(' || ');
      const res = await searchRequest(t, owner, { request: { collections: ['digital_assets'] }, filterQuery: { digital_assets: tooMany } });
      expectError(res, 400, 'VALIDATION_ERROR', 'filterQuery.digital_assets');
      expect(res.json<{ error: string }>().error).toContain('more than 100 operators');
      const bigList = `id:=[${Array.from({ length: 101 }, (_, i) => i + 1).join(',')}]`;
      expectError(await searchRequest(t, owner, { request: {}, filterQuery: { digital_assets: bigList } }), 400, 'VALIDATION_ERROR');
      const deep = `${'('.repeat(40)}visibility:=0${')'.repeat(40)}`;
      expectError(await searchRequest(t, owner, { request: {}, filterQuery: { digital_assets: deep } }), 400, 'VALIDATION_ERROR');
    });

    it('checks the filter of a collection that was not requested, and names the helper field filter_by', async () => {
      const res = await searchRequest(t, owner, { request: { collections: ['digital_assets'] }, filterQuery: { dam_collections: 'nope:=1' } });
      expectError(res, 400, 'VALIDATION_ERROR', 'filterQuery.dam_collections');
      const helper = await t.request({ method: 'POST', url: '/search-engine/search-assets', token: owner.token, payload: { filter_by: 'tags:=[' } });
      expectError(helper, 400, 'VALIDATION_ERROR', 'filter_by');
    });
  });
});
