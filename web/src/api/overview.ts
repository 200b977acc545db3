import { requestData } from './http';
import type { DataOf, QueryOf } from './schema';

/** The library's map and timeline (issue #27): positions and months of the assets a search finds, and the map's tiles. */
export type GeoAnswer = DataOf<'/dam/assets/geo', 'get'>;
export type TimelineAnswer = DataOf<'/dam/assets/timeline', 'get'>;
export type MapTiles = DataOf<'/dam/map', 'get'>;
export type OverviewQuery = QueryOf<'/dam/assets/timeline', 'get'>;

export const overviewApi = {
  geo: (query: OverviewQuery & { limit?: number }, signal?: AbortSignal) => requestData<GeoAnswer>('GET', '/dam/assets/geo', { query, signal }),
  timeline: (query: OverviewQuery, signal?: AbortSignal) => requestData<TimelineAnswer>('GET', '/dam/assets/timeline', { query, signal }),
  tiles: () => requestData<MapTiles>('GET', '/dam/map'),
};
