import { Type, type Static } from 'typebox';
import { Id } from '../../http/schemas.js';
import { Filter, Q } from '../schemas.js';

/** TypeBox schemas of the map's points and the timeline's months (issue #27): requests, answers, the map's tile layer. */

const strict = { additionalProperties: false } as const;

export const MAX_GEO_POINTS = 50_000;
export const DEFAULT_GEO_POINTS = 10_000;
/** 200 years of months: more is a library with implausible dates, answered with `truncated`. */
export const MAX_MONTHS = 2_400;

const overviewQuery = {
  workspaceId: Type.Optional(Id('One workspace of the caller (not a member: 404). Omitted: every workspace of the caller')),
  q: Type.Optional(Q),
  filter_by: Type.Optional(Filter),
};

export const GeoQuery = Type.Object(
  {
    ...overviewQuery,
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_GEO_POINTS, default: DEFAULT_GEO_POINTS, description: `Most points answered (default ${DEFAULT_GEO_POINTS})` }),
    ),
  },
  strict,
);
export type GeoQuery = Static<typeof GeoQuery>;

export const GeoAnswer = Type.Object({
  points: Type.Array(Type.Array(Type.Number(), { minItems: 3, maxItems: 3 }), {
    description: '[asset id, latitude, longitude] (degrees north and east) of each matching asset with a position, newest assets (highest id) first',
  }),
  truncated: Type.Boolean({ description: 'More assets with a position match than `limit`: narrow the search (e.g. a gps:[...] box) to see the rest' }),
});

export const TimelineQuery = Type.Object(overviewQuery, strict);
export type TimelineQuery = Static<typeof TimelineQuery>;

export const TimelineAnswer = Type.Object({
  months: Type.Array(
    Type.Object({ month: Type.String({ description: 'YYYY-MM, UTC' }), count: Type.Integer({ description: 'Matching assets taken in that month' }) }),
    { description: 'Months with at least one matching asset, newest first: the order of sort_by=taken_at:desc' },
  ),
  undated: Type.Integer({ description: 'Matching assets without a date taken: they follow the last month in the taken_at order' }),
  truncated: Type.Boolean({ description: `More than ${MAX_MONTHS} months have assets; the newest ${MAX_MONTHS} are answered` }),
});

export const MapTiles = Type.Object({
  tile_url: Type.String({ description: 'URL template of the map tiles ({s} subdomain, {z}/{x}/{y}, {r} @2x), from DAM_MAP_TILE_URL' }),
  attribution: Type.String({ description: 'HTML credit the tile provider requires (links), from DAM_MAP_ATTRIBUTION' }),
});
