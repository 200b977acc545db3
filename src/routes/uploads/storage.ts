import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ErrorBody, MAX_ID, WireId, wireId } from '../../http/schemas.js';
import type { StorageService } from '../../services/uploads/storage-service.js';
import { downloadConditions } from '../../services/downloads.js';
import { ConditionalHeaders, DownloadResponses, RESUME_NOTE } from '../../contracts/downloads.js';
import { EMBED_METADATA_NOTE, EmbedMetadata } from '../../contracts/writeback.js';
import { MAX_PARTS } from '../../services/uploads/storage-service.js';

// seed 2.3: identifiers are strings on the wire; digits are accepted as strings or numbers.
const Id = (description: string) => Type.Integer({ minimum: 1, maximum: MAX_ID, description });
const WorkspaceId = Id('Workspace identifier');
const AssetId = Id('Asset identifier');
const UploadId = Type.String({ minLength: 1, maxLength: 1024, description: 'Multipart upload identifier' });
// A MIME type per RFC 6838: type/subtype with restricted-name characters, optional parameters.
const MimeType = Type.String({
  pattern: "^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}(\\s*;.*)?$",
  maxLength: 255,
  description: 'MIME type of the file, e.g. image/jpeg',
});
const Key = Type.String({ minLength: 1, maxLength: 1024, description: 'Storage key {workspaceId}/digital_assets/{assetId}' });
const Part = Type.Object({ ETag: Type.String({ minLength: 1, maxLength: 200 }), PartNumber: Type.Integer({ minimum: 1, maximum: MAX_PARTS }) });
const Success = Type.Object({ success: Type.Boolean() });
const CorsRule = Type.Object({
  AllowedMethods: Type.Array(Type.String()),
  AllowedOrigins: Type.Array(Type.String()),
  AllowedHeaders: Type.Optional(Type.Array(Type.String())),
  ExposeHeaders: Type.Optional(Type.Array(Type.String())),
  MaxAgeSeconds: Type.Optional(Type.Integer()),
});
const UploadRefQuery = Type.Object({ UploadId, assetId: AssetId, workspaceId: WorkspaceId });
const errors = { 400: ErrorBody, 401: ErrorBody, 402: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 502: ErrorBody };
const LIFETIME_NOTE =
  'An upload takes parts for DAM_UPLOAD_MAX_LIFETIME (default 7 days) from start-upload, however active; then get-upload-url ' +
  'is 410 UPLOAD_EXPIRED and housekeeping aborts it with its parts. ';

