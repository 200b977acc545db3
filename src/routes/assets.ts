import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox';
import { assetSight, sightKey } from '../domain/asset-visibility.js';
import { queryKey, sendCachedAnswer } from '../http/cached-answer.js';
import { Envelope, IdParams, ok } from '../http/schemas.js';
import type { AnswerCache } from '../domain/answer-cache.js';
import type { FreshReads } from '../services/fresh-reads.js';
import type { CatalogService } from '../services/catalog-service.js';
import { AssetDetailSchema, AssetListItemSchema, AssetListQuery, AssetPatchBody, catalogErrors, Deleted, PageOf, PermanentQuery } from '../contracts/catalog.js';

const NOT_VISIBLE =
  'An asset that does not exist, an asset of a workspace the caller is not a member of and a private asset the caller may not see ' +
  'all answer 404 with the same body.';

const PRIVATE_ASSETS =
  'A private asset (visibility not 0) is listed and counted only for its uploader and the workspace\'s managers and admins; ' +
  'other viewers see the public assets and their own private ones.';

export const assetRoutes: FastifyPluginCallbackTypebox<{ catalog: CatalogService; answers: AnswerCache<Buffer>; reads: FreshReads }> = (
  app,
  { catalog, answers, reads },
  done,
) => {
  const assets = catalog.assets;
  const tags = ['assets'];

  app.get(
    '/dam/assets',
    {
      schema: {
        tags,
        summary: 'List the assets of a workspace (viewers and up)',
        description:
          'Ordered by sort_by (name, size or a date, ties by id), by id ascending without it. folder_id omitted lists every asset of the workspace, folder_id=root the assets that are ' +
          'in no folder, folder_id=n the assets directly in folder n (not in its subfolders); folder_id=n&recursive=true the assets of ' +
          'folder n and of all the folders below it (not those in the trash), paged, sorted and counted as one list. recursive=true without ' +
          'a numeric folder_id is 400 VALIDATION_ERROR with field recursive. A folder_id that is not a folder ' +
          'of the workspace is 400 VALIDATION_ERROR with field folder_id. Not a member of the workspace: 404. ' +
          'Unknown query parameters are rejected (400). Assets in the trash are not listed (GET /dam/trash). ' +
          PRIVATE_ASSETS,
        querystring: AssetListQuery,
        response: { 200: Envelope(PageOf(AssetListItemSchema)), ...catalogErrors },
      },
    },
    async (req, reply) => {
      // The page depends on who asks only through their sight (domain/asset-visibility.ts): managers and admins share
      // answers, each viewer has their own. Membership and role are read on every request.
      const key = async () => {
        const role = await reads.requireMember(req.query.workspaceId, req.caller);
        return `GET /dam/assets ${sightKey(assetSight(role, req.caller.id))} ${queryKey(req.query)}`;
      };
      return sendCachedAnswer(reply, answers, key, async () => ok(await assets.list(req.caller, req.query)), req.caller.changes);
    },
  );

  app.get(
    '/dam/assets/:id',
    {
      schema: {
        tags,
        summary: 'One asset (viewers and up)',
        description:
          'With `embedded_metadata`, the tag set read from its file (lists leave it out). The embedded fields (taken_at, camera, ' +
          'GPS, caption…) are read by a job shortly after each upload, new version and restore; metadata_version_id says which ' +
          'version they come from. ' +
          NOT_VISIBLE,
        params: IdParams,
        response: { 200: Envelope(AssetDetailSchema), ...catalogErrors },
      },
    },
    async (req) => ok(await assets.get(req.caller, req.params.id)),
  );

  app.patch(
    '/dam/assets/:id',
    {
      schema: {
        tags,
        summary: 'Edit an asset: display name, tags, visibility, folder, metadata, caption, creator, copyright, usage terms (managers and admins)',
        description:
          'Only the properties sent change; at least one is required and unknown properties are rejected (400). ' +
          'tags and metadata are replaced as a whole (no merge). folder_id null moves the asset out of any folder; a folder_id ' +
          'that is not a folder of the asset\'s workspace (missing, in the trash or in another workspace, indistinguishable) is 400 ' +
          'VALIDATION_ERROR with field folder_id. modified_at is set on every successful PATCH. ' +
          'file_name, mime_type, size and dimensions (hence file_type and orientation) are facts of the file, not editable here. ' +
          'caption, creator, copyright and usage_terms (string, or null to clear; blank counts as null) are the descriptive fields also ' +
          'read from the file: each one sent joins metadata_edited and is never overwritten by a later read of the file (of this or a ' +
          'new version); the other embedded fields are read-only, and so is embedded_metadata (not a property of this body). ' +
          'Answers the asset as GET does. ' +
          NOT_VISIBLE,
        params: IdParams,
        body: AssetPatchBody,
        response: { 200: Envelope(AssetDetailSchema), ...catalogErrors },
      },
    },
    async (req) => ok(await assets.update(req.caller, req.params.id, req.body)),
  );

  app.delete(
    '/dam/assets/:id',
    {
      schema: {
        tags,
        summary: 'Move an asset to the trash, or delete it at once (managers and admins; permanent: admins)',
        description:
          'The asset moves to its workspace\'s trash (GET /dam/trash): from then on it is missing from every list, search, ' +
          'collection (asset_ids, asset_count) and version endpoint, and its GET, downloads and version URLs answer 404, ' +
          'until POST /dam/trash/restore brings it back where it was, collections included. Its files stay stored (and ' +
          'counted) until it is purged, DAM_TRASH_DAYS after deletion, or the trash is emptied. permanent=true (workspace ' +
          'admins; 403 for others) deletes it at once instead: it leaves every collection it was in, the positions of ' +
          'those collections are closed up, and its files are removed. ' +
          NOT_VISIBLE,
        params: IdParams,
        querystring: PermanentQuery,
        response: { 200: Envelope(Deleted), ...catalogErrors },
      },
    },
    async (req) => {
      await assets.remove(req.caller, req.params.id, req.query.permanent ?? false);
      return ok({ id: req.params.id });
    },
  );
  done();
};
