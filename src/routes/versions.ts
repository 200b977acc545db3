import path from 'node:path';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppConfig } from '../config.js';
import { appError } from '../errors.js';
import { registerMultipartSpool, SpooledFileSchema, type SpooledFile } from '../http/multipart.js';
import { documentedBody, FilePart } from '../http/openapi-file-parts.js';
import { METADATA_LIMITS } from '../http/json-limits.js';
import { Envelope, ErrorBody, IdParams, ok } from '../http/schemas.js';
import type { VersionService } from '../services/version-service.js';
import { AssetSchema, Deleted, Metadata } from '../contracts/catalog.js';
import { PreviewSchema, VersionSchema } from '../contracts/versions.js';
import { downloadConditions } from '../services/downloads.js';
import { ConditionalHeaders, DownloadResponses, RESUME_NOTE } from '../contracts/downloads.js';
import { EMBED_METADATA_NOTE, EmbedMetadata } from '../contracts/writeback.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 402: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 502: ErrorBody };
const NOT_VISIBLE =
  'A missing id, an id in a workspace the caller is not a member of, and an asset in the trash (or a version of one) all answer 404.';
const tags = ['versions'];

/** seed 4.5: any one file part, under any name (the seed leaves the name open; `file` is the usual one). */
const UploadBody = Type.Object(
  { metadata: Type.Optional(Type.Union([Type.String({ maxLength: 64 * 1024 }), Metadata])) },
  { additionalProperties: Type.Union([SpooledFileSchema, Type.String({ maxLength: 64 * 1024 })]) },
);

/** What a client sends (the OpenAPI document's body): the file part as bytes, metadata as JSON text. */
const DocumentedUploadBody = Type.Object({
  file: FilePart(
    'The new file (another field name is accepted too, for exactly one file part). Its Content-Type is a claim checked ' +
      'against the first bytes; its filename (base name only) becomes the file name. At most DAM_MAX_FILE_SIZE bytes (413).',
  ),
  metadata: Type.Optional(
    Type.String({
      maxLength: 64 * 1024,
      contentMediaType: 'application/json',
      description:
        `A JSON object merged into the current version's metadata: at most ${METADATA_LIMITS.maxDepth} levels deep, ` +
        `${METADATA_LIMITS.maxKeys} keys and array items in all`,
      'x-json-limits': METADATA_LIMITS,
    }),
  ),
});

function isSpooled(value: unknown, spoolDir: string): value is SpooledFile {
  // Only files our own multipart hook spooled: a path elsewhere never reaches the store.
  if (typeof value !== 'object' || value === null) return false;
  const file = (value as Partial<SpooledFile>).path;
  return typeof file === 'string' && path.dirname(path.resolve(file)) === spoolDir;
}

/** The one file part and the optional metadata field of a version upload. */
function readUpload(body: Record<string, unknown>, spoolDir: string): { file: SpooledFile; metadata: string | undefined } {
  const files = Object.values(body).filter((v) => isSpooled(v, spoolDir));
  const file = files[0];
  if (!file || files.length > 1) throw appError('MISSING_PARAMETER', 'Send exactly one file part (e.g. `file`) as multipart/form-data', { field: 'file' });
  const raw = body.metadata;
  const metadata = raw === undefined || isSpooled(raw, spoolDir) ? undefined : typeof raw === 'string' ? raw : JSON.stringify(raw);
  return { file, metadata };
}

/** seed 4.5: a version upload, in a scope of its own where only multipart bodies are parsed. */
const versionUploadRoute: FastifyPluginAsyncTypebox<{ versions: VersionService; config: AppConfig }> = async (app, { versions, config }) => {
  const spoolDir = path.join(config.dataDir, 'tmp');
  app.removeAllContentTypeParsers();
  await registerMultipartSpool(app, { tmpDir: spoolDir, maxFileSize: config.maxFileSize });

  app.post(
    '/dam/assets/:id/versions',
    {
      config: { idempotent: true, streamingBody: true, ...documentedBody(DocumentedUploadBody) },
      schema: {
        tags,
        summary: 'Upload a new version of an asset (managers and admins)',
        description:
          'multipart/form-data with one file part (any field name; `file` is usual) and an optional `metadata` field, a JSON ' +
          'object merged into the current version\'s metadata. The new version gets the next label and becomes current; the ' +
          'previous current becomes history; the asset\'s file, name, size, type, dimensions and modified_at follow the new ' +
          'version; its thumbnail and preview are made by a background job (preview_status). At most DAM_MAX_FILE_SIZE bytes (413). ' +
          'The type is sniffed from the file\'s first bytes where they are conclusive (the part\'s Content-Type otherwise); the ' +
          'filename keeps its base name only, without control or bidirectional-formatting characters (the asset\'s name when nothing is left). ' +
          NOT_VISIBLE,
        consumes: ['multipart/form-data'],
        params: IdParams,
        body: UploadBody,
        response: { 201: VersionSchema, ...errors, 413: ErrorBody, 415: ErrorBody },
      },
    },
    async (req, reply) => {
      const { file, metadata } = readUpload(req.body, spoolDir);
      return reply.status(201).send(await versions.upload(req.caller, req.params.id, file, metadata));
    },
  );
};

