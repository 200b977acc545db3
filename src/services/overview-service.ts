import type { AppContext } from '../context.js';
import { KIND } from '../search/collections.js';
import { textSearchDialects, type TextSearchDialect } from '../search/dialects/index.js';
import { compileFilter, predicateSql, requiredWords } from '../search/filter/index.js';
import { overviewDialects, type OverviewDialect } from '../search/overview/dialects.js';
import { geoPoints, monthCounts } from '../search/overview/repository.js';
import { DEFAULT_GEO_POINTS, MAX_MONTHS, type GeoQuery, type TimelineQuery } from '../search/overview/schemas.js';
import type { SearchPlan } from '../search/repository.js';
import { queryWords } from '../search/text-query.js';
import type { Caller } from './auth-service.js';
import type { SearchService } from './search-service.js';

/**
 * The library's map and timeline (issue #27): where and when the assets of a search were taken, as positions and
 * counts per month. The same request as a search's (q, filter_by, a workspace) and the same scope: the caller's
 * workspaces, and in those where they are a viewer no private asset of someone else (SearchService.scope).
 */
export class OverviewService {
  private readonly text: TextSearchDialect;
  private readonly dialect: OverviewDialect;

  constructor(
    private readonly ctx: AppContext,
    private readonly search: SearchService,
  ) {
    this.text = textSearchDialects[ctx.database.dialect];
    this.dialect = overviewDialects[ctx.database.dialect];
  }

  async geo(caller: Caller, query: GeoQuery) {
    const plan = await this.plan(caller, query);
    if (!plan) return { points: [], truncated: false };
    return geoPoints(this.ctx.db, this.text, plan, query.limit ?? DEFAULT_GEO_POINTS);
  }

  async timeline(caller: Caller, query: TimelineQuery) {
    const plan = await this.plan(caller, query);
    if (!plan) return { months: [], undated: 0, truncated: false };
    return monthCounts(this.ctx.db, this.text, this.dialect, plan, MAX_MONTHS);
  }

  /** The search plan of the request's assets (no order, no facets); null when the caller has no workspace. Input is checked first. */
  private async plan(caller: Caller, query: TimelineQuery): Promise<SearchPlan | null> {
    const predicate = compileFilter(query.filter_by, 'filter_by');
    const words = queryWords(query.q ?? '*');
    const { workspaceIds, viewer } = await this.search.scope(caller, query.workspaceId);
    if (workspaceIds.length === 0) return null;
    const filter = predicate && predicateSql(predicate, workspaceIds, viewer);
    return { kind: KIND.digital_assets, workspaceIds, viewer, words, filter, required: requiredWords(predicate), sort: null };
  }
}
