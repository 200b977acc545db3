import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import type { DB } from '../src/db/database.js';
import { OSM_ATTRIBUTION, OSM_TILE_URL } from '../src/domain/map-tiles.js';
import { webClientCsp } from '../src/http/security-headers.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { expectError, makeAsset } from './helpers/catalog-factories.js';
import { dialects, tempDir } from './helpers/databases.js';
import { addMember, registerUser, type Account, type Envelope } from './helpers/factories.js';
import { searchAssets, type SearchDoc } from './helpers/search-fixtures.js';

/**
 * The library's map and timeline (issue #27, "Map and timeline"): GET /dam/assets/geo (positions of the assets a search
 * finds), GET /dam/assets/timeline (their counts per month taken, undated last, in the taken_at order of a search),
 * GET /dam/map (the configured tile layer) and the web client's CSP, which allows the tile origin's images only.
 */

interface GeoJson {
  points: [number, number, number][];
  truncated: boolean;
}
interface TimelineJson {
  months: { month: string; count: number }[];
  undated: number;
  truncated: boolean;
}

const utc = (iso: string) => Date.parse(`${iso}Z`) / 1000;

async function setEmbedded(db: DB, id: number, values: { taken_at?: number | null; gps?: [number, number] }): Promise<void> {
  const { gps, ...rest } = values;
  await db
    .updateTable('assets')
    .set({ ...rest, ...(gps && { gps_lat: gps[0], gps_lon: gps[1] }) })
    .where('id', '=', id)
    .execute();
}

