import fc from 'fast-check';
import type { DB } from '../../src/db/database.js';
import { insertAsset } from '../../src/repositories/assets.js';
import { appendAssets, insertCollection } from '../../src/repositories/collections.js';
import { insertFolder } from '../../src/repositories/folders.js';
import { orientationOf } from '../../src/domain/file-types.js';
import { fileTypeOf } from '../../src/domain/file-types.js';
import { SORT_ORDERS } from '../../src/domain/sort-orders.js';
import type { ModelDoc } from './search-oracle.js';

/** A seeded random corpus and random search requests for test/search-property.test.ts. */

const WORDS = ['beach', 'Beach', 'sunset', 'IMG', 'dsc', 'red', 'car', 'été', 'Über', 'q3', '2041', 'report'];
const TAGS = ['beach', 'Beach', 'red', 'red car', 'summer', "it's", '50%', 'x_y', 'Été', 'sun', 'a\\b'];
const MIMES = ['image/jpeg', 'image/png', 'video/mp4', 'audio/mpeg', 'application/pdf', 'application/zip', 'application/octet-stream'];
const SIZES: [number | null, number | null][] = [[null, null], [200, 100], [100, 200], [150, 150]];

function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let x = s;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The same rows, in the same order, on every database it is given (ids then agree).
 * Dates are drawn from small ranges so that ties are common. Returns the ready assets as model documents.
 */
export async function seedRandomCorpus(db: DB, workspaceId: number, seed = 4): Promise<ModelDoc[]> {
  const r = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const folders: number[] = [];
  for (let i = 0; i < 4; i += 1) {
    const f = await insertFolder(db, { workspace_id: workspaceId, parent_id: folders.length && r() < 0.5 ? pick(folders) : null, name: `${pick(WORDS)} ${i}`, visibility: Math.floor(r() * 3), tags: [pick(TAGS)], now: 1000 + i });
    folders.push(f.id);
  }
  const collections: number[] = [];
  for (let i = 0; i < 4; i += 1) {
    collections.push(await insertCollection(db, { workspace_id: workspaceId, name: `${pick(WORDS)} set`, description: pick(WORDS), visibility: i % 2, tags: [pick(TAGS)], now: 1000 + i }));
  }
  const docs: ModelDoc[] = [];
  for (let i = 0; i < 80; i += 1) {
    const [width, height] = pick(SIZES);
    const mime = pick(MIMES);
    const tags = [...new Set(Array.from({ length: Math.floor(r() * 4) }, () => pick(TAGS)))];
    const values = {
      workspace_id: workspaceId,
      file_name: `${pick(WORDS)}${pick(['_', '-', ' ', ''])}${Math.floor(r() * 3000)}.${pick(['jpg', 'PNG', 'mp4'])}`,
      mime_type: mime,
      file_size: i,
      width,
      height,
      tags,
      visibility: Math.floor(r() * 4),
      folder_id: r() < 0.3 ? pick(folders) : null,
      status: r() < 0.1 ? ('uploading' as const) : ('ready' as const),
      created_by: 'random',
      created_at: 1000 + Math.floor(r() * 40),
      modified_at: 1000 + Math.floor(r() * 25),
    };
    const row = await insertAsset(db, values);
    const memberOf = collections.filter(() => r() < 0.3);
    for (const c of memberOf) await appendAssets(db, c, [row.id], i, 1000);
    if (values.status === 'ready') {
      docs.push({ id: row.id, file_type: fileTypeOf(mime), orientation: orientationOf(width, height), visibility: values.visibility, created_at: values.created_at, modified_at: values.modified_at, folder_id: values.folder_id, tags, collections: memberOf });
    }
  }
  return docs;
}