/** seed 4.3: the object storage endpoints, with the seed's own parameter names and answers. */
export const storageRoutes: FastifyPluginAsyncTypebox<{ storage: StorageService }> = async (app, { storage }) => {
  const tags = ['storage'];

  app.get(
    '/storage/getBucketConfig',
    {
      schema: {
        tags,
        summary: 'Bucket CORS rules (instance admins)',
        description:
          "The bucket's CORS rules as the store reports them; on the local store, the rules its part-upload route applies. " +
          'Other callers: 403. The store failing: 502 S3_ERROR.',
        response: { 200: Type.Object({ CORSRules: Type.Array(CorsRule) }), ...errors },
      },
    },
    (req) => storage.getBucketConfig(req.caller),
  );

  app.post(
    '/storage/updateBucketConfig',
    {
      schema: {
        tags,
        summary: 'Apply the default CORS rules (instance admins)',
        description:
          'No body. Writes the default rule set (GET, POST, PUT, DELETE from any origin, any header, ETag exposed) to the bucket; ' +
          'on the local store, to the rules its part-upload route applies.',
        response: { 200: Success, ...errors },
      },
    },
    (req) => storage.updateBucketConfig(req.caller),
  );

  app.get(
    '/storage/start-upload',
    {
      schema: {
        tags,
        summary: 'Start a multipart upload (managers and admins)',
        description:
          'Creates the asset (listed only once the upload completes) and a multipart upload for its key. ' +
          'Optional `fileName` names the file (default "untitled"); only its base name is kept (`../../x/evil.png` and `C:\\x\\evil.png` ' +
          'are `evil.png`), without control or bidirectional-formatting characters ("untitled" when nothing is left). ' +
          '`fileType` is a claim: complete-upload records the type sniffed from the file\'s first bytes where it is conclusive. ' +
          'Optional `folderId` files it in a folder of the same workspace. ' +
          'With `assetId` of a ready asset of the workspace, the upload is a new version of that asset instead: ' +
          'the answer carries that assetId, the key is the version\'s own, and completing the upload makes the version current. ' +
          '`minPartSize` is the smallest size every part but the last must have for completion to succeed; ' +
          'at most 10,000 parts. ' +
          'Optional `fileSize` declares the file\'s size in bytes: where the workspace\'s plan limits storage it is reserved now ' +
          '(402 QUOTA_EXCEEDED {limit, used, requested} when it does not fit, before anything is stored), and complete-upload ' +
          're-checks the real size; a new asset past the plan\'s asset limit is 402 QUOTA_EXCEEDED too. A `fileSize` over ' +
          'DAM_MAX_FILE_SIZE is 413 PAYLOAD_TOO_LARGE. On the local store the parts together may hold at most `fileSize` ' +
          '(without one, DAM_MAX_FILE_SIZE): a part past that is refused with 413 as it arrives, and parts beyond the reservation ' +
          'are reserved as they arrive. ' +
          LIFETIME_NOTE +
          'A workspace whose ' +
          'subscription is past due beyond the grace period answers 402 SUBSCRIPTION_PAST_DUE to this and every other write.',
        querystring: Type.Object({
          workspaceId: WorkspaceId,
          fileType: MimeType,
          fileName: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
          folderId: Type.Optional(Id('Folder to file the asset in')),
          assetId: Type.Optional(Id('Existing asset to add a version to')),
          fileSize: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Declared size of the file in bytes, reserved against the plan\'s storage limit' })),
        }),
        response: { 200: Type.Object({ uploadId: Type.String(), assetId: Type.Integer(), minPartSize: Type.Integer() }), ...errors, 413: ErrorBody },
      },
    },
    async (req) => ({ ...(await storage.startUpload(req.caller, req.query)), minPartSize: storage.minPartSize }),
  );

  app.get(
    '/storage/get-upload-url',
    {
      schema: {
        tags,
        summary: 'Presigned URL to PUT one part to',
        description:
          'The URL lives DAM_PART_URL_TTL seconds (default 3600; `expiresIn`), never past the upload\'s lifetime. PUT the part\'s bytes to it without a ' +
          'bearer token; keep the ETag response header. PUTting the same part number again replaces its body. ' +
          LIFETIME_NOTE +
          'On S3 the URL is signed for the part, not its size: S3 keeps one body per part number and up to 5 GiB per part, and ' +
          'the joined file is checked against DAM_MAX_FILE_SIZE and the plan at complete-upload (nothing is kept when it fails).',
        querystring: Type.Object({ PartNumber: Type.Integer({ minimum: 1, maximum: MAX_PARTS }), UploadId, assetId: AssetId, workspaceId: WorkspaceId }),
        response: { 200: Type.Object({ url: Type.String(), expiresIn: Type.Integer() }), ...errors, 410: ErrorBody },
      },
    },
    (req) => storage.partUploadUrl(req.caller, { uploadId: req.query.UploadId, assetId: req.query.assetId, workspaceId: req.query.workspaceId }, req.query.PartNumber),
  );

  app.post(
    '/storage/complete-upload',
    {
      config: { idempotent: true },
      schema: {
        tags,
        summary: 'Join the uploaded parts into the object',
        description:
          'Parts must be listed in ascending PartNumber order with the ETags the part uploads returned; every part but the last ' +
          'must be at least DAM_MIN_PART_SIZE bytes (on S3 the provider enforces its own 5 MiB minimum). Completing again with the same parts returns the same answer; with other parts, 409. ' +
          '`location` is the download URL of the object on this API. ' +
          'The object\'s type is sniffed from its first bytes: where they are conclusive (PNG, JPEG, MP4, PDF, ZIP, …) that type ' +
          'replaces the `fileType` claimed at start-upload on the asset and version (mime_type, file_type, dimensions, thumbnail); ' +
          'otherwise (plain text, CSV, unknown formats) the claim stands. A claim that is a more precise member of a generic container ' +
          'the bytes show (DOCX or EPUB for a ZIP, SVG for XML) stands too. A file larger than the size declared at start-upload ' +
          'that no longer fits the plan\'s storage limit is 402 QUOTA_EXCEEDED, and nothing of the upload is kept.',
        body: Type.Object({
          uploadId: UploadId,
          assetId: WireId('Asset identifier'),
          workspaceId: WireId('Workspace identifier'),
          parts: Type.Array(Part, { maxItems: MAX_PARTS }),
        }),
        response: { 200: Type.Object({ success: Type.Boolean(), location: Type.String(), key: Type.String() }), ...errors },
      },
    },
    (req) =>
      storage.completeUpload(
        req.caller,
        { uploadId: req.body.uploadId, assetId: wireId(req.body.assetId), workspaceId: wireId(req.body.workspaceId) },
        req.body.parts,
      ),
  );

  app.get(
    '/storage/list-parts',
    {
      schema: {
        tags,
        summary: 'Parts uploaded so far, to resume an upload',
        description:
          'The parts the store holds for the upload (PartNumber, ETag, Size): a client resuming sends the others. Managers ' +
          'and admins of the workspace; an unknown or already completed upload is 404 INVALID_UPLOAD_ID.',
        querystring: UploadRefQuery,
        response: {
          200: Type.Object({ parts: Type.Array(Type.Object({ PartNumber: Type.Integer(), ETag: Type.String(), Size: Type.Integer() })) }),
          ...errors,
        },
      },
    },
    (req) => storage.listParts(req.caller, { uploadId: req.query.UploadId, assetId: req.query.assetId, workspaceId: req.query.workspaceId }),
  );

  app.delete(
    '/storage/abort-upload',
    {
      schema: {
        tags,
        summary: 'Cancel an upload: its parts and its unfinished asset are removed',
        description:
          'The store aborts the multipart upload; the asset it was making (for a version upload, the reserved version) is ' +
          'deleted and its size no longer counts against the plan. Managers and admins of the workspace; an unknown or ' +
          'already completed upload is 404 INVALID_UPLOAD_ID.',
        querystring: UploadRefQuery,
        response: { 200: Success, ...errors },
      },
    },
    (req) => storage.abortUpload(req.caller, { uploadId: req.query.UploadId, assetId: req.query.assetId, workspaceId: req.query.workspaceId }),
  );

  app.get(
    '/storage/download',
    {
      schema: {
        tags,
        summary: 'Download an object (any member)',
        description:
          'Streams the file as an attachment (whatever its type: HTML or SVG is never rendered from this origin) with ' +
          '`X-Content-Type-Options: nosniff` and its recorded type. A single `Range` is answered with 206; an unsatisfiable one with 416. ' +
          'The object of an asset in the trash answers 404 until the asset is restored. ' +
          'An asset key serves whichever version is current, a version key that version only. ' +
          RESUME_NOTE +
          ' ' +
          EMBED_METADATA_NOTE,
        querystring: Type.Object({ key: Key, workspaceId: WorkspaceId, embed_metadata: EmbedMetadata }),
        headers: Type.Object(ConditionalHeaders),
        response: { ...DownloadResponses, ...errors },
      },
    },
    async (req, reply) => {
      const result = await storage.download(req.caller, req.query, downloadConditions(req.headers));
      return reply.status(result.status).headers(result.headers).send(result.stream);
    },
  );

  app.delete(
    '/storage/delete',
    {
      schema: {
        tags,
        summary: 'Delete an object and its asset (managers and admins)',
        description:
          'Deletes at once, without the trash (DELETE /dam/assets/:id moves to the trash instead): the asset, its versions and ' +
          'their files. An asset already in the trash answers 404 here; DELETE /dam/trash empties the trash.',
        querystring: Type.Object({ key: Key, workspaceId: WorkspaceId }),
        response: { 200: Success, ...errors },
      },
    },
    (req) => storage.deleteObject(req.caller, req.query),
  );
};