/** seed 4.5: the asset version endpoints, plus DELETE of history versions. */
export const versionRoutes: FastifyPluginAsyncTypebox<{ versions: VersionService; config: AppConfig }> = async (app, { versions, config }) => {
  app.get(
    '/dam/assets/:id/versions',
    {
      schema: {
        tags,
        summary: 'Versions of an asset, newest first (viewers and up)',
        description: 'A bare array of version objects. ' + NOT_VISIBLE,
        params: IdParams,
        response: { 200: Type.Array(VersionSchema), ...errors },
      },
    },
    (req) => versions.list(req.caller, req.params.id),
  );

  await app.register(versionUploadRoute, { versions, config });

  app.post(
    '/dam/versions/:id/restore',
    {
      config: { idempotent: true },
      schema: {
        tags,
        summary: 'Restore a history version (managers and admins)',
        description:
          'Creates a new version (the next label) with the restored version\'s file and metadata and makes it current; the ' +
          'previous current becomes history. The new version\'s restored_from names the version it copies (id and ' +
          'label); the restore is recorded in the activity log (version.restore). Answers the updated asset. Restoring the ' +
          'current version is 409. ' +
          NOT_VISIBLE,
        params: IdParams,
        response: { 200: AssetSchema, ...errors },
      },
    },
    (req) => versions.restore(req.caller, req.params.id),
  );

  app.get(
    '/dam/versions/:id/download',
    {
      schema: {
        tags,
        summary: "Download a version's file (viewers and up)",
        description:
          'As /storage/download: attachment with the version\'s file name, a single `Range` answered with 206. ' +
          "embed_metadata=true writes the asset's current metadata into this version's file. " +
          'The URL names the version, so it is the one to resume with a client that sends no If-Range. ' +
          RESUME_NOTE +
          ' ' +
          EMBED_METADATA_NOTE +
          ' ' +
          NOT_VISIBLE,
        params: IdParams,
        querystring: Type.Object({ embed_metadata: EmbedMetadata }),
        headers: Type.Object(ConditionalHeaders),
        response: { ...DownloadResponses, ...errors },
      },
    },
    async (req, reply) => {
      const result = await versions.download(req.caller, req.params.id, downloadConditions(req.headers), req.query.embed_metadata ?? false);
      return reply.status(result.status).headers(result.headers).send(result.stream);
    },
  );

  app.get(
    '/dam/versions/:id/preview',
    {
      schema: {
        tags,
        summary: 'A short-lived URL of the version\'s 1440 px preview (viewers and up)',
        description:
          'The URL works without a bearer token until it expires. 404 when there is no preview, with `preview_status` in the ' +
          'error body: pending (still being made; retry), unavailable (none can be made: file type, ffmpeg missing, unreadable ' +
          'file) or failed. ' +
          NOT_VISIBLE,
        params: IdParams,
        response: { 200: Envelope(PreviewSchema), ...errors },
      },
    },
    async (req) => ok(await versions.preview(req.caller, req.params.id)),
  );

  app.delete(
    '/dam/versions/:id',
    {
      schema: {
        tags,
        summary: 'Delete a history version (managers and admins)',
        description: 'The current version cannot be deleted: 409. Its file and renditions are removed. ' + NOT_VISIBLE,
        params: IdParams,
        response: { 200: Envelope(Deleted), ...errors },
      },
    },
    async (req) => ok(await versions.remove(req.caller, req.params.id)),
  );
};
