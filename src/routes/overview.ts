import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { MapConfig } from '../config.js';
import { Envelope, ErrorBody, ok } from '../http/schemas.js';
import { GeoAnswer, GeoQuery, MapTiles, MAX_MONTHS, TimelineAnswer, TimelineQuery } from '../search/overview/schemas.js';
import type { OverviewService } from '../services/overview-service.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody };
const tags = ['assets'];

const SAME_AS_SEARCH =
  'The assets are those a search of digital_assets with the same q and filter_by finds (POST /search-engine/search-assets, ' +
  'whose filter grammar this is): only completed uploads of the caller\'s workspaces, nothing in the trash, and a private asset ' +
  '(visibility not 0) only for its uploader and the workspace\'s managers and admins. workspaceId narrows to one workspace ' +
  '(not a member: 404). A malformed filter_by is 400 naming its position.';

/** The library's map and timeline (issue #27): positions, months, and the tile layer the web client draws the map with. */
export const overviewRoutes: FastifyPluginAsyncTypebox<{ overview: OverviewService; map: MapConfig }> = async (app, { overview, map }) => {
  app.get(
    '/dam/assets/geo',
    {
      schema: {
        tags,
        summary: 'Positions of the assets a search finds, for a map (viewers and up)',
        description:
          'One [id, latitude, longitude] per asset with a GPS position (embedded metadata), newest assets first, at most `limit` ' +
          '(default 10,000, at most 50,000); `truncated` says more have a position. Clients cluster the points themselves and ' +
          'read an asset\'s thumbnail from GET /dam/assets/{id} when it is opened. ' +
          SAME_AS_SEARCH,
        querystring: GeoQuery,
        response: { 200: Envelope(GeoAnswer), ...errors },
      },
    },
    async (req) => ok(await overview.geo(req.caller, req.query)),
  );

  app.get(
    '/dam/assets/timeline',
    {
      schema: {
        tags,
        summary: 'How many assets a search finds per month taken, for a timeline (viewers and up)',
        description:
          'Counts per month (UTC) of the date taken (embedded metadata), newest month first, and the count without a date. ' +
          'With sort_by=taken_at:desc a search lists the same assets in the same order (undated last), so the position of ' +
          `each month in that list is the sum of the counts before it. At most ${MAX_MONTHS} months (the newest; \`truncated\`). ` +
          SAME_AS_SEARCH,
        querystring: TimelineQuery,
        response: { 200: Envelope(TimelineAnswer), ...errors },
      },
    },
    async (req) => ok(await overview.timeline(req.caller, req.query)),
  );

  app.get(
    '/dam/map',
    {
      schema: {
        tags,
        summary: 'The tile layer of the map view',
        description:
          'The URL template and attribution of the map tiles (DAM_MAP_TILE_URL, DAM_MAP_ATTRIBUTION; OpenStreetMap\'s by default). ' +
          'Browsers load the tiles from there directly: the web client\'s Content-Security-Policy allows images from that origin only.',
        response: { 200: Envelope(MapTiles), 401: ErrorBody },
      },
    },
    async () => ok({ tile_url: map.tileUrl, attribution: map.attribution }),
  );
};
