import { request, requestData } from './http';
import type { DataOf } from './schema';
import type { SearchRequest, SearchResponse } from './types';

/** seed 4.1: POST /search-engine/search; seed 4.2: GET /search-engine/suggestions. */
export const searchApi = {
  search: (body: SearchRequest, signal?: AbortSignal) => request<SearchResponse>('POST', '/search-engine/search', { body, signal }),
  /** Up to 10 completions of a prefix: the workspace's tags first, then names of assets, folders and collections. */
  suggestions: (q: string, workspaceId: number | null, signal?: AbortSignal) =>
    requestData<DataOf<'/search-engine/suggestions', 'get'>>('GET', '/search-engine/suggestions', { query: { q, workspaceId }, signal }),
};

export type SuggestFn = (q: string, workspaceId: number | null, signal?: AbortSignal) => Promise<string[]>;