describe.each(dialects)('map and timeline on %s', (dialect) => {
  let t: TestApp;
  let owner: Account;
  let viewer: Account;
  let outsider: Account;
  let ws: number;
  const id: Record<string, number> = {};

  /** name, taken (UTC), position, visibility, uploaded by the viewer */
  const ASSETS: [string, string | null, [number, number] | null, number, boolean][] = [
    ['hamburg', '2024-05-03T10:00:00', [53.55, 9.99], 0, false],
    ['alps', '2024-05-31T23:59:59', [46.5, 8], 0, false],
    ['sydney', '2024-06-01T00:00:00', [-33.86, 151.21], 0, false],
    ['secret', '2024-06-15T12:00:00', [48.85, 2.35], 1, false],
    ['own-secret', '2023-12-24T18:00:00', [40.71, -74], 1, true],
    ['old', '1999-01-01T00:00:00', null, 0, false],
    ['undated-a', null, [35.68, 139.69], 0, false],
    ['undated-b', null, null, 0, false],
    ['undated-secret', null, null, 1, false],
  ];

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    owner = await registerUser(t);
    viewer = await registerUser(t);
    outsider = await registerUser(t);
    ws = owner.workspaceId;
    await addMember(t, owner, ws, viewer, 'viewer');
    const db = t.database.db;
    for (const [name, taken, gps, visibility, byViewer] of ASSETS) {
      const asset = await makeAsset(db, ws, { file_name: `${name}.jpg`, visibility, uploaded_by: byViewer ? viewer.user.id : owner.user.id });
      await setEmbedded(db, asset.id, { taken_at: taken === null ? null : utc(taken), ...(gps && { gps }) });
      id[name] = asset.id;
    }
    // Never counted: another workspace's asset and an upload that has not completed.
    const other = await makeAsset(t.database.db, outsider.workspaceId, { file_name: 'other.jpg' });
    await setEmbedded(db, other.id, { taken_at: utc('2024-05-10T00:00:00'), gps: [53.55, 9.99] });
    const uploading = await makeAsset(db, ws, { file_name: 'draft.jpg', status: 'uploading' });
    await setEmbedded(db, uploading.id, { taken_at: utc('2024-05-10T00:00:00'), gps: [53.55, 9.99] });
  }, 60_000);
  afterAll(() => t.close());

  const get = async <T>(who: Account, url: string): Promise<T> => {
    const res = await t.request({ method: 'GET', url, token: who.token });
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
    return res.json<Envelope<T>>().data;
  };
  const names = (points: GeoJson['points']) => points.map(([assetId]) => Object.keys(id).find((k) => id[k] === assetId) ?? `?${assetId}`);
  const geo = (who: Account, query = '') => get<GeoJson>(who, `/dam/assets/geo?workspaceId=${ws}${query}`);
  const timeline = (who: Account, query = '') => get<TimelineJson>(who, `/dam/assets/timeline?workspaceId=${ws}${query}`);

  it('answers the position of every asset with one, newest first, with its id', async () => {
    const { points, truncated } = await geo(owner);
    expect(names(points)).toEqual(['undated-a', 'own-secret', 'secret', 'sydney', 'alps', 'hamburg']);
    expect(points.find(([assetId]) => assetId === id.sydney)).toEqual([id.sydney, -33.86, 151.21]);
    expect(truncated).toBe(false);
  });

  it('shows a viewer no private asset of someone else, but their own', async () => {
    expect(names((await geo(viewer)).points)).toEqual(['undated-a', 'own-secret', 'sydney', 'alps', 'hamburg']);
  });

  it('keeps to the caller\'s workspaces: none of another\'s, 404 for one they are not in', async () => {
    expect((await get<GeoJson>(outsider, '/dam/assets/geo')).points).toHaveLength(1);
    expectError(await t.request({ method: 'GET', url: `/dam/assets/geo?workspaceId=${ws}`, token: outsider.token }), 404, 'NOT_FOUND');
    expectError(await t.request({ method: 'GET', url: `/dam/assets/timeline?workspaceId=${ws}`, token: outsider.token }), 404, 'NOT_FOUND');
  });

  it('narrows to the search: filter_by (a gps box), q', async () => {
    expect(names((await geo(owner, `&filter_by=${encodeURIComponent('gps:[40, 0, 60, 20]')}`)).points)).toEqual(['secret', 'alps', 'hamburg']);
    expect(names((await geo(owner, '&q=sydney')).points)).toEqual(['sydney']);
  });

  it('answers at most `limit` points and says when there were more', async () => {
    const limited = await geo(owner, '&limit=2');
    expect(names(limited.points)).toEqual(['undated-a', 'own-secret']);
    expect(limited.truncated).toBe(true);
    expect((await geo(owner, '&limit=6')).truncated).toBe(false);
  });

  it('refuses malformed input with a 400 naming it', async () => {
    for (const [url, field] of [
      [`/dam/assets/geo?workspaceId=${ws}&limit=0`, 'limit'],
      [`/dam/assets/geo?workspaceId=${ws}&limit=50001`, 'limit'],
      [`/dam/assets/geo?workspaceId=${ws}&filter_by=${encodeURIComponent('colour:=red')}`, 'filter_by'],
      [`/dam/assets/timeline?workspaceId=${ws}&filter_by=${encodeURIComponent('gps:[1, 2')}`, 'filter_by'],
      ['/dam/assets/timeline?workspaceId=abc', 'workspaceId'],
    ] as const) {
      const res = await t.request({ method: 'GET', url, token: owner.token });
      expect(res.statusCode, url).toBe(400);
      expect(res.json<{ error: string }>().error, url).toContain(field);
    }
  });

  it('counts the assets of each month taken, newest first, and the undated', async () => {
    expect(await timeline(owner)).toEqual({
      months: [
        { month: '2024-06', count: 2 },
        { month: '2024-05', count: 2 },
        { month: '2023-12', count: 1 },
        { month: '1999-01', count: 1 },
      ],
      undated: 3,
      truncated: false,
    });
  });

  it('counts for a viewer only what they may see', async () => {
    const { months, undated } = await timeline(viewer);
    expect(months).toEqual([
      { month: '2024-06', count: 1 },
      { month: '2024-05', count: 2 },
      { month: '2023-12', count: 1 },
      { month: '1999-01', count: 1 },
    ]);
    expect(undated).toBe(2);
  });

  it('lines its months up with a search sorted by taken_at:desc', async () => {
    const { months, undated } = await timeline(owner);
    const request = { q: '*', collections: ['digital_assets'], sort_by: 'taken_at:desc' };
    const res = await searchAssets(t, owner, '*', undefined, { request, commonSearchParams: { per_page: 50 }, workspace_id_filter: String(ws) });
    expect(res.found).toBe(ASSETS.length);
    // Each hit's month taken, in the list's order; null without a date.
    const taken = res.hits.map(({ document }) => {
      const seconds = (document as SearchDoc & { taken_at: number | null }).taken_at;
      return seconds === null ? null : new Date(seconds * 1000).toISOString().slice(0, 7);
    });
    let at = 0;
    for (const { month, count } of months) {
      expect(taken.slice(at, at + count)).toEqual(Array(count).fill(month));
      at += count;
    }
    expect(taken.slice(at)).toEqual(Array(undated).fill(null));
  });

  it('narrows the months to the search too', async () => {
    expect(await timeline(owner, '&q=alps')).toEqual({ months: [{ month: '2024-05', count: 1 }], undated: 0, truncated: false });
  });

  it('answers the default tile layer, OpenStreetMap with its attribution', async () => {
    expect(await get(owner, '/dam/map')).toEqual({ tile_url: OSM_TILE_URL, attribution: OSM_ATTRIBUTION });
    expect((await t.request({ method: 'GET', url: '/dam/map' })).statusCode).toBe(401);
  });
});

