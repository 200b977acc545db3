import { request } from './http';
import type { SearchRequest, SearchResponse } from './types';

/** seed 4.1: POST /search-engine/search. */
export const searchApi = {
  search: (body: SearchRequest, signal?: AbortSignal) => request<SearchResponse>('POST', '/search-engine/search', { body, signal }),
};
