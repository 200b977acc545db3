import type { AppContext } from '../context.js';
import { appError } from '../errors.js';
import type { Caller } from './auth-service.js';
import { badReference } from './catalog-access.js';
import type { SearchService } from './search-service.js';

/** How a bulk request names its assets (issue #11, #27): ids, or a search less except_ids. */
export interface BulkSelection {
  workspaceId: number;
  asset_ids?: number[];
  search?: { q?: string; query_by?: string; filter_by?: string };
  except_ids?: number[];
}

/** Exactly one of asset_ids and search; except_ids only with search. */
export function checkSelection(body: BulkSelection): void {
  if ((body.asset_ids === undefined) === (body.search === undefined)) {
    throw badReference('asset_ids', 'give exactly one of asset_ids and search');
  }
  if (body.except_ids !== undefined && body.search === undefined) throw badReference('except_ids', 'taken only with search');
}

/**
 * The assets a search-based request acts on: what the search finds for the caller (visibility rule and all), in
 * id order, less except_ids; over DAM_BULK_SEARCH_MAX a 422 before anything is written.
 */
export async function searchedAssets(ctx: AppContext, search: SearchService, caller: Caller, body: BulkSelection): Promise<number[]> {
  const max = ctx.config.bulkSearchMax;
  const except = new Set(body.except_ids ?? []);
  // Reading except_ids.length more than the cap tells exactly whether what remains is over it.
  const { found, ids } = await search.matchingAssetIds(caller, body.workspaceId, body.search ?? {}, 'search', max + except.size);
  const kept = ids.filter((id) => !except.has(id));
  if (found > ids.length || kept.length > max) {
    const outside = found > ids.length ? `at least ${found - except.size}` : String(kept.length);
    const besides = except.size ? ` (${outside} besides except_ids)` : '';
    throw appError('BULK_TOO_MANY_MATCHES', `search: the search matches ${found} assets${besides}; one bulk action takes at most ${max}: narrow the search`, {
      field: 'search',
      found,
      max,
    });
  }
  return kept;
}
