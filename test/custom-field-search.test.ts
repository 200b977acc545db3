import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';
import { dialects } from './helpers/databases.js';
import { addMember, registerUser, type Account, type Envelope } from './helpers/factories.js';
import { serverUpload, text } from './helpers/versions.js';

/**
 * Filters on custom fields (issue #30): `fields.<key>` in filter_by, through the search endpoints, for every type:
 * equality and :!=, ranges and comparisons on numbers and dates, options with their descendants in a tree vocabulary,
 * text contains; folders and collections; bad values are 400 naming the request field; another workspace's fields
 * and values never count; the bulk actions' search selects the same assets.
 */

interface Hit {
  document: { display_file_name?: string; name?: string };
}
interface Result {
  hits: Hit[];
  found: number;
}

describe.each(dialects)('custom field filters on %s', (dialect) => {
  let t: TestApp;
  let owner: Account;
  let viewer: Account;
  let other: Account;
  let ws: number;
  const ids: Record<string, number> = {};

  const call = (method: 'POST' | 'PATCH', url: string, who: Account, payload: object) => t.request({ method, url, token: who.token, payload });
  async function data<T>(method: 'POST' | 'PATCH', url: string, who: Account, payload: object, status = method === 'POST' ? 201 : 200): Promise<T> {
    const res = await call(method, url, who, payload);
    expect(res.statusCode, res.body).toBe(status);
    return res.json<Envelope<T>>().data;
  }
  async function find(filter: string, who = viewer, workspace: number = ws, path = '/search-engine/search-assets'): Promise<string[]> {
    const res = await call('POST', path, who, { q: '*', per_page: 50, workspace_id_filter: workspace, filter_by: filter, sort_by: 'display_file_name:asc' });
    expect(res.statusCode, `${filter}: ${res.body}`).toBe(200);
    const r = res.json<Envelope<Result>>().data;
    return r.hits.map((h) => h.document.display_file_name ?? h.document.name ?? '');
  }
  async function refused(filter: string, pattern: RegExp) {
    const res = await call('POST', '/search-engine/search-assets', viewer, { q: '*', workspace_id_filter: ws, filter_by: filter });
    expect(res.statusCode, `${filter}: ${res.body}`).toBe(400);
    const body = res.json<{ field: string; error: string }>();
    expect(body.field).toBe('filter_by');
    expect(body.error).toMatch(pattern);
  }

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    owner = await registerUser(t, { name: 'Olga Owner' });
    viewer = await registerUser(t, { name: 'Vic Viewer' });
    other = await registerUser(t, { name: 'Oscar Other' });
    ws = owner.workspaceId;
    await addMember(t, owner, ws, viewer, 'viewer');
    const field = (body: object) => data('POST', '/dam/fields', owner, { workspace_id: ws, ...body });
    await field({
      key: 'region',
      label: 'Region',
      type: 'select',
      options: [{ label: 'Europe' }, { label: 'France', parent: 'Europe' }, { label: 'Paris', parent: 'France' }, { label: 'Germany', parent: 'Europe' }, { label: 'Asia' }],
    });
    await field({ key: 'budget', label: 'Budget', type: 'number', decimals: 2 });
    await field({ key: 'shot_on', label: 'Shot on', type: 'date' });
    await field({ key: 'approved', label: 'Approved', type: 'boolean' });
    await field({ key: 'campaign', label: 'Campaign', type: 'text', applies_to: ['assets', 'folders'] });
    await field({ key: 'channels', label: 'Channels', type: 'multi_select', options: [{ label: 'Web' }, { label: 'Print' }] });
    await field({ key: 'photographer', label: 'Photographer', type: 'user' });
    const values: Record<string, object> = {
      'a-paris.txt': { region: 'Paris', budget: 100, shot_on: '2026-01-15', approved: true, campaign: 'Spring Launch', channels: ['Web'], photographer: viewer.user.id },
      'b-france.txt': { region: 'France', budget: 250.5, shot_on: '2026-03-01', approved: false, campaign: 'Summer', channels: ['Web', 'Print'] },
      'c-germany.txt': { region: 'Germany', budget: 999.99, shot_on: '2025-12-31', campaign: 'spring sale' },
      'd-asia.txt': { region: 'Asia', budget: 0, approved: true },
      'e-none.txt': {},
    };
    for (const [name, custom] of Object.entries(values)) {
      ids[name] = (await serverUpload(t, owner, text(name, name))).id;
      if (Object.keys(custom).length) await data('PATCH', `/dam/assets/${ids[name]}`, owner, { custom_fields: custom });
    }
    // Another workspace with the same key, another type and a value that would match: never counted here.
    await data('POST', '/dam/fields', other, { workspace_id: other.workspaceId, key: 'budget', label: 'Budget', type: 'text' });
    const theirs = (await serverUpload(t, other, text('theirs', 'z-theirs.txt'))).id;
    await data('PATCH', `/dam/assets/${theirs}`, other, { custom_fields: { budget: '100' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('matches options with everything below them in the tree, by label or id, and :!= the rest (no value included)', async () => {
    expect(await find('fields.region:=Europe')).toEqual(['a-paris.txt', 'b-france.txt', 'c-germany.txt']);
    expect(await find('fields.region:=France')).toEqual(['a-paris.txt', 'b-france.txt']);
    expect(await find('fields.region:=[Paris, asia]')).toEqual(['a-paris.txt', 'd-asia.txt']);
    expect(await find('fields.region:!=Europe')).toEqual(['d-asia.txt', 'e-none.txt']);
    expect(await find('fields.channels:=Print')).toEqual(['b-france.txt']);
    expect(await find('fields.channels:=[Web, Print]')).toEqual(['a-paris.txt', 'b-france.txt']);
  });

  it('compares numbers and dates with :=, ranges and :> :>= :< :<=', async () => {
    expect(await find('fields.budget:=100')).toEqual(['a-paris.txt']);
    expect(await find('fields.budget:>=250.5')).toEqual(['b-france.txt', 'c-germany.txt']);
    expect(await find('fields.budget:[0..100]')).toEqual(['a-paris.txt', 'd-asia.txt']);
    expect(await find('fields.budget:<100')).toEqual(['d-asia.txt']);
    expect(await find('fields.shot_on:>=2026-01-01')).toEqual(['a-paris.txt', 'b-france.txt']);
    expect(await find('fields.shot_on:=[2025-12-01..2026-01-31]')).toEqual(['a-paris.txt', 'c-germany.txt']);
    expect(await find('fields.approved:=true')).toEqual(['a-paris.txt', 'd-asia.txt']);
    expect(await find('fields.approved:false')).toEqual(['b-france.txt']);
    expect(await find(`fields.photographer:=${viewer.user.id}`)).toEqual(['a-paris.txt']);
  });

  it('matches text by equality (ASCII case folded) and by contains, and combines with the built-in fields', async () => {
    expect(await find('fields.campaign:=`spring launch`')).toEqual(['a-paris.txt']);
    expect(await find('fields.campaign:spring')).toEqual(['a-paris.txt', 'c-germany.txt']);
    expect(await find('fields.campaign:spring && fields.budget:>500')).toEqual(['c-germany.txt']);
    expect(await find('fields.region:=Asia || fields.campaign:=summer')).toEqual(['b-france.txt', 'd-asia.txt']);
    expect(await find(`fields.region:=Europe && id:!=${ids['a-paris.txt']}`)).toEqual(['b-france.txt', 'c-germany.txt']);
    // Several custom conditions of one AND are one lookup (custom-sql.ts): a driver, the others probed per document.
    expect(await find('fields.budget:[100..1000] && fields.region:=Europe')).toEqual(['a-paris.txt', 'b-france.txt', 'c-germany.txt']);
    expect(await find('fields.region:=Europe && (fields.budget:>200 && fields.campaign:spring)')).toEqual(['c-germany.txt']);
    expect(await find('fields.region:=Europe && fields.budget:>=100 && fields.campaign:!=summer')).toEqual(['a-paris.txt', 'c-germany.txt']);
    expect(await find('fields.region:=[France, Asia] && fields.approved:=true')).toEqual(['a-paris.txt', 'd-asia.txt']);
  });

  it('filters folders by their own values', async () => {
    const folder = await data<{ id: number }>('POST', '/dam/folders', owner, { workspace_id: ws, name: 'Launch material' });
    await data('PATCH', `/dam/folders/${folder.id}`, owner, { custom_fields: { campaign: 'Spring Launch' } });
    await data('POST', '/dam/folders', owner, { workspace_id: ws, name: 'Other folder' });
    expect(await find('fields.campaign:=`Spring Launch`', viewer, ws, '/search-engine/search-folders')).toEqual(['Launch material']);
  });

  it('counts facets of custom fields: options and users by id with their label or name, values as written', async () => {
    const res = await call('POST', '/search-engine/search-assets', viewer, {
      q: '*',
      workspace_id_filter: ws,
      facet_by: 'fields.region,fields.channels,fields.budget,fields.approved,fields.campaign,fields.photographer,fields.shot_on',
    });
    expect(res.statusCode, res.body).toBe(200);
    type Counts = { field_name: string; counts: { value: string; count: number; id?: number }[] }[];
    const facets = res.json<Envelope<{ facet_counts: Counts }>>().data.facet_counts;
    const of = (name: string) => facets.find((f) => f.field_name === name)!.counts.map((c) => [c.value, c.count, ...(c.id === undefined ? [] : ['id'])]);
    // Each item counts for the option it is set to (not its parents); ties by option id (the order they were made).
    expect(of('fields.region')).toEqual([['France', 1, 'id'], ['Paris', 1, 'id'], ['Germany', 1, 'id'], ['Asia', 1, 'id']]);
    expect(of('fields.channels')).toEqual([['Web', 2, 'id'], ['Print', 1, 'id']]);
    expect(of('fields.budget')).toEqual([['0', 1], ['100', 1], ['250.5', 1], ['999.99', 1]]);
    expect(of('fields.approved')).toEqual([['true', 2], ['false', 1]]);
    expect(of('fields.campaign')).toEqual([['Spring Launch', 1], ['Summer', 1], ['spring sale', 1]]);
    expect(of('fields.photographer')).toEqual([['Vic Viewer', 1, 'id']]);
    expect(of('fields.shot_on')).toEqual([['2025-12-31', 1], ['2026-01-15', 1], ['2026-03-01', 1]]);
    // With a filter and words: counted over what matches.
    const filtered = await call('POST', '/search-engine/search-assets', viewer, { q: 'txt', workspace_id_filter: ws, filter_by: 'fields.region:=Europe', facet_by: 'fields.channels' });
    expect(filtered.json<Envelope<{ facet_counts: Counts }>>().data.facet_counts[0]!.counts.map((c) => [c.value, c.count])).toEqual([['Web', 2], ['Print', 1]]);
    const unknown = await call('POST', '/search-engine/search-assets', viewer, { q: '*', workspace_id_filter: ws, facet_by: 'fields.colour' });
    expect(unknown.statusCode).toBe(400);
    const body = unknown.json<{ field: string; error: string }>();
    expect(body.field).toBe('facet_by');
    expect(body.error).toMatch(/unknown custom field "colour"/);
  });

  it('never reads another workspace: the same key there is its own field', async () => {
    expect(await find('fields.budget:=100', other, other.workspaceId)).toEqual(['z-theirs.txt']);
    // Across every workspace of a caller, a key typed differently is refused (one filter cannot mean both).
    await addMember(t, other, other.workspaceId, viewer, 'viewer');
    const res = await call('POST', '/search-engine/search-assets', viewer, { q: '*', filter_by: 'fields.budget:=100' });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json<{ error: string }>().error).toMatch(/fields\.budget is number in one searched workspace and text in another/);
  });

  it('answers 400 naming filter_by and the position for an unknown field, option or a value of the wrong type', async () => {
    await refused('fields.colour:=red', /unknown custom field "colour"/);
    await refused('fields.Bad_Key:=x', /not a custom field name/);
    await refused('fields.region:=Atlantis', /"Atlantis" is not an option of fields.region/);
    await refused('fields.budget:=lots', /fields.budget needs a number/);
    await refused('fields.shot_on:=2026-02-30', /fields.shot_on needs a date/);
    await refused('fields.approved:=maybe', /needs true or false/);
    await refused('fields.campaign:>x', /compares numbers and dates/);
    await refused('fields.region:=[a..b]', /a range \(a..b\) needs a number or date field/);
    await refused('fields.budget:[9..1]', /is empty/);
  });

  it('selects the same assets for a bulk action over a search', async () => {
    const res = await call('POST', '/dam/assets/bulk', owner, { workspaceId: ws, search: { q: '*', filter_by: 'fields.region:=Europe' }, action: 'tag', tags: ['emea'] });
    expect(res.statusCode, res.body).toBe(200);
    expect(await find('tags:=emea')).toEqual(['a-paris.txt', 'b-france.txt', 'c-germany.txt']);
  });
});
