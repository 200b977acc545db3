import type { AppContext } from '../context.js';
import type { ViewerWorkspaces } from '../domain/asset-visibility.js';
import type { MediaGrant } from '../media/links.js';
import { parseSearchSortOrder, type SearchSortOrder } from '../domain/sort-orders.js';
import { notFound } from '../errors.js';
import { COLLECTION_NAMES, KIND, type CollectionName } from '../search/collections.js';
import { textSearchDialects, type TextSearchDialect } from '../search/dialects/index.js';
import { bindCustomFields, compileFilter, customKeys, predicateSql, requiredWords, type Predicate } from '../search/filter/index.js';
import { customFacetPlan, labelCustomFacets, loadCustomCatalogue } from './custom-fields/custom-catalogue.js';
import { foldAscii } from '../search/filter/bind.js';
import { facetDialects, isCustomFacet, parseFacetBy, toFacetCounts, type FacetDialect, type FacetField } from '../search/facets/index.js';
import { matchingIds, searchDocuments, suggestions, type DocumentRow, type MatchedIds, type SearchPlan } from '../search/repository.js';
import type { HelperBody, SearchBody, SearchDocument, SearchResponse, SearchResult } from '../search/schemas.js';
import { queryWords } from '../search/text-query.js';
import type { TypoOptions } from '../search/typos/options.js';
import { typosAsked } from '../search/typos/schemas.js';
import type { Caller } from './auth-service.js';
import type { FreshReads } from './fresh-reads.js';
import { forgiving } from './typo-search.js';

/** seed 8: per_page defaults to 10, page to 1. */
const DEFAULT_PER_PAGE = 10;
const SUGGESTIONS = 10;
const MAX_ID = 2_147_483_647;

/** One collection's query, as both the multi-search and the helper endpoints ask it. */
interface CollectionQuery {
  collection: CollectionName;
  q: string;
  filter: string | undefined;
  /** Request field named by filter errors. */
  filterField: string;
  sortBy: SearchSortOrder | undefined;
  page: number;
  perPage: number;
  facets: FacetsAsked;
  /** Typo tolerance (issue #27): num_typos, min_len_1typo, min_len_2typo, typo_tokens_threshold. */
  typos: TypoOptions;
}

/** facet_by and max_facet_values (issue #12), checked. */
interface FacetsAsked {
  fields: FacetField[];
  limit: number;
  /** The request member, for a 400 about a custom facet (fields.<key>) once the workspaces are known. */
  field: string;
}

/** Typesense's default max_facet_values. */
const DEFAULT_FACET_VALUES = 10;

function facetsAsked(facetBy: string | undefined, maxValues: number | undefined, field: string): FacetsAsked {
  return { fields: parseFacetBy(facetBy, field), limit: maxValues ?? DEFAULT_FACET_VALUES, field };
}

/** Signed media URLs of assets' current versions, for the caller (`grant`: media URLs serve while it holds, media/links.ts). */
export type AssetLinks = (assetIds: readonly number[], grant: MediaGrant) => Promise<Map<number, { thumbnail_url: string; file_url: string }>>;

export function toSearchDocument(row: DocumentRow): SearchDocument {
  const doc: SearchDocument = {
    id: String(row.id),
    workspace_id: row.workspace_id,
    display_file_name: row.name,
    file_type: row.file_type,
    modified_at: row.modified_at,
    created_at: row.created_at,
    tags: row.tags,
    visibility: row.visibility,
    orientation: row.orientation,
    folder_id: row.folder_id,
  };
  if (row.file_name !== null) {
    Object.assign(doc, { file_name: row.file_name, mime_type: row.mime_type ?? '', file_size: row.file_size ?? 0, width: row.width, height: row.height });
    doc.sha256 = row.sha256 ?? null;
    doc.unreadable = (row.unreadable_reason ?? null) !== null;
    doc.unreadable_reason = row.unreadable_reason ?? null;
  }
  if (row.description !== null) doc.description = row.description;
  if (row.embedded) Object.assign(doc, row.embedded);
  return doc;
}

/**
 * The workspaces a search reads, and those of them where the caller is a viewer: there, private assets show only when
 * the caller uploaded them (domain/asset-visibility.ts), in hits, counts, facets, suggestions and duplicate_of.
 */
export interface SearchScope {
  readonly workspaceIds: number[];
  readonly viewer: ViewerWorkspaces | null;
}

/** What each collection holds, for the meaning of a size order (sort-orders.ts). */
const LISTED = { digital_assets: 'assets', digital_assets_categories: 'folders', dam_collections: 'collections' } as const;

