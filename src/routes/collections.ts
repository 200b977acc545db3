import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox';
import { Envelope, IdParams, ok } from '../http/schemas.js';
import type { CatalogService } from '../services/catalog-service.js';
import {
  AssetIdsBody,
  catalogErrors,
  CollectionCreateBody,
  CollectionDetailSchema,
  CollectionListQuery,
  CollectionPatchBody,
  CollectionSchema,
  Deleted,
  PageOf,
  PermanentQuery,
} from '../contracts/catalog.js';

const NOT_VISIBLE =
  'A collection that does not exist and a collection of a workspace the caller is not a member of both answer 404 with the same body.';

export const collectionRoutes: FastifyPluginCallbackTypebox<{ catalog: CatalogService }> = (app, { catalog }, done) => {
  const collections = catalog.collections;
  const tags = ['collections'];

  app.post(
    '/dam/collections',
    {
      config: { idempotent: true },
      schema: {
        tags,
        summary: 'Create a collection (managers and admins)',
        description: 'The workspace is named in the body as workspace_id. The new collection is empty.',
        body: CollectionCreateBody,
        response: { 201: Envelope(CollectionDetailSchema), ...catalogErrors },
      },
    },
    async (req, reply) => reply.status(201).send(ok(await collections.create(req.caller, req.body))),
  );

  app.get(
    '/dam/collections',
    {
      schema: {
        tags,
        summary: 'List the collections of a workspace (viewers and up)',
        description:
          'Ordered by sort_by (name or a date, ties by id; a size order sorts by name), by id ascending without it; each item carries asset_count, not the asset ids. Collections in the trash are not listed, ' +
          'and assets in the trash are not counted. Not a member of the workspace: 404.',
        querystring: CollectionListQuery,
        response: { 200: Envelope(PageOf(CollectionSchema)), ...catalogErrors },
      },
    },
    async (req) => ok(await collections.list(req.caller, req.query)),
  );

  app.get(
    '/dam/collections/:id',
    {
      schema: {
        tags,
        summary: 'One collection with its ordered asset ids (viewers and up)',
        description: 'asset_ids and asset_count leave out assets in the trash (they come back in place when restored). ' + NOT_VISIBLE,
        params: IdParams,
        response: { 200: Envelope(CollectionDetailSchema), ...catalogErrors },
      },
    },
    async (req) => ok(await collections.get(req.caller, req.params.id)),
  );

  app.patch(
    '/dam/collections/:id',
    {
      schema: {
        tags,
        summary: 'Edit a collection: name, description, visibility, tags (managers and admins)',
        description: 'Only the properties sent change; at least one is required. modified_at is set on every successful PATCH. ' + NOT_VISIBLE,
        params: IdParams,
        body: CollectionPatchBody,
        response: { 200: Envelope(CollectionDetailSchema), ...catalogErrors },
      },
    },
    async (req) => ok(await collections.update(req.caller, req.params.id, req.body)),
  );

  app.delete(
    '/dam/collections/:id',
    {
      schema: {
        tags,
        summary: 'Move a collection to the trash, or delete it at once (managers and admins; permanent: admins); its assets are kept',
        description:
          'The collection moves to its workspace\'s trash (GET /dam/trash): it is missing from lists and search and its ' +
          'GET answers 404 until POST /dam/trash/restore brings it back with its members in their order. permanent=true ' +
          '(workspace admins; 403 for others) deletes it at once instead. Either way its assets stay where they are. ' +
          NOT_VISIBLE,
        params: IdParams,
        querystring: PermanentQuery,
        response: { 200: Envelope(Deleted), ...catalogErrors },
      },
    },
    async (req) => {
      await collections.remove(req.caller, req.params.id, req.query.permanent ?? false);
      return ok({ id: req.params.id });
    },
  );

  app.post(
    '/dam/collections/:id/assets',
    {
      schema: {
        tags,
        summary: 'Append assets to a collection, in the given order (managers and admins)',
        description:
          'Ids already in the collection keep their place; the others are appended in the order given. Every id must be an ' +
          "asset of the collection's workspace: otherwise (missing, in the trash or in another workspace, indistinguishable) the whole call " +
          'is 400 VALIDATION_ERROR with field asset_ids and nothing changes. Duplicate ids in the body are 400. ' +
          'Answers the collection with its new order; modified_at changes when the membership does. ' +
          NOT_VISIBLE,
        params: IdParams,
        body: AssetIdsBody,
        response: { 200: Envelope(CollectionDetailSchema), ...catalogErrors },
      },
    },
    async (req) => ok(await collections.addAssets(req.caller, req.params.id, req.body.asset_ids)),
  );

  app.delete(
    '/dam/collections/:id/assets',
    {
      schema: {
        tags,
        summary: 'Remove assets from a collection (managers and admins)',
        description:
          'Ids that are not in the collection are ignored, so the call is idempotent. The remaining assets keep their order ' +
          'and positions are closed up. Answers the collection with its new order. ' +
          NOT_VISIBLE,
        params: IdParams,
        body: AssetIdsBody,
        response: { 200: Envelope(CollectionDetailSchema), ...catalogErrors },
      },
    },
    async (req) => ok(await collections.removeAssets(req.caller, req.params.id, req.body.asset_ids)),
  );
  done();
};
