import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { sendCachedAnswer } from '../http/cached-answer.js';
import { Envelope, ErrorBody, ok } from '../http/schemas.js';
import type { CollectionName } from '../search/collections.js';
import { HelperBody, SearchBody, SearchResponse, SearchResult, SuggestionsQuery } from '../search/schemas.js';
import type { AnswerCache } from '../domain/answer-cache.js';
import type { Caller } from '../services/auth-service.js';
import type { SearchService } from '../services/search-service.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody };
const tags = ['search'];

const ISOLATION =
  'Only documents of workspaces the caller is a member of are searched; workspace_id_filter narrows to one of them ' +
  '(not a member, or no such workspace: 404). Only assets whose upload completed are searchable, and nothing in the ' +
  'trash (GET /dam/trash) is: not as a hit, a suggestion, nor as the collection of a collection_id filter. ' +
  'A private asset (visibility not 0) is found only by its uploader and the managers and admins of its workspace: for ' +
  'other viewers it is no hit, no count in found or facet_counts, no suggestion, and no asset of a duplicate_of filter.';

const HELPERS: { path: string; collection: CollectionName; what: string }[] = [
  { path: '/search-engine/search-assets', collection: 'digital_assets', what: 'assets' },
  { path: '/search-engine/search-folders', collection: 'digital_assets_categories', what: 'folders' },
  { path: '/search-engine/search-collages', collection: 'dam_collections', what: 'curated collections' },
];

/** seed 4.1, 4.2: search and its helper endpoints. */
export const searchRoutes: FastifyPluginAsyncTypebox<{ search: SearchService; answers: AnswerCache<Buffer> }> = async (app, { search, answers }) => {
  // An answer depends on the request, the caller's workspaces and roles (read on every request, which checks a
  // workspace_id_filter's membership: a viewer sees fewer assets) and the caller (its media URLs are signed for them).
  const searchKey = (path: string, caller: Caller, body: { workspace_id_filter?: string | number }) => async () => {
    const scope = await search.scope(caller, body.workspace_id_filter);
    return `${path} ${caller.id} ${scope.workspaceIds.join(',')} ${scope.viewer?.workspaceIds.join(',') ?? ''} ${JSON.stringify(body)}`;
  };

  app.post(
    '/search-engine/search',
    {
      schema: {
        tags,
        summary: 'Search assets, folders and collections in one request',
        description:
          'Answers one result per requested collection, in request order, each filtered by its own filterQuery entry. ' +
          'A body with only `request` is valid (q defaults to *, collections to all three). ' +
          'per_page defaults to 10 (at most 250), page to 1; a page past the end has no hits and the true found. ' +
          ISOLATION,
        body: SearchBody,
        response: { 200: SearchResponse, ...errors },
      },
    },
    async (req, reply) =>
      sendCachedAnswer(reply, answers, searchKey('/search-engine/search', req.caller, req.body), () => search.search(req.caller, req.body), req.caller.changes),
  );

  for (const { path, collection, what } of HELPERS) {
    app.post(
      path,
      {
        schema: {
          tags,
          summary: `Search ${what}`,
          description: `The ${collection} result of /search-engine/search, in the {success, data} envelope; filter_by is its filter. ${ISOLATION}`,
          body: HelperBody,
          response: { 200: Envelope(SearchResult), ...errors },
        },
      },
      async (req, reply) =>
        sendCachedAnswer(
          reply,
          answers,
          searchKey(path, req.caller, req.body),
          async () => ok(await search.searchOne(req.caller, collection, req.body)),
          req.caller.changes,
        ),
    );
  }

  app.get(
    '/search-engine/suggestions',
    {
      schema: {
        tags,
        summary: 'Completions of a prefix from tags and names',
        description:
          'Up to 10 strings: tags that start with q, then display names of assets, folders and collections that start with q, ' +
          'each in byte order, without duplicates that differ only in ASCII case. ' +
          ISOLATION,
        querystring: SuggestionsQuery,
        response: { 200: Envelope(Type.Array(Type.String())), ...errors },
      },
    },
    async (req) => ok(await search.suggest(req.caller, req.query.q, req.query.workspaceId)),
  );
};
