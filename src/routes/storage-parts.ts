import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { BucketCors } from '../http/cors.js';
import { AppError } from '../errors.js';
import { ErrorBody } from '../http/schemas.js';
import { MAX_PARTS, type StorageService } from '../services/storage-service.js';

/**
 * The local store's presigned part URL: PUT /storage/parts/:uploadId/:partNumber?expires=&signature=.
 * Public (the signature is the credential, as with S3 query authentication).
 * The body is any content type and is streamed to disk, never parsed or buffered.
 * `bucketCors` (the local store): CORS by the bucket rules, preflight included, rather than the API's open policy.
 */
export const storagePartRoutes: FastifyPluginAsyncTypebox<{ storage: StorageService; bucketCors?: BucketCors }> = async (app, { storage, bucketCors }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, _payload, done) => done(null));

  if (bucketCors) {
    app.options('/storage/parts/:uploadId/:partNumber', { config: { public: true }, schema: { hide: true } }, bucketCors.preflight);
  }

  app.put(
    '/storage/parts/:uploadId/:partNumber',
    {
      config: { public: true, streamingBody: true },
      ...(bucketCors ? { onRequest: bucketCors.actual } : {}),
      schema: {
        tags: ['storage'],
        summary: 'Upload one part to a presigned URL (local store)',
        description:
          'Answers 200 with the part\'s ETag header (quoted MD5). A tampered, expired or mismatched signature is 403 and writes nothing. ' +
          'PUTting a part number again replaces its body (the earlier one is removed once the new one is stored). ' +
          'The parts of one upload together hold at most its declared `fileSize` and `DAM_MAX_FILE_SIZE`: a part that would pass ' +
          'that is 413 PAYLOAD_TOO_LARGE {limit} (the bytes it may still have), by its Content-Length before anything is read, ' +
          'or as it streams, and the connection is closed; nothing of it is kept. Where the plan limits storage, bytes beyond what ' +
          'start-upload reserved are reserved before they are written (402 QUOTA_EXCEEDED; without a Content-Length all the room ' +
          'left is). An upload past DAM_UPLOAD_MAX_LIFETIME is 410 UPLOAD_EXPIRED.',
        params: Type.Object({ uploadId: Type.String({ minLength: 1, maxLength: 128 }), partNumber: Type.Integer({ minimum: 1, maximum: MAX_PARTS }) }),
        querystring: Type.Object({ expires: Type.Optional(Type.String({ maxLength: 20 })), signature: Type.Optional(Type.String({ maxLength: 128 })) }),
        response: {
          200: Type.String({ description: 'Empty body; the ETag header carries the part ETag' }),
          402: ErrorBody,
          403: ErrorBody,
          404: ErrorBody,
          410: ErrorBody,
          413: ErrorBody,
        },
      },
    },
    async (req, reply) => {
      const part = await storage
        .receiveLocalPart(
          { uploadId: req.params.uploadId, partNumber: req.params.partNumber, expires: req.query.expires, signature: req.query.signature },
          req.raw,
          req.headers['content-length'],
        )
        .catch((err: unknown) => {
          // The rest of a refused or failed body is not read (nor written): the connection closes after the answer.
          if ((err instanceof AppError && err.status === 413) || (!(err instanceof AppError) && !req.raw.complete)) void reply.header('connection', 'close');
          throw err;
        });
      return reply.status(200).header('etag', part.ETag).send('');
    },
  );
};
