import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';
import { expectError, makeAsset, makeFolder, makeTeam, type Team } from './helpers/catalog-factories.js';
import { dialects } from './helpers/databases.js';
import type { Account, Envelope } from './helpers/factories.js';
import { searchAssets } from './helpers/search-fixtures.js';

interface Result {
  id: number;
  ok: boolean;
  code?: string;
  error?: string;
}
interface Answer {
  results: Result[];
  matched?: number;
  succeeded?: number;
}

/** The cap of this suite (DAM_BULK_SEARCH_MAX): above the 250 assets of the big case, below everything of the workspace. */
const MAX = 300;

/** POST /dam/assets/bulk with `search` (issue #27): one action on every asset a search finds, less except_ids. */
describe.each(dialects)('search-based bulk actions on %s', (dialect) => {
  let t: TestApp;
  let team: Team;
  let ws: number;
  let n = 0;

  beforeAll(async () => {
    t = await startTestApp({ dialect, config: { bulkSearchMax: MAX } });
    team = await makeTeam(t);
    ws = team.ws;
  });
  afterAll(() => t.close());

  const bulk = (body: object, who: Account = team.manager, workspaceId = ws) =>
    t.request({ method: 'POST', url: '/dam/assets/bulk', token: who.token, payload: { workspaceId, ...body } });
  const answer = async (body: object, who?: Account): Promise<Answer> => {
    const res = await bulk(body, who);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<Envelope<Answer>>().data;
  };
  /** `count` assets of `workspaceId` named after a word no other test uses. */
  async function many(word: string, count: number, workspaceId = ws, overrides: Parameters<typeof makeAsset>[2] = {}): Promise<number[]> {
    const ids: number[] = [];
    for (let i = 0; i < count; i += 1) ids.push((await makeAsset(t.database.db, workspaceId, { file_name: `${word}-${(n += 1)}.jpg`, ...overrides })).id);
    return ids;
  }
  const found = async (q: string, filter: string, who: Account = team.owner) => (await searchAssets(t, who, q, filter)).found;

  it('tags all 250 assets a search finds, in chunks, answering counts; assets outside the search or workspace are untouched', async () => {
    const koalas = await many('koala', 250);
    const other = await many('wombat', 3);
    const foreign = await many('koala', 2, team.otherWs);
    const data = await answer({ action: 'tag', tags: ['marsupial'], search: { q: 'koala', query_by: 'search_name' } });
    expect(data).toEqual({ results: [], matched: 250, succeeded: 250 });
    expect(await found('koala', 'tags:=[marsupial]')).toBe(250);
    expect(await found('*', `tags:=[marsupial] && id:=[${other.join(', ')}]`)).toBe(0);
    expect(await found('koala', 'tags:=[marsupial]', team.outsider)).toBe(0);
    expect(await found('koala', '', team.outsider)).toBe(foreign.length);
    // A filter alone selects too: the same assets, by the tag just given.
    const untagged = await answer({ action: 'untag', tags: ['marsupial'], search: { filter_by: 'tags:=[marsupial]' } });
    expect(untagged).toEqual({ results: [], matched: koalas.length, succeeded: koalas.length });
    expect(await found('*', 'tags:=[marsupial]')).toBe(0);
  });

  it('leaves except_ids alone', async () => {
    const ids = await many('quokka', 5);
    const kept = [ids[1]!, ids[3]!];
    const data = await answer({ action: 'set_visibility', visibility: 1, search: { q: 'quokka' }, except_ids: [...kept, 987_654_321] });
    expect(data).toEqual({ results: [], matched: 3, succeeded: 3 });
    expect(await found('quokka', 'visibility:=1')).toBe(3);
    expect(await found('quokka', `visibility:=0 && id:=[${kept.join(', ')}]`)).toBe(2);
  });

  it('acts on what the library shows for a mistyped word: the typo matches of the search', async () => {
    await many('dugong', 2);
    expect(await found('dugnog', '')).toBe(2);
    expect(await answer({ action: 'tag', tags: ['sirenian'], search: { q: 'dugnog' } })).toEqual({ results: [], matched: 2, succeeded: 2 });
    expect(await found('dugong', 'tags:=[sirenian]')).toBe(2);
  });

  it('lists only the assets the action could not be done to', async () => {
    const [full] = await many('bilby', 1, ws, { tags: Array.from({ length: 100 }, (_, i) => `t${i}`) });
    await many('bilby', 2);
    const data = await answer({ action: 'tag', tags: ['nocturnal'], search: { q: 'bilby' } });
    expect(data.matched).toBe(3);
    expect(data.succeeded).toBe(2);
    expect(data.results).toEqual([{ id: full, ok: false, code: 'VALIDATION_ERROR', error: `tags: asset ${full} would have more than 100 tags` }]);
  });

  it('moves and deletes by a search', async () => {
    const ids = await many('numbat', 4);
    const folder = await makeFolder(t, team.owner, ws);
    expect(await answer({ action: 'move', folder_id: folder.id, search: { q: 'numbat' } })).toMatchObject({ matched: 4, succeeded: 4 });
    expect(await found('*', `folder_id:=${folder.id}`)).toBe(4);
    expect(await answer({ action: 'delete', search: { filter_by: `folder_id:=${folder.id}` }, except_ids: [ids[0]!] })).toMatchObject({ matched: 3, succeeded: 3 });
    expect(await found('numbat', '')).toBe(1);
  });

  it('refuses a search over the cap with 422 naming it, and changes nothing', async () => {
    await many('dingo', 60);
    const total = await found('*', '');
    expect(total).toBeGreaterThan(MAX);
    const res = await bulk({ action: 'tag', tags: ['too-many'], search: { q: '*' } });
    expectError(res, 422, 'BULK_TOO_MANY_MATCHES', 'search');
    expect(res.json<{ error: string }>().error).toContain(`${total} assets`);
    expect(res.json<{ error: string }>().error).toContain(`at most ${MAX}`);
    expect(await found('*', 'tags:=[too-many]')).toBe(0);
    // except_ids count: enough of them bring the same search under the cap.
    const all = (await searchAssets(t, team.owner, '*', '', { commonSearchParams: { per_page: 250 } })).hits.map((h) => Number(h.document.id));
    const over = total - MAX;
    const near = await bulk({ action: 'tag', tags: ['too-many'], search: { q: '*' }, except_ids: all.slice(0, over - 1) });
    expectError(near, 422, 'BULK_TOO_MANY_MATCHES', 'search');
    expect(near.json<{ error: string }>().error).toContain(`${total} assets (at least ${MAX + 1} besides except_ids)`);
    const under = await answer({ action: 'tag', tags: ['too-many'], search: { q: '*' }, except_ids: all.slice(0, over) });
    // (The bilby with 100 tags is among them and fails alone.)
    expect(under).toMatchObject({ matched: MAX, succeeded: MAX - 1 });
  });

  it('never reaches another workspace, and is for managers only: a viewer cannot touch the private assets they do not see', async () => {
    const [hidden] = await many('platypus', 1, ws, { visibility: 1, uploaded_by: team.owner.user.id });
    const [foreign] = await many('platypus', 1, team.otherWs);
    // The other workspace by id: not a member, 404; by words: only this workspace's assets are found.
    expectError(await bulk({ action: 'tag', tags: ['x'], search: { q: 'platypus' } }, team.manager, team.otherWs), 404, 'NOT_FOUND');
    expectError(await bulk({ action: 'delete', search: { q: 'platypus' } }, team.viewer), 403, 'FORBIDDEN');
    expect(await found('platypus', '', team.viewer)).toBe(0);
    expect(await answer({ action: 'tag', tags: ['egg'], search: { q: 'platypus' } })).toEqual({ results: [], matched: 1, succeeded: 1 });
    expect(await found('platypus', `tags:=[egg] && id:=${hidden}`)).toBe(1);
    expect(await found('platypus', 'tags:=[egg]', team.outsider)).toBe(0);
    expect(await found('platypus', `id:=${foreign}`, team.outsider)).toBe(1);
  });

  it.each([
    [{ asset_ids: [1], search: { q: 'x' } }, 'asset_ids'],
    [{}, 'asset_ids'],
    [{ asset_ids: [1], except_ids: [2] }, 'except_ids'],
    [{ search: { filter_by: 'tags:=' } }, 'search.filter_by'],
  ])('refuses an ill-formed selection %j with 400 naming %s', async (selection, field) => {
    await many('kiwi', 1);
    expectError(await bulk({ action: 'tag', tags: ['ill'], ...selection }), 400, 'VALIDATION_ERROR', field);
    expect(await found('*', 'tags:=[ill]')).toBe(0);
  });

  it('refuses unknown members of search with 400', async () => {
    const res = await bulk({ action: 'delete', search: { q: 'x', sort_by: 'created_at:desc' } });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json<{ code: string }>().code).toBe('VALIDATION_ERROR');
  });
});
