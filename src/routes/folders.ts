import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox';
import { Envelope, IdParams, ok } from '../http/schemas.js';
import type { CatalogService } from '../services/catalog-service.js';
import {
  catalogErrors,
  FolderCreateBody,
  FolderDeleted,
  FolderDeleteQuery,
  FolderListQuery,
  FolderPatchBody,
  FolderListItemSchema,
  FolderDetailSchema,
  FolderSchema,
  PageOf,
} from '../contracts/catalog.js';

const NOT_VISIBLE =
  'A folder that does not exist and a folder of a workspace the caller is not a member of both answer 404 with the same body.';
const PARENT_RULE =
  'A parent_id that is not a folder of the same workspace (missing, in the trash or in another workspace, indistinguishable) is 400 ' +
  'VALIDATION_ERROR with field parent_id. Folder names need not be unique.';

export const folderRoutes: FastifyPluginCallbackTypebox<{ catalog: CatalogService }> = (app, { catalog }, done) => {
  const folders = catalog.folders;
  const tags = ['folders'];

  app.post(
    '/dam/folders',
    {
      config: { idempotent: true },
      schema: {
        tags,
        summary: 'Create a folder (managers and admins)',
        description:
          'The workspace is named in the body as workspace_id (like the workspace_id of the returned folder). ' +
          'parent_id omitted or null creates a top-level folder. ' +
          PARENT_RULE,
        body: FolderCreateBody,
        response: { 201: Envelope(FolderSchema), ...catalogErrors },
      },
    },
    async (req, reply) => reply.status(201).send(ok(await folders.create(req.caller, req.body))),
  );

  app.get(
    '/dam/folders',
    {
      schema: {
        tags,
        summary: 'List the folders of a workspace (viewers and up)',
        description:
          'Ordered by sort_by (name or a date, ties by id; a size order sorts by name), by id ascending without it. parent_id omitted lists every folder of the workspace (build the tree client-side), ' +
          'parent_id=root the top-level folders, parent_id=n the direct children of folder n. A parent_id that is not a ' +
          'folder of the workspace is 400 VALIDATION_ERROR with field parent_id. Folders in the trash are not listed. ' +
          'Each folder comes with asset_count (the assets directly in it that the caller sees: a viewer does not count ' +
          "others' private assets) and folder_count (its direct subfolders). " +
          'Not a member of the workspace: 404.',
        querystring: FolderListQuery,
        response: { 200: Envelope(PageOf(FolderListItemSchema)), ...catalogErrors },
      },
    },
    async (req) => ok(await folders.list(req.caller, req.query)),
  );

  app.get(
    '/dam/folders/:id',
    {
      schema: { tags, summary: 'One folder with its custom fields (viewers and up)', description: NOT_VISIBLE, params: IdParams, response: { 200: Envelope(FolderDetailSchema), ...catalogErrors } },
    },
    async (req) => ok(await folders.get(req.caller, req.params.id)),
  );

  app.patch(
    '/dam/folders/:id',
    {
      schema: {
        tags,
        summary: 'Rename, move, retag a folder or set its custom fields (managers and admins)',
        description:
          'Only the properties sent change; at least one is required. parent_id null moves the folder to the top level. ' +
          'A folder cannot become its own ancestor: a parent_id equal to the folder or to one of its subfolders is 400 ' +
          'VALIDATION_ERROR with field parent_id. ' +
          PARENT_RULE +
          ' modified_at is set on every successful PATCH. ' +
          NOT_VISIBLE,
        params: IdParams,
        body: FolderPatchBody,
        response: { 200: Envelope(FolderDetailSchema), ...catalogErrors },
      },
    },
    async (req) => ok(await folders.update(req.caller, req.params.id, req.body)),
  );

  app.delete(
    '/dam/folders/:id',
    {
      schema: {
        tags,
        summary: 'Move a folder to the trash, or delete it at once (managers and admins; permanent: admins)',
        description:
          'A folder that still holds subfolders or assets (not counting those in the trash) is 409 NOT_EMPTY unless ' +
          'recursive=true, which takes the folder, all its subfolders and every asset in any of them. They move to the ' +
          'workspace\'s trash together, as one batch that POST /dam/trash/restore brings back together; until then they are ' +
          'missing from lists, search and collections, and their files stay stored. An upload still in progress into the ' +
          'subtree lands at the top level. permanent=true (workspace admins; 403 for others) deletes them at once instead ' +
          '(the assets also leave their collections); items of the subtree that were already in the trash stay there, and ' +
          'a restore puts them at the top level. The answer counts what was trashed or deleted. ' +
          NOT_VISIBLE,
        params: IdParams,
        querystring: FolderDeleteQuery,
        response: { 200: Envelope(FolderDeleted), ...catalogErrors },
      },
    },
    async (req) => ok(await folders.remove(req.caller, req.params.id, req.query.recursive ?? false, req.query.permanent ?? false)),
  );
  done();
};
