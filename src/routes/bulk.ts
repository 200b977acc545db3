import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Envelope, ErrorBody, ok } from '../http/schemas.js';
import type { BulkService } from '../services/bulk-service.js';
import { BulkBody, BulkResults } from '../contracts/bulk.js';
import { catalogErrors } from '../contracts/catalog.js';

/** Bulk operations on assets (issue #11). */
export const bulkRoutes: FastifyPluginAsyncTypebox<{ bulk: BulkService }> = async (app, { bulk }) => {
  app.post(
    '/dam/assets/bulk',
    {
      schema: {
        tags: ['assets'],
        summary: 'One action on many assets of a workspace (managers and admins)',
        description:
          'One request, one transaction: up to 1,000 asset ids (no duplicates) and one action, answered with a result per ' +
          'id in the order given. delete moves the assets to the trash (as DELETE /dam/assets/:id); move sets their folder ' +
          '(folder_id: a folder of the workspace, or null for the top level); tag adds tags to each asset\'s own (merged, ' +
          'no duplicates; an asset that would have more than 100 is ok false with code VALIDATION_ERROR and keeps its tags); ' +
          'untag removes them; set_visibility sets visibility. Each action takes exactly its own field: folder_id for move, ' +
          'tags for tag and untag, visibility for set_visibility, none for delete; a missing or extra field is 400 ' +
          'VALIDATION_ERROR naming it. A folder_id that is not a folder of the workspace (missing, in the trash or of another ' +
          'workspace) is 400 with field folder_id and nothing changes. An id that is not an asset of the workspace (missing, ' +
          'in the trash, or of another workspace: indistinguishable) is ok false with code NOT_FOUND and is left alone; the ' +
          'others are acted on. move and set_visibility set modified_at as PATCH does, tag and untag on the assets whose tags ' +
          'change. Not a member of the workspace: 404. ' +
          'Instead of asset_ids (exactly one of the two, else 400 naming asset_ids), `search` selects every asset of the ' +
          'workspace that q and filter_by find for the caller, as /search-engine/search-assets does with its default typo options ' +
          '(private assets the caller ' +
          'does not see, uploading ones and the trash are never touched), less `except_ids` (taken only with search). The ' +
          'search is run once, before any write; more than DAM_BULK_SEARCH_MAX assets (10,000 by default) after except_ids ' +
          'is 422 BULK_TOO_MANY_MATCHES naming both numbers, and nothing changes. The assets found are acted on in id order, ' +
          '1,000 per transaction: a search-based action is not atomic (a chunk committed stays when a later one fails, and an ' +
          'asset changed meanwhile is acted on as it is then; one deleted meanwhile is ok false NOT_FOUND). Its answer is ' +
          'counts, not one result per asset: matched (assets tried), succeeded, and results listing only the failures.',
        body: BulkBody,
        response: { 200: Envelope(BulkResults), ...catalogErrors, 422: ErrorBody },
      },
    },
    async (req) => ok(await bulk.run(req.caller, req.body)),
  );
};
