import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox';
import { Envelope, ErrorBody, ok } from '../http/schemas.js';
import type { FileHashService } from '../services/file-hash-service.js';
import { CheckDuplicatesBody, DuplicatesSchema, MAX_HASHES } from '../contracts/duplicates.js';

/** Duplicate detection (issue #19): which files a client is about to upload the library already has. */
export const duplicateRoutes: FastifyPluginCallbackTypebox<{ fileHashes: FileHashService }> = (app, { fileHashes }, done) => {
  app.post(
    '/dam/assets/check-duplicates',
    {
      schema: {
        tags: ['assets'],
        summary: 'Which file hashes the library already has (viewers and up)',
        description:
          `Up to ${MAX_HASHES} SHA-256 hashes (lowercase hex) of files, e.g. computed by a client before uploading them. ` +
          'Answers the hashes that the current file of a listed asset of the workspace has, with those assets; assets in ' +
          'the trash, unfinished uploads and older versions do not count. The server hashes every stored file in a ' +
          'background job shortly after it is stored (an asset\'s `sha256` is null until then), so a file uploaded a ' +
          'moment ago may not be reported yet. Not a member of the workspace: 404.',
        body: CheckDuplicatesBody,
        response: { 200: Envelope(DuplicatesSchema), 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
      },
    },
    async (req) => ok(await fileHashes.checkDuplicates(req.caller, req.body)),
  );
  done();
};
