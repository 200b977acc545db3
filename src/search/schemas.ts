import { Type, type Static } from 'typebox';
import { SEARCH_SORT_ORDERS } from '../domain/sort-orders.js';
import { VISIBILITY_MEANING, WireId } from '../http/schemas.js';
import { UnreadableProperties } from '../http/unreadable-schemas.js';
import { FIELD_NAMES } from './filter/index.js';
import { FacetBy, FacetCounts, MaxFacetValues } from './facets/schemas.js';
import { TYPO_PARAMS } from './typos/schemas.js';

/**
 * TypeBox schemas of the search endpoints: they
 * validate the requests, type the service and feed the OpenAPI document.
 */

const strict = { additionalProperties: false } as const;

export const CollectionName = Type.Union(
  [Type.Literal('digital_assets'), Type.Literal('digital_assets_categories'), Type.Literal('dam_collections')],
  { description: 'digital_assets: assets; digital_assets_categories: folders; dam_collections: curated collections' },
);

/** The catalog lists' orders (http/schemas.ts SortBy) and the date taken, which only a search sorts by. */
export const SortBy = Type.Union(
  SEARCH_SORT_ORDERS.map((order) => Type.Literal(order)),
  {
    description:
      'Omitted: by relevance when q has words (name starts with q, then every word in the name, then the rest), then newest first. ' +
      'Given: in that order, ties by id in the same direction. modified_at, created_at: by that date. display_file_name: by name, ' +
      'case-insensitive, numbers in names by value (img2 < img10 < IMG11). file_size: by size in bytes; folders and collections ' +
      'have no size and are sorted by name instead. taken_at: by the date the photo or video was taken (embedded metadata); assets ' +
      'without one come last in both directions; folders and collections have none and are sorted by created_at instead.',
  },
);

export const Q = Type.String({
  // 256 characters keep every word under PostgreSQL's 2046-byte lexeme limit.
  maxLength: 256,
  description:
    '* (or empty, or no letter or digit) matches everything. Otherwise every word must be a word of the display name, ' +
    "file name, description, tags, or an asset's embedded caption, creator, keywords, camera make and model or lens, the last word as a prefix. " +
    'Words are runs of letters and digits; file names are also ' +
    'cut where letters meet digits, so 2041 finds IMG_2041.jpg and IMG2041.jpg. Case-insensitive. Typo-tolerant when nothing ' +
    'matches as typed (num_typos, min_len_1typo, min_len_2typo, typo_tokens_threshold): sunst finds sunset.',
});

export const Filter = Type.String({
  maxLength: 4096,
  description:
    `Filter expression (the Typesense filter_by grammar). Fields: ${FIELD_NAMES.join(', ')}. Operators := :!= :> :>= :< :<= and : (contains; ` +
    'equality on numbers), lists [a, b] (any of; with :!= none of), numeric ranges [a..b], `backtick-quoted` values, ' +
    '&& and || with parentheses. A level may not mix && and || without parentheses. At most 100 operators. ' +
    'Text compares case-insensitively (ASCII letters). Embedded metadata of assets (absent on folders and collections; :!= ' +
    'matches documents without the value): taken_at and taken_year (numbers, Unix seconds and UTC year), camera_make, ' +
    'camera_model, creator (text), keywords (like tags: keywords:=[a, b]), and gps:[south, west, north, east], a box in ' +
    'degrees (west > east crosses the antimeridian; := inside, :!= outside or without a position). ' +
    'Duplicates of assets: sha256:=<64 hex digits> (the SHA-256 of the current file, null until the server has hashed it) and ' +
    'duplicate_of:=<asset id> (assets whose current file has that asset\'s SHA-256, the asset itself excluded); both := and :!= only. ' +
    "Unreadable files: unreadable:true is the assets whose current file the server could not read (see an asset's unreadable), " +
    'unreadable:false the others; one value, true or false. ' +
    'A malformed expression is 400 with its position.',
});

export const QueryBy = Type.Literal('search_name', {
  description:
    "The only searchable field: display name, file name, description, tags, and an asset's embedded caption, creator, keywords, camera make and model, and lens",
});

const Page = Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'Page number; past the end: no hits, found still counts' });
const PerPage = Type.Integer({ minimum: 1, maximum: 250, default: 10 });
const WorkspaceIdFilter = WireId(
  'One workspace id. Omitted: every workspace of the caller. A workspace the caller is not a member of is 404',
);

export const SearchBody = Type.Object(
  {
    request: Type.Object(
      {
        q: Type.Optional(Q),
        collections: Type.Optional(
          Type.Array(CollectionName, { minItems: 1, maxItems: 3, uniqueItems: true, description: 'Omitted: all three, in this order' }),
        ),
        sort_by: Type.Optional(SortBy),
      },
      strict,
    ),
    filterQuery: Type.Optional(
      Type.Object(
        { digital_assets: Type.Optional(Filter), digital_assets_categories: Type.Optional(Filter), dam_collections: Type.Optional(Filter) },
        { ...strict, description: 'A filter per collection; each collection is filtered by its own entry only' },
      ),
    ),
    commonSearchParams: Type.Optional(
      Type.Object(
        {
          query_by: Type.Optional(QueryBy),
          per_page: Type.Optional(PerPage),
          page: Type.Optional(Page),
          facet_by: Type.Optional(FacetBy),
          max_facet_values: Type.Optional(MaxFacetValues),
          ...TYPO_PARAMS,
        },
        strict,
      ),
    ),
    workspace_id_filter: Type.Optional(WorkspaceIdFilter),
  },
  strict,
);
export type SearchBody = Static<typeof SearchBody>;

