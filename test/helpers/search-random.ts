import fc from 'fast-check';
import type { DB } from '../../src/db/database.js';
import { insertAsset } from '../../src/repositories/assets.js';
import { appendAssets, insertCollection } from '../../src/repositories/collections.js';
import { insertFolder } from '../../src/repositories/folders.js';
import { orientationOf } from '../../src/domain/file-types.js';
import { fileTypeOf } from '../../src/domain/file-types.js';
import { SEARCH_SORT_ORDERS } from '../../src/domain/sort-orders.js';
import { FACET_NAMES } from '../../src/search/facets/index.js';
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
      uploaded_by: null,
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
  await seedEmbedded(db, docs, prng(seed + 1000));
  return docs;
}

// Embedded metadata (issue #12): values with ties, case variants, the year boundary, both sides of the antimeridian.
const TAKEN = [-1000, 0, 1000, 1005, 1_600_000_000, 1_609_459_199, 1_609_459_200, -62_135_596_801];
const MAKES = ['Canon', 'canon', 'NIKON', 'Apple'];
const MODELS = ['Canon EOS R5', 'canon eos r5', 'NIKON D750', 'iPhone 15 Pro', 'X100V', 'Été 1'];
const CREATORS = ['Anna Berger', 'anna berger', 'Ben', "O'Brien", '50%_off'];
const POSITIONS: [number, number][] = [[0, 0], [53.55, 9.99], [-33.86, 151.21], [-17.7, 178], [-13.8, -172], [90, -180], [-90, 180]];
const KEYWORDS = ['Harbour', 'harbour', 'boats', 'Été', 'red car', 'x_y'];

/**
 * Writes embedded metadata on about two thirds of the assets (an UPDATE, so the index triggers
 * re-index them), from its own generator `m` so that the rest of the corpus stays as it was.
 */
async function seedEmbedded(db: DB, docs: ModelDoc[], m: () => number): Promise<void> {
  const maybe = <T>(xs: readonly T[]): T | null => (m() < 0.7 ? xs[Math.floor(m() * xs.length)]! : null);
  for (const doc of docs) {
    if (m() < 0.35) continue;
    const position = maybe(POSITIONS);
    const embedded = {
      taken_at: maybe(TAKEN),
      camera_make: maybe(MAKES),
      camera_model: maybe(MODELS),
      creator: maybe(CREATORS),
      gps_lat: position?.[0] ?? null,
      gps_lon: position?.[1] ?? null,
      keywords: [...new Set(Array.from({ length: Math.floor(m() * 3) }, () => KEYWORDS[Math.floor(m() * KEYWORDS.length)]!))],
    };
    await db.updateTable('assets').set({ ...embedded, keywords: JSON.stringify(embedded.keywords) }).where('id', '=', doc.id).execute();
    Object.assign(doc, embedded);
  }
}