/**
 * Search over assets, folders and collections (issue #4, seed 4.1, 4.2).
 * Validates first (filters, q), then decides the workspaces (seed 5: only
 * the caller's; an explicit one the caller is not in is 404), then runs one
 * count and one page per collection.
 */
export class SearchService {
  private readonly text: TextSearchDialect;
  private readonly facetDialect: FacetDialect;

  constructor(
    private readonly ctx: AppContext,
    /** Signed thumbnail and file URLs of assets' current versions (issue #5: search documents carry them). */
    private readonly assetLinks: AssetLinks,
    private readonly reads: FreshReads,
  ) {
    this.text = textSearchDialects[ctx.database.dialect];
    this.facetDialect = facetDialects[ctx.database.dialect];
  }

  async search(caller: Caller, body: SearchBody): Promise<SearchResponse> {
    const collections = body.request.collections ?? [...COLLECTION_NAMES];
    const params = body.commonSearchParams;
    const facets = facetsAsked(params?.facet_by, params?.max_facet_values, 'commonSearchParams.facet_by');
    const queries = collections.map((collection) => ({
      collection,
      q: body.request.q ?? '*',
      filter: body.filterQuery?.[collection],
      filterField: `filterQuery.${collection}`,
      sortBy: body.request.sort_by,
      page: params?.page ?? 1,
      perPage: params?.per_page ?? DEFAULT_PER_PAGE,
      facets,
      typos: typosAsked(params),
    }));
    // A filter of a collection that was not asked for is still checked, so a mistake never passes silently.
    for (const name of COLLECTION_NAMES) {
      if (!collections.includes(name)) compileFilter(body.filterQuery?.[name], `filterQuery.${name}`);
    }
    return { results: await this.run(caller, queries, body.workspace_id_filter) };
  }

  async searchOne(caller: Caller, collection: CollectionName, body: HelperBody): Promise<SearchResult> {
    const query: CollectionQuery = {
      collection,
      q: body.q ?? '*',
      filter: body.filter_by,
      filterField: 'filter_by',
      sortBy: body.sort_by,
      page: body.page ?? 1,
      perPage: body.per_page ?? DEFAULT_PER_PAGE,
      facets: facetsAsked(body.facet_by, body.max_facet_values, 'facet_by'),
      typos: typosAsked(body),
    };
    const [result] = await this.run(caller, [query], body.workspace_id_filter);
    return result!;
  }

  /**
   * The ids of one workspace's assets that q and filter_by match for the caller (issue #27: a bulk action over a
   * search), under the rules of every search: the caller's membership (404), the private-asset rule, nothing
   * uploading or in the trash, and typos forgiven as a search with the default typo options forgives them (so the
   * assets are those the library showed). In id order, at most `limit`, with how many match in all. `field` names the
   * request member in a filter's 400.
   */
  async matchingAssetIds(caller: Caller, workspaceId: number, search: { q?: string; filter_by?: string }, field: string, limit: number): Promise<MatchedIds> {
    const compiled = compileFilter(search.filter_by, `${field}.filter_by`);
    const words = queryWords(search.q ?? '*');
    const { workspaceIds, viewer } = await this.workspaces(caller, workspaceId);
    const predicate = await this.withCustomFields(compiled, workspaceIds, `${field}.filter_by`);
    const filter = predicate && predicateSql(predicate, workspaceIds, viewer);
    const plan: SearchPlan = { kind: KIND.digital_assets, workspaceIds, viewer, words, filter, required: requiredWords(predicate), sort: null };
    // The typo rule of a search (typo-search.ts), over ids instead of a page.
    return forgiving(this.ctx.db, this.text, plan, typosAsked(undefined), (p) => matchingIds(this.ctx.db, this.text, p, limit));
  }

  /** Up to 10 completions: tags, then names, that start with q (ASCII case folded), without case duplicates. */
  async suggest(caller: Caller, q: string, workspaceId: number | undefined): Promise<string[]> {
    const { workspaceIds, viewer } = await this.workspaces(caller, workspaceId);
    if (workspaceIds.length === 0) return [];
    const seen = new Set<string>();
    const out: string[] = [];
    for (const text of await suggestions(this.ctx.db, workspaceIds, foldAscii(q), SUGGESTIONS, viewer)) {
      const key = foldAscii(text);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(text);
    }
    return out.slice(0, SUGGESTIONS);
  }