describe('the map\'s tile layer', () => {
  const env = (vars: Record<string, string> = {}) => ({ DAM_DATA_DIR: tempDir('dam-config-'), DAM_JWT_SECRET: 'x'.repeat(40), ...vars });
  const tileUrl = 'http://127.0.0.1:8123/tiles/{z}/{x}/{y}.png';

  it('is configured, and the web client\'s CSP allows images from its origin only', async () => {
    const t = await startTestApp({ config: { map: { tileUrl, attribution: 'Local tiles' } } });
    try {
      const owner = await registerUser(t);
      const res = await t.request({ method: 'GET', url: '/dam/map', token: owner.token });
      expect(res.json<Envelope<unknown>>().data).toEqual({ tile_url: tileUrl, attribution: 'Local tiles' });
      const page = await t.request({ method: 'GET', url: '/library/map', headers: { accept: 'text/html' } });
      const imgSrc = /img-src ([^;]*)/.exec(String(page.headers['content-security-policy']))?.[1]?.split(' ');
      expect(imgSrc).toContain('http://127.0.0.1:8123');
      expect(imgSrc).not.toContain('https://tile.openstreetmap.org');
      // The API's own answers load nothing, tiles included.
      expect(res.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'");
    } finally {
      await t.close();
    }
  });

  it('is read from DAM_MAP_TILE_URL and DAM_MAP_ATTRIBUTION, OpenStreetMap\'s by default', () => {
    expect(loadConfig(env()).map).toEqual({ tileUrl: OSM_TILE_URL, attribution: OSM_ATTRIBUTION });
    expect(webClientCsp(loadConfig(env()))['img-src']).toContain('https://tile.openstreetmap.org');
    const config = loadConfig(env({ DAM_MAP_TILE_URL: 'https://{s}.tiles.example.com:8443/{z}/{x}/{y}{r}.png', DAM_MAP_ATTRIBUTION: '© Example' }));
    expect(config.map).toEqual({ tileUrl: 'https://{s}.tiles.example.com:8443/{z}/{x}/{y}{r}.png', attribution: '© Example' });
    // {s}: any subdomain of the host.
    expect(webClientCsp(config)['img-src']).toContain('https://*.tiles.example.com:8443');
  });

  it.each([
    ['ftp://tiles.example.com/{z}/{x}/{y}.png', 'http(s) URL'],
    ['https://tiles.example.com/{z}/{x}.png', '{z}, {x} and {y}'],
    ['https://tiles.{s}.example.com/{z}/{x}/{y}.png', 'first label of the host'],
    ['https://user:pw@tiles.example.com/{z}/{x}/{y}.png', 'without credentials'],
    ['not a url', 'http(s) URL'],
  ])('refuses DAM_MAP_TILE_URL=%s at start', (url, problem) => {
    expect(() => loadConfig(env({ DAM_MAP_TILE_URL: url }))).toThrow(ConfigError);
    expect(() => loadConfig(env({ DAM_MAP_TILE_URL: url }))).toThrow(problem);
  });
});
