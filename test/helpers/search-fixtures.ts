import type { LightMyRequestResponse } from 'fastify';
import type { NewAssetValues } from '../../src/repositories/assets.js';
import type { TestApp } from './app.js';
import { makeAsset, makeCollection, makeFolder } from './catalog-factories.js';
import type { Account } from './factories.js';

/** Search request/response helpers and a corpus with known facts, for test/search-*.test.ts. */

export interface SearchDoc {
  id: string;
  workspace_id: number;
  display_file_name: string;
  file_type: string;
  modified_at: number;
  created_at: number;
  tags: string[];
  visibility: number;
  orientation: string | null;
  folder_id: number | null;
  file_name?: string;
}

export interface SearchResultJson {
  collection: string;
  hits: { document: SearchDoc }[];
  found: number;
  page: number;
  request_params: { q: string; collection: string; per_page: number };
}

export function searchRequest(t: TestApp, who: Account, payload: object): Promise<LightMyRequestResponse> {
  return t.request({ method: 'POST', url: '/search-engine/search', token: who.token, payload });
}

/** POST /search-engine/search; throws unless 200. */
export async function search(t: TestApp, who: Account, payload: object): Promise<SearchResultJson[]> {
  const res = await searchRequest(t, who, payload);
  if (res.statusCode !== 200) throw new Error(`search answered ${res.statusCode} ${res.body}`);
  return res.json<{ results: SearchResultJson[] }>().results;
}

/** The asset result of a one-collection search. */
export async function searchAssets(t: TestApp, who: Account, q: string, filter?: string, extra: object = {}): Promise<SearchResultJson> {
  const payload = { request: { q, collections: ['digital_assets'] }, ...(filter !== undefined && { filterQuery: { digital_assets: filter } }), ...extra };
  return (await search(t, who, payload))[0]!;
}

/** Asset facts of the corpus; `label` names each in expectations. */
export interface AssetFixture extends Partial<NewAssetValues> {
  label: string;
  file_name: string;
  mime_type: string;
}

/**
 * Ten ready assets and one still uploading. Dates are small distinct numbers
 * (modified_at decides "newest first"); two share a modified_at to test ties.
 */
export const ASSETS: AssetFixture[] = [
  { label: 'sunset', file_name: 'IMG_2041.jpg', display_file_name: 'Sunset at the beach', mime_type: 'image/jpeg', width: 4000, height: 3000, tags: ['beach', 'sunset', 'summer'], visibility: 0, created_at: 1000, modified_at: 5000 },
  { label: 'img2042', file_name: 'IMG2042.JPG', mime_type: 'image/jpeg', width: 3000, height: 4000, tags: ['beach'], visibility: 1, created_at: 1100, modified_at: 4000 },
  { label: 'dsc', file_name: 'DSC01234.JPG', mime_type: 'image/jpeg', width: 2000, height: 2000, tags: ['Red', 'car'], visibility: 0, created_at: 1200, modified_at: 3000 },
  { label: 'party', file_name: 'beach-party-2021.mp4', mime_type: 'video/mp4', width: 1920, height: 1080, tags: ['party', 'summer'], visibility: 2, created_at: 1300, modified_at: 6000 },
  { label: 'report', file_name: 'Quarterly report Q3.pdf', mime_type: 'application/pdf', width: null, height: null, tags: ['finance', 'q3'], visibility: 0, created_at: 1400, modified_at: 2000 },
  { label: 'podcast', file_name: 'podcast episode 12.mp3', mime_type: 'audio/mpeg', width: null, height: null, tags: [], visibility: 1, created_at: 1500, modified_at: 7000 },
  { label: 'zip', file_name: 'archive.zip', mime_type: 'application/zip', width: null, height: null, tags: ['backup', 'red car'], visibility: 0, created_at: 1600, modified_at: 1000 },
  { label: 'quote', file_name: "O'Brien; DROP TABLE assets;--.png", mime_type: 'image/png', width: 100, height: 50, tags: ["it's", '50%_off\\'], visibility: 0, created_at: 1700, modified_at: 8000 },
  { label: 'cafe', file_name: 'Café Über 2019.jpg', mime_type: 'image/jpeg', width: 640, height: 480, tags: ['Été'], visibility: 3, created_at: 1800, modified_at: 3000 },
  { label: 'beachball', file_name: 'beachball.png', mime_type: 'image/png', width: 10, height: 10, tags: ['toys'], visibility: 0, created_at: 1900, modified_at: 1500 },
];
export const UPLOADING: AssetFixture = { label: 'uploading', file_name: 'sunset-draft.jpg', mime_type: 'image/jpeg', tags: ['beach'], status: 'uploading', created_at: 2000, modified_at: 9000 };

export interface Corpus {
  /** label -> asset id */
  asset: Record<string, number>;
  /** asset id -> label */
  label: Map<string, string>;
  folder: { trips: number; invoices: number };
  collection: { best: number; client: number };
  /** Labels of the ready assets. */
  ready: string[];
}

/** Creates the corpus in `ws`, folders and collections through the API, assets through insertAsset. */
export async function seedCorpus(t: TestApp, owner: Account, ws: number): Promise<Corpus> {
  const trips = await makeFolder(t, owner, ws, { name: 'Beach trips', tags: ['beach'] });
  const invoices = await makeFolder(t, owner, ws, { name: 'Invoices 2021', parent_id: trips.id, tags: ['finance'], visibility: 1 });
  const best = await makeCollection(t, owner, ws, { name: 'Best of summer', description: 'sunny beach days', tags: ['summer'] });
  const client = await makeCollection(t, owner, ws, { name: 'Client ACME', tags: ['finance'], visibility: 1 });
  const asset: Record<string, number> = {};
  for (const { label, ...values } of [...ASSETS, UPLOADING]) {
    const folder = label === 'report' ? { folder_id: invoices.id } : label === 'sunset' ? { folder_id: trips.id } : {};
    asset[label] = (await makeAsset(t.database.db, ws, { created_by: 'fixture', ...values, ...folder })).id;
  }
  const label = new Map(Object.entries(asset).map(([k, v]) => [String(v), k]));
  return { asset, label, folder: { trips: trips.id, invoices: invoices.id }, collection: { best: best.id, client: client.id }, ready: ASSETS.map((a) => a.label) };
}

/** Labels of the hits, in order. */
export function labels(corpus: Corpus, result: SearchResultJson): string[] {
  return result.hits.map((h) => corpus.label.get(h.document.id) ?? `?${h.document.id}`);
}
