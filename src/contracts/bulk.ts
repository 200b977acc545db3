import { Type, type Static } from 'typebox';
import { Id as IdOf, Tags, Visibility } from '../http/schemas.js';
import { Filter, Q, QueryBy } from '../search/schemas.js';
import { ItemResultSchema } from './trash.js';

/** TypeBox schemas of POST /dam/assets/bulk: the request, and its answer (per-id results, and counts for a search). */

const Id = IdOf();

const Action = Type.Union(
  [Type.Literal('delete'), Type.Literal('move'), Type.Literal('tag'), Type.Literal('untag'), Type.Literal('set_visibility')],
  { description: 'delete: to the trash; move: to folder_id; tag / untag: add / remove tags; set_visibility: to visibility' },
);
export type BulkAction = Static<typeof Action>;

/** The assets of a search-based request (issue #27): the text and filter of POST /search-engine/search-assets. */
export const BulkSearch = Type.Object(
  { q: Type.Optional(Q), query_by: Type.Optional(QueryBy), filter_by: Type.Optional(Filter) },
  {
    additionalProperties: false,
    description:
      "Instead of asset_ids: every asset of the workspace this search finds for the caller (q and filter_by as in " +
      '/search-engine/search-assets; omitted q: every asset), at most DAM_BULK_SEARCH_MAX (10,000 by default) after except_ids',
  },
);

export const BulkBody = Type.Object(
  {
    workspaceId: Id,
    asset_ids: Type.Optional(
      Type.Array(Id, { minItems: 1, maxItems: 1000, uniqueItems: true, description: 'Assets to act on; results come back in this order. Exactly one of asset_ids and search' }),
    ),
    search: Type.Optional(BulkSearch),
    except_ids: Type.Optional(
      Type.Array(Id, { minItems: 1, maxItems: 1000, uniqueItems: true, description: 'search only: assets the search finds that are left alone (deselected ones)' }),
    ),
    action: Action,
    folder_id: Type.Optional(Type.Union([Id, Type.Null()], { description: 'move only (required there): the folder, or null for the top level' })),
    tags: Type.Optional(
      Type.Array(Tags.items, { minItems: 1, maxItems: 100, uniqueItems: true, description: 'tag and untag only (required there)' }),
    ),
    // set_visibility only (required there).
    visibility: Type.Optional(Visibility),
  },
  { additionalProperties: false },
);
export type BulkRequest = Static<typeof BulkBody>;

export const BulkResults = Type.Object({
  results: Type.Array(ItemResultSchema, {
    description: 'asset_ids: one per id, in the order given. search: only the assets the action could not be done to (ok false)',
  }),
  matched: Type.Optional(Type.Integer({ description: 'search only: the assets the search found, less except_ids: those the action was tried on' })),
  succeeded: Type.Optional(Type.Integer({ description: 'search only: of those, the ones the action was done to (matched less the failed results)' })),
});
export type BulkResultsView = Static<typeof BulkResults>;
