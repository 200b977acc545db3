import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Envelope, ok } from '../http/schemas.js';
import type { TrashService } from '../services/trash-service.js';
import { catalogErrors, PageOf } from '../contracts/catalog.js';
import { RestoreResults, TrashEmptied, TrashEmptyQuery, TrashItemSchema, TrashListQuery, TrashRestoreBody } from '../contracts/trash.js';

const PURGE =
  'Items stay in the trash for DAM_TRASH_DAYS days (30 by default; purge_at says until when), then housekeeping deletes them ' +
  'for good and only then are their files removed from storage; until then they count as stored.';

/** The trash of a workspace (issue #11): list, restore, empty. Deleting moves things here (DELETE on assets, folders, collections). */
export const trashRoutes: FastifyPluginAsyncTypebox<{ trash: TrashService }> = async (app, { trash }) => {
  const tags = ['trash'];

  app.get(
    '/dam/trash',
    {
      schema: {
        tags,
        summary: "List a workspace's trash (viewers and up)",
        description:
          'Assets, folders and collections that were deleted without permanent=true, newest deletion first (then by kind and ' +
          'id). A folder deleted with its contents lists each subfolder and asset of it too, with the same deleted_at. ' +
          PURGE +
          ' Not a member of the workspace: 404.',
        querystring: TrashListQuery,
        response: { 200: Envelope(PageOf(TrashItemSchema)), ...catalogErrors },
      },
    },
    async (req) => ok(await trash.list(req.caller, req.query)),
  );

  app.post(
    '/dam/trash/restore',
    {
      schema: {
        tags,
        summary: 'Restore items from the trash (managers and admins)',
        description:
          'Brings the listed items back where they were, with their names, tags and collection memberships, and answers one ' +
          'result per id. A folder comes back with the subfolders and assets deleted together with it; items deleted on ' +
          'their own before it stay in the trash. A restored item whose folder (or a folder above it) is in the trash brings ' +
          'that folder back too, without its other contents. An item whose folder no longer exists (deleted with ' +
          'permanent=true) comes back at the top level. An id that is not in this workspace\'s trash (never was, already ' +
          'restored, purged, or of another workspace) is ok false with code NOT_FOUND and changes nothing. All in one ' +
          'transaction. At least one of asset_ids, folder_ids, collection_ids is required.',
        body: TrashRestoreBody,
        response: { 200: Envelope(RestoreResults), ...catalogErrors },
      },
    },
    async (req) => ok(await trash.restore(req.caller, req.body)),
  );

  app.delete(
    '/dam/trash',
    {
      schema: {
        tags,
        summary: "Empty a workspace's trash now (admins)",
        description:
          'Deletes every item in the trash for good, at once, and answers how many of each kind went. Their files are ' +
          'queued for deletion and removed from storage by housekeeping within a minute. Managers and viewers: 403.',
        querystring: TrashEmptyQuery,
        response: { 200: Envelope(TrashEmptied), ...catalogErrors },
      },
    },
    async (req) => ok(await trash.empty(req.caller, req.query.workspaceId)),
  );
};
