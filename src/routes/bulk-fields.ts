import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox';
import { Envelope, ErrorBody, IdParams, ok } from '../http/schemas.js';
import { BulkFieldsBody, BulkFieldsResults, BulkUndoResults } from '../contracts/bulk-fields.js';
import type { BulkFieldService } from '../services/custom-fields/bulk-field-service.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody };

/** Bulk edits of custom fields (issue #30, docs/features/custom-metadata.md "Bulk edit"). */
export const bulkFieldRoutes: FastifyPluginCallbackTypebox<{ bulkFields: BulkFieldService }> = (app, { bulkFields }, done) => {
  app.post(
    '/dam/bulk/fields',
    {
      schema: {
        tags: ['fields'],
        summary: "Set, clear, add to, remove from or find-and-replace custom fields on many assets (managers and admins)",
        description:
          'The assets: asset_ids (up to 1,000, answered one result each in order), or search (q and filter_by as in ' +
          '/search-engine/search-assets, less except_ids, at most DAM_BULK_SEARCH_MAX; answered with the failures only; 422 ' +
          'BULK_TOO_MANY_MATCHES over it). The operations are checked first, and any problem is 400 (or 403 for a field ' +
          'editable by admins) naming operations.<i> before anything changes: an unknown, retired or non-asset key, a key ' +
          'named twice, an op its type does not take (add/remove: multi_select; replace: text types). Then each asset is ' +
          'edited all-or-nothing: a value refused (a required field cleared, a deprecated option, a replace making an ' +
          'invalid URL) leaves that asset as it was and is reported ok false with its code; the others are written, 1,000 ' +
          'per transaction, each change in the activity log. The answer has the edit id for POST /dam/bulk/fields/{id}/undo.',
        body: BulkFieldsBody,
        response: { 200: Envelope(BulkFieldsResults), ...errors, 422: ErrorBody },
      },
    },
    async (req) => ok(await bulkFields.run(req.caller, req.body)),
  );

  app.post(
    '/dam/bulk/fields/:id/undo',
    {
      schema: {
        tags: ['fields'],
        summary: 'Undo a bulk edit of custom fields (managers and admins)',
        description:
          'Puts back the values each asset held before the edit, on the assets whose values of those keys are still what the ' +
          'edit left; an asset changed since is left alone and reported (CONFLICT), as is one whose old value is no longer ' +
          'accepted (VALIDATION_ERROR). Each restore is in the activity log. Once only: again is 409 CONFLICT. An edit of a ' +
          'workspace the caller is not a member of answers 404 like a missing one.',
        params: IdParams,
        response: { 200: Envelope(BulkUndoResults), ...errors },
      },
    },
    async (req) => ok(await bulkFields.undo(req.caller, req.params.id)),
  );

  done();
};