  private async run(caller: Caller, queries: CollectionQuery[], workspaceFilter: string | number | undefined): Promise<SearchResult[]> {
    const planned = queries.map((query) => {
      const predicate = compileFilter(query.filter, query.filterField);
      return { query, words: queryWords(query.q), predicate, required: requiredWords(predicate) };
    });
    const { workspaceIds, viewer } = await this.workspaces(caller, workspaceFilter === undefined ? undefined : Number(workspaceFilter));
    return Promise.all(
      planned.map(async ({ query, words, predicate, required }) => {
        const result: SearchResult = {
          collection: query.collection,
          hits: [],
          found: 0,
          page: query.page,
          request_params: { q: query.q, collection: query.collection, per_page: query.perPage },
          facet_counts: toFacetCounts(query.facets.fields, [], 0, false),
        };
        if (workspaceIds.length === 0) return result;
        const sort = query.sortBy ? parseSearchSortOrder(query.sortBy, LISTED[query.collection]) : null;
        // The SQL once the workspaces are known: embedded-metadata filters read their tables within them, and custom
        // fields (issue #30) are those the workspaces define, for filters and facets alike.
        const { fields, limit } = query.facets;
        const customFacets = fields.filter(isCustomFacet).map((f) => f.slice('fields.'.length));
        const keys = [...new Set([...customKeys(predicate), ...customFacets])];
        const catalogue = keys.length ? await loadCustomCatalogue(this.ctx.db, workspaceIds, keys, customFacets.length ? query.facets.field : query.filterField) : null;
        const bound = predicate && catalogue && customKeys(predicate).length ? bindCustomFields(predicate, catalogue, query.filterField) : predicate;
        const filter = bound && predicateSql(bound, workspaceIds, viewer);
        const custom = catalogue && customFacets.length ? customFacetPlan(catalogue, customFacets, query.facets.field) : undefined;
        const facets = fields.length ? { fields, limit, sample: this.ctx.config.searchFacetSample, dialect: this.facetDialect, custom } : null;
        const plan: SearchPlan = { kind: KIND[query.collection], workspaceIds, viewer, words, filter, required, sort, facets };
        const offset = (query.page - 1) * query.perPage;
        const { found, rows, facets: counted } = await forgiving(this.ctx.db, this.text, plan, query.typos, (p) =>
          searchDocuments(this.ctx.db, this.text, p, query.perPage, offset),
        );
        const links = query.collection === 'digital_assets' ? await this.assetLinks(rows.map((r) => r.id), { userId: caller.id }) : undefined;
        const hits = rows.map((row) => ({ document: { ...toSearchDocument(row), ...links?.get(row.id) } }));
        const counts = toFacetCounts(fields, counted?.rows ?? [], found, counted?.sampled ?? false);
        const facet_counts = catalogue && customFacets.length ? await labelCustomFacets(this.ctx.db, counts, catalogue) : counts;
        return { ...result, found, hits, facet_counts };
      }),
    );
  }

  /** The filter with its fields.<key> conditions checked against the searched workspaces' fields (issue #30). */
  private async withCustomFields(predicate: Predicate | null, workspaceIds: readonly number[], requestField: string): Promise<Predicate | null> {
    const keys = customKeys(predicate);
    if (!predicate || keys.length === 0) return predicate;
    return bindCustomFields(predicate, await loadCustomCatalogue(this.ctx.db, workspaceIds, keys, requestField), requestField);
  }

  /**
   * The workspaces a search of the caller reads (all theirs, or the one of workspace_id_filter, which they must be a
   * member of) and where the caller is a viewer: what an answer depends on besides the request and the caller (whose
   * media URLs it holds), checked on every request (routes/search.ts).
   */
  scope(caller: Caller, workspaceFilter: string | number | undefined): Promise<SearchScope> {
    return this.workspaces(caller, workspaceFilter === undefined ? undefined : Number(workspaceFilter));
  }

  private async workspaces(caller: Caller, workspaceId: number | undefined): Promise<SearchScope> {
    const scope = (members: { id: number; role: string }[]): SearchScope => {
      const viewerOf = members.filter((m) => m.role === 'viewer').map((m) => m.id);
      return { workspaceIds: members.map((m) => m.id), viewer: viewerOf.length ? { userId: caller.id, workspaceIds: viewerOf } : null };
    };
    if (workspaceId !== undefined) {
      // Ids are 32-bit integers; a larger one is no workspace of the caller (and never reaches SQL).
      if (workspaceId > MAX_ID) throw notFound('Workspace');
      return scope([{ id: workspaceId, role: await this.reads.requireMember(workspaceId, caller) }]);
    }
    return scope(await this.reads.workspacesOf(caller));
  }
}