const FIELDS = ['file_type', 'tags', 'orientation', 'visibility', 'modified_at', 'created_at', 'id', 'folder_id', 'collection_id', 'taken_at', 'taken_year', 'camera_make', 'camera_model', 'creator', 'keywords', 'gps'];
const text = fc.oneof(
  fc.constantFrom('image', 'video', 'IMAGE', 'landscape', 'portrait', 'square', 'beach', 'Beach', 'red', 'summer', 'Été', 'sun', 'x_y', 'ea', 'a\\b', '%', '_', '\\'),
  fc.constantFrom('red car', "it's", "x'; DROP TABLE assets;--", '50%').map((v) => `\`${v}\``),
);
const int = fc.oneof(fc.integer({ min: -1, max: 1045 }), fc.integer({ min: 0, max: 5 }), fc.constantFrom(99999999999, -99999999999));
const range = fc.tuple(fc.integer({ min: 0, max: 1045 }), fc.integer({ min: 0, max: 60 })).map(([a, d]) => `${a}..${a + d}`);
const listOf = (x: fc.Arbitrary<string>) => fc.array(x, { minLength: 1, maxLength: 4 }).map((xs) => `[${xs.join(', ')}]`);
const embeddedText = fc.oneof(
  fc.constantFrom('canon', 'Canon', 'NIKON', 'apple', 'eos', 'x100v', 'Été 1', 'été 1', 'anna', 'ben', '%', '_', 'harbour', 'HARBOUR', 'boats', 'x_y', 'Été'),
  fc.constantFrom('Canon EOS R5', 'NIKON D750', 'iPhone 15 Pro', 'Anna Berger', "O'Brien", '50%_off', 'red car').map((v) => `\`${v}\``),
);
const takenInt = fc.oneof(fc.constantFrom(...TAKEN), fc.integer({ min: -2000, max: 2000 }), fc.constantFrom(1_600_000_000, 1_609_459_200));
const takenRange = fc.tuple(takenInt, fc.constantFrom(0, 5, 1000, 10_000_000)).map(([a, d]) => `${a}..${a + d}`);
const latitude = fc.constantFrom('-90', '-34', '-17.7', '-13.8', '0', '53.55', '60', '90');
const longitude = fc.constantFrom('-180', '-175', '-172', '-10', '0', '9.99', '151.21', '175', '178', '180');
const box = fc.tuple(latitude, longitude, latitude, longitude).map(([a, w, b, e]) => (Number(a) <= Number(b) ? `[${a}, ${w}, ${b}, ${e}]` : `[${b}, ${w}, ${a}, ${e}]`));
const validCondition = fc.oneof(
  fc.tuple(fc.constantFrom('file_type', 'orientation', 'tags'), fc.constantFrom(':=', ':!=', ':'), fc.oneof(text, listOf(text))),
  fc.tuple(fc.constantFrom('visibility', 'modified_at', 'created_at', 'id', 'folder_id'), fc.constantFrom(':=', ':!=', ':'), fc.oneof(int.map(String), listOf(fc.oneof(int.map(String), range)))),
  fc.tuple(fc.constantFrom('visibility', 'modified_at', 'created_at', 'id', 'folder_id'), fc.constantFrom(':>', ':>=', ':<', ':<='), int.map(String)),
  fc.tuple(fc.constant('collection_id'), fc.constantFrom(':=', ':!='), fc.oneof(int.map(String), listOf(int.map(String)))),
  fc.tuple(fc.constantFrom('camera_make', 'camera_model', 'creator', 'keywords'), fc.constantFrom(':=', ':!=', ':'), fc.oneof(embeddedText, listOf(embeddedText))),
  fc.tuple(fc.constant('taken_at'), fc.constantFrom(':=', ':!=', ':'), fc.oneof(takenInt.map(String), listOf(fc.oneof(takenInt.map(String), takenRange)))),
  fc.tuple(fc.constantFrom('taken_at', 'taken_year'), fc.constantFrom(':>', ':>=', ':<', ':<='), fc.oneof(takenInt, fc.constantFrom(1969, 1970, 2020, 2021)).map(String)),
  fc.tuple(fc.constant('taken_year'), fc.constantFrom(':=', ':!='), listOf(fc.constantFrom('1969', '1970', '2020', '2021', '2019..2020'))),
  fc.tuple(fc.constant('gps'), fc.constantFrom(':=', ':', ':!='), box),
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
  sort_by: fc.option(fc.constantFrom(...SEARCH_SORT_ORDERS), { nil: undefined }),
  per_page: fc.integer({ min: 1, max: 30 }),
  page: fc.integer({ min: 1, max: 4 }),
  // Facets (issue #12): some of the fields, in any order, comma lists with or without spaces.
  facet_by: fc.option(fc.tuple(fc.shuffledSubarray([...FACET_NAMES], { minLength: 1 }), fc.constantFrom(',', ', ')).map(([xs, sep]) => xs.join(sep)), { nil: undefined }),
  max_facet_values: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
});
