import path from 'node:path';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppConfig } from '../../config.js';
import { registerMultipartSpool, SpooledFileSchema } from '../../http/multipart.js';
import { documentedBody, FilePart } from '../../http/openapi-file-parts.js';
import { Envelope, ErrorBody, Id, ok, PlainName, Visibility } from '../../http/schemas.js';
import type { ServerUploadService } from '../../services/uploads/server-upload-service.js';
import { AssetSchema } from '../../contracts/catalog.js';

/** The form fields besides the file part (text, converted strictly: src/http/text-values.ts). */
const Fields = {
  workspaceId: Id('Workspace to upload into'),
  folder_id: Type.Optional(Id('Folder to file the asset in')),
  tags: Type.Optional(Type.String({ maxLength: 20_000, description: 'A JSON array of tags, or a comma-separated list' })),
  visibility: Type.Optional(Visibility),
  display_file_name: Type.Optional(PlainName(255)),
};

/** What a client sends (the OpenAPI document's body): the file part is bytes. */
const DocumentedBody = Type.Object({
  file: FilePart(
    'The file. Its Content-Type is a claim checked against the first bytes; its filename (base name only) becomes the ' +
      "asset's file name. At most DAM_MAX_FILE_SIZE bytes (413).",
  ),
  ...Fields,
});

/** seed 4.6: POST /api/upload-asset, a whole file through the server as multipart/form-data. */
export const serverUploadRoutes: FastifyPluginAsyncTypebox<{ uploads: ServerUploadService; config: AppConfig }> = async (
  app,
  { uploads, config },
) => {
  // Only multipart bodies reach this route: a JSON body could otherwise claim to be an already
  // spooled file and name any path on the server (415 for every other content type).
  app.removeAllContentTypeParsers();
  await registerMultipartSpool(app, { tmpDir: path.join(config.dataDir, 'tmp'), maxFileSize: config.maxFileSize });

  app.post(
    '/api/upload-asset',
    {
      config: { idempotent: true, streamingBody: true, ...documentedBody(DocumentedBody) },
      schema: {
        tags: ['storage'],
        summary: 'Upload a file through the server (managers and admins)',
        description:
          'multipart/form-data with one file part `file` and the fields `workspaceId` (required), `folder_id`, `tags` ' +
          '(a JSON array or a comma-separated list), `visibility` (0 public, other private) and `display_file_name`. ' +
          'The file is streamed to the object store (never held in memory), at most DAM_MAX_FILE_SIZE bytes (413 above). ' +
          'The part\'s Content-Type is a claim: the type sniffed from the file\'s first bytes is recorded where it is conclusive ' +
          '(an MP4 sent as application/octet-stream is video/mp4), the claim otherwise. The part\'s filename keeps its base name ' +
          'only, without control or bidirectional-formatting characters ("untitled" when nothing is left).',
        consumes: ['multipart/form-data'],
        // What the multipart hook made of the body: the file part spooled to a temporary file.
        body: Type.Object({ file: SpooledFileSchema, ...Fields }),
        response: { 201: Envelope(AssetSchema), 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 413: ErrorBody, 502: ErrorBody },
      },
    },
    async (req, reply) => reply.status(201).send(ok(await uploads.upload(req.caller, req.body))),
  );
};
