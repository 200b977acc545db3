import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { BucketCors } from '../../http/cors.js';
import { AppError } from '../../errors.js';
import { s3ErrorHandler } from '../../http/s3-errors.js';
import type { FaultMonitor } from '../../faults/monitor.js';
import { faultOf } from '../../faults/classify.js';
import { discardRestOfBody } from '../../http/discard-body.js';
import { MAX_PARTS, type StorageService } from '../../services/uploads/storage-service.js';

/** A refusal of the part URL in the OpenAPI document: S3's error document (src/http/s3-errors.ts). */
const S3ErrorDocument = (description: string) => ({
  description: `S3 error document: ${description}`,
  content: {
    'application/xml': {
      schema: Type.String({
        examples: [
          '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>Request has expired</Message>' +
            '<Expires>2025-01-01T10:00:00Z</Expires><ServerTime>2025-01-01T10:00:05Z</ServerTime><RequestId>req-1a</RequestId></Error>',
        ],
      }),
    },
  },
});

/**
 * The local store's presigned part URL: PUT /storage/parts/:uploadId/:partNumber?expires=&signature=.
 * Public (the signature is the credential, as with S3 query authentication).
 * The body is any content type and is streamed to disk, never parsed or buffered.
 * `bucketCors` (the local store): CORS by the bucket rules, preflight included, rather than the API's open policy.
 */
export const storagePartRoutes: FastifyPluginAsyncTypebox<{ storage: StorageService; bucketCors?: BucketCors; faults?: FaultMonitor }> = async (
  app,
  { storage, bucketCors, faults },
) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, _payload, done) => done(null));
  // Issue #38: refusals are S3 error documents (XML), which S3 clients act on; only this plugin's routes.
  app.setErrorHandler(s3ErrorHandler(faults));

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
          'Answers 200 with the part\'s ETag header (quoted MD5). PUTting a part number again replaces its body (the earlier one ' +
          'is removed once the new one is stored). The parts of one upload together hold at most its declared `fileSize` and ' +
          '`DAM_MAX_FILE_SIZE`: a part that would pass that is refused by its Content-Length before anything is read, or as it ' +
          'streams, and the connection is closed; nothing of it is kept. Where the plan limits storage, bytes beyond what ' +
          'start-upload reserved are reserved before they are written (without a Content-Length all the room left is). ' +
          'As S3 does, this URL answers a refusal with an S3 error document (`application/xml`: ' +
          '`<Error><Code/><Message/>…<RequestId/></Error>`, the request id also in `x-amz-request-id`), never the API\'s JSON, ' +
          'with the CORS headers of the bucket rules, so S3 clients (Uppy\'s @uppy/aws-s3, the AWS SDKs) read it: ' +
          'an expired URL is 403 `AccessDenied` "Request has expired" with `<Expires>` and `<ServerTime>` (ask get-upload-url ' +
          'for a new one: S3 clients re-sign the part on it; DAM_PART_URL_TTL sets the lifetime); a tampered, missing or ' +
          'mismatched signature 403 `SignatureDoesNotMatch`; an unknown, aborted or completed upload, or one past ' +
          'DAM_UPLOAD_MAX_LIFETIME (410 UPLOAD_EXPIRED on the API), 404 `NoSuchUpload` with `<UploadId>`; a part past the ' +
          'upload\'s room (413 PAYLOAD_TOO_LARGE on the API) 400 `EntityTooLarge` with `<ProposedSize>` (its Content-Length) ' +
          'and `<MaxSizeAllowed>` (the bytes it may still have); past the plan\'s storage (402 QUOTA_EXCEEDED on the API) ' +
          '402 `QuotaExceeded`; a malformed part number, upload id or query 400 `InvalidArgument` with `<ArgumentName>`; ' +
          'a failure of the server 500 `InternalError`; the database or the store unavailable (503 DATABASE_UNAVAILABLE or ' +
          'STORAGE_UNAVAILABLE on the API) 503 `ServiceUnavailable`, a full disk (507 INSUFFICIENT_STORAGE) 507 ' +
          '`XMinioStorageFull`, both with Retry-After. Nothing is written on any of them.',
        params: Type.Object({ uploadId: Type.String({ minLength: 1, maxLength: 128 }), partNumber: Type.Integer({ minimum: 1, maximum: MAX_PARTS }) }),
        querystring: Type.Object({ expires: Type.Optional(Type.String({ maxLength: 20 })), signature: Type.Optional(Type.String({ maxLength: 128 })) }),
        response: {
          200: Type.String({ description: 'Empty body; the ETag header carries the part ETag' }),
          400: S3ErrorDocument('InvalidArgument (a malformed part number, upload id or query) or EntityTooLarge (past the upload\'s room)'),
          402: S3ErrorDocument('QuotaExceeded: past the plan\'s storage'),
          403: S3ErrorDocument('AccessDenied "Request has expired" (with Expires and ServerTime) or SignatureDoesNotMatch'),
          404: S3ErrorDocument('NoSuchUpload: unknown, aborted, completed, or past DAM_UPLOAD_MAX_LIFETIME'),
          500: S3ErrorDocument('InternalError'),
          503: S3ErrorDocument('ServiceUnavailable: the database or the store is unavailable for the moment; try again after Retry-After (S3 clients retry it)'),
          507: S3ErrorDocument('XMinioStorageFull: the disk is full; nothing was written; try again after Retry-After'),
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
          // A part the disk could not take (issue #37): the rest is read and dropped, so the client reads the 507.
          if (faultOf(err)) discardRestOfBody(req);
          // The rest of a refused or failed body is not read (nor written): the connection closes after the answer.
          else if ((err instanceof AppError && err.status === 413) || (!(err instanceof AppError) && !req.raw.complete)) void reply.header('connection', 'close');
          throw err;
        });
      return reply.status(200).header('etag', part.ETag).send('');
    },
  );
};
