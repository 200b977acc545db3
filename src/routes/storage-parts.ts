import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { BucketCors } from '../http/cors.js';
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
        description: 'Answers 200 with the part\'s ETag header (quoted MD5). A tampered, expired or mismatched signature is 403 and writes nothing.',
        params: Type.Object({ uploadId: Type.String({ minLength: 1, maxLength: 128 }), partNumber: Type.Integer({ minimum: 1, maximum: MAX_PARTS }) }),
        querystring: Type.Object({ expires: Type.Optional(Type.String({ maxLength: 20 })), signature: Type.Optional(Type.String({ maxLength: 128 })) }),
        response: { 200: Type.String({ description: 'Empty body; the ETag header carries the part ETag' }), 403: ErrorBody, 404: ErrorBody },
      },
    },
    async (req, reply) => {
      const part = await storage.receiveLocalPart(
        { uploadId: req.params.uploadId, partNumber: req.params.partNumber, expires: req.query.expires, signature: req.query.signature },
        req.raw,
      );
      return reply.status(200).header('etag', part.ETag).send('');
    },
  );
};