export const HelperBody = Type.Object(
  {
    q: Type.Optional(Q),
    filter_by: Type.Optional(Filter),
    sort_by: Type.Optional(SortBy),
    page: Type.Optional(Page),
    per_page: Type.Optional(PerPage),
    workspace_id_filter: Type.Optional(WorkspaceIdFilter),
    facet_by: Type.Optional(FacetBy),
    max_facet_values: Type.Optional(MaxFacetValues),
    ...TYPO_PARAMS,
  },
  strict,
);
export type HelperBody = Static<typeof HelperBody>;

export const SuggestionsQuery = Type.Object(
  {
    q: Type.String({ minLength: 1, maxLength: 100, pattern: '^[^\\u0000]*$', description: 'Prefix, case-insensitive for ASCII letters' }),
    workspaceId: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Omitted: every workspace of the caller; not a member: 404' })),
  },
  strict,
);

const Nullable = <T extends ReturnType<typeof Type.Integer> | ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const NullableNumber = (description: string) => Type.Union([Type.Number(), Type.Null()], { description });

export const SearchDocument = Type.Object({
  id: Type.String({ description: 'Id of the asset, folder or collection' }),
  workspace_id: Type.Integer(),
  display_file_name: Type.String({ description: "Display name; a folder's or collection's name" }),
  file_type: Type.String({ description: 'image, video, audio, document, archive, other; folder; collection' }),
  modified_at: Type.Integer({ description: 'Unix seconds' }),
  created_at: Type.Integer({ description: 'Unix seconds' }),
  tags: Type.Array(Type.String()),
  visibility: Type.Integer({ description: VISIBILITY_MEANING }),
  orientation: Nullable(Type.String({ description: 'landscape, portrait, square; null when unknown or not an asset' })),
  folder_id: Nullable(Type.Integer({ description: "The asset's folder or the folder's parent; null at the top level" })),
  file_name: Type.Optional(Type.String({ description: 'Assets only' })),
  mime_type: Type.Optional(Type.String({ description: 'Assets only' })),
  file_size: Type.Optional(Type.Integer({ description: 'Assets only, bytes' })),
  width: Type.Optional(Nullable(Type.Integer({ description: 'Assets only, pixels' }))),
  height: Type.Optional(Nullable(Type.Integer({ description: 'Assets only, pixels' }))),
  description: Type.Optional(Type.String({ description: 'Collections only' })),
  // Assets only: the embedded metadata read from the current file (issue #12), null when the file has none.
  taken_at: Type.Optional(Nullable(Type.Integer({ description: 'Assets only: date taken, Unix seconds' }))),
  camera_make: Type.Optional(Nullable(Type.String({ description: 'Assets only' }))),
  camera_model: Type.Optional(Nullable(Type.String({ description: 'Assets only' }))),
  lens: Type.Optional(Nullable(Type.String({ description: 'Assets only' }))),
  iso: Type.Optional(Nullable(Type.Integer({ description: 'Assets only' }))),
  exposure: Type.Optional(Nullable(Type.String({ description: 'Assets only: exposure time as the camera writes it, e.g. 1/250' }))),
  aperture: Type.Optional(NullableNumber('Assets only: f-number')),
  focal_length: Type.Optional(NullableNumber('Assets only: millimetres')),
  gps_lat: Type.Optional(NullableNumber('Assets only: degrees north')),
  gps_lon: Type.Optional(NullableNumber('Assets only: degrees east')),
  duration: Type.Optional(NullableNumber('Assets only: seconds (audio, video)')),
  color_space: Type.Optional(Nullable(Type.String({ description: 'Assets only' }))),
  caption: Type.Optional(Nullable(Type.String({ description: 'Assets only' }))),
  creator: Type.Optional(Nullable(Type.String({ description: 'Assets only' }))),
  copyright: Type.Optional(Nullable(Type.String({ description: 'Assets only' }))),
  usage_terms: Type.Optional(Nullable(Type.String({ description: 'Assets only' }))),
  keywords: Type.Optional(Type.Array(Type.String(), { description: "Assets only: the file's own keywords (also merged into tags)" })),
  sha256: Type.Optional(
    Nullable(Type.String({ description: "Assets only: SHA-256 of the current file (64 lowercase hex digits); null until the server has hashed it" })),
  ),
  // Issue #27: assets only.
  unreadable: Type.Optional(UnreadableProperties.unreadable),
  unreadable_reason: Type.Optional(UnreadableProperties.unreadable_reason),
  thumbnail_url: Type.Optional(Type.String({ description: "Assets only: signed URL of the current version's thumbnail (works in <img>)" })),
  file_url: Type.Optional(Type.String({ description: "Assets only: signed URL of the current version's file" })),
});
export type SearchDocument = Static<typeof SearchDocument>;

export const SearchResult = Type.Object({
  collection: CollectionName,
  hits: Type.Array(Type.Object({ document: SearchDocument })),
  found: Type.Integer({ description: 'Matches over all pages' }),
  page: Type.Integer(),
  request_params: Type.Object({ q: Type.String(), collection: CollectionName, per_page: Type.Integer() }),
  facet_counts: Type.Array(FacetCounts, { description: 'One entry per facet_by field, in its order; empty without facet_by' }),
});
export type SearchResult = Static<typeof SearchResult>;

export const SearchResponse = Type.Object({ results: Type.Array(SearchResult, { description: 'One per requested collection, in request order' }) });
export type SearchResponse = Static<typeof SearchResponse>;