const FIELDS = ['file_type', 'tags', 'orientation', 'visibility', 'modified_at', 'created_at', 'id', 'folder_id', 'collection_id'];
const text = fc.oneof(
  fc.constantFrom('image', 'video', 'IMAGE', 'landscape', 'portrait', 'square', 'beach', 'Beach', 'red', 'summer', 'Été', 'sun', 'x_y', 'ea', 'a\\b', '%', '_', '\\'),
  fc.constantFrom('red car', "it's", "x'; DROP TABLE assets;--", '50%').map((v) => `\`${v}\``),
);
const int = fc.oneof(fc.integer({ min: -1, max: 1045 }), fc.integer({ min: 0, max: 5 }), fc.constantFrom(99999999999, -99999999999));
const range = fc.tuple(fc.integer({ min: 0, max: 1045 }), fc.integer({ min: 0, max: 60 })).map(([a, d]) => `${a}..${a + d}`);
const listOf = (x: fc.Arbitrary<string>) => fc.array(x, { minLength: 1, maxLength: 4 }).map((xs) => `[${xs.join(', ')}]`);
const validCondition = fc.oneof(
  fc.tuple(fc.constantFrom('file_type', 'orientation', 'tags'), fc.constantFrom(':=', ':!=', ':'), fc.oneof(text, listOf(text))),
  fc.tuple(fc.constantFrom('visibility', 'modified_at', 'created_at', 'id', 'folder_id'), fc.constantFrom(':=', ':!=', ':'), fc.oneof(int.map(String), listOf(fc.oneof(int.map(String), range)))),
  fc.tuple(fc.constantFrom('visibility', 'modified_at', 'created_at', 'id', 'folder_id'), fc.constantFrom(':>', ':>=', ':<', ':<='), int.map(String)),
  fc.tuple(fc.constant('collection_id'), fc.constantFrom(':=', ':!='), fc.oneof(int.map(String), listOf(int.map(String)))),
).map(([f, op, v]) => `${f}${op}${v}`);

/** Anything goes: wrong types, unknown fields, operators on the wrong kind of field. */
const scalar = fc.oneof(text, fc.constantFrom('0', '1.5', '1e3', '..', 'a:b', '3..1'), fc.string({ maxLength: 6 }).filter((x) => !x.includes('`')).map((x) => `\`${x}\``));
const wildCondition = fc
  .tuple(fc.constantFrom(...FIELDS, 'colour', 'workspace_id', 'Tags'), fc.constantFrom(':=', ':!=', ':>', ':>=', ':<', ':<=', ':'), fc.oneof(scalar, listOf(fc.oneof(scalar, range))))
  .map(([f, op, v]) => `${f}${op}${v}`);
const condition = fc.oneof({ weight: 12, arbitrary: validCondition }, { weight: 1, arbitrary: wildCondition });

const { node } = fc.letrec<{ node: string; group: string; chain: string }>((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, condition, tie('group'), tie('chain')),
  group: tie('node').map((n) => `(${n})`),
  // One operator per level; a nested chain is parenthesised, except now and then (then it must be a 400).
  chain: fc
    .tuple(fc.constantFrom(' && ', ' || ', '&&', '||'), fc.array(fc.oneof({ weight: 9, arbitrary: fc.oneof(condition, tie('group')) }, { weight: 1, arbitrary: tie('chain') }), { minLength: 2, maxLength: 3 }))
    .map(([op, xs]) => xs.join(op)),
}));

/** Random filters: mostly well-formed, sometimes with a character inserted or removed. */
export const filterArb = fc.oneof(
  { weight: 4, arbitrary: node },
  {
    weight: 1,
    arbitrary: fc.tuple(node, fc.nat(), fc.constantFrom('(', ')', '[', ']', ',', '`', '&', '|', ':', '=', '.', ' ', '')).map(([f, at, c]) => {
      const i = at % (f.length + 1);
      return c === '' ? f.slice(0, i) + f.slice(i + 1) : f.slice(0, i) + c + f.slice(i);
    }),
  },
);

export const queryArb = fc.oneof(
  { weight: 3, arbitrary: fc.constant('*') },
  { weight: 3, arbitrary: fc.array(fc.constantFrom(...WORDS, 'bea', 'su', 'img_2', 'ÉTÉ', 'jpg', '20'), { minLength: 1, maxLength: 3 }).map((ws) => ws.join(' ')) },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: fc.constantFrom('"a" OR b', "'; --", 'NEAR(x y)', '\u0000x', 'a*', '^b', '-c') },
);

export const requestArb = fc.record({
  q: queryArb,
  assets: filterArb,
  folders: fc.option(filterArb, { nil: undefined }),
  sort_by: fc.option(fc.constantFrom(...SORT_ORDERS), { nil: undefined }),
  per_page: fc.integer({ min: 1, max: 30 }),
  page: fc.integer({ min: 1, max: 4 }),
});
