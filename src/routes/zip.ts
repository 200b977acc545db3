import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppConfig } from '../config.js';
import { limitCheck } from '../http/rate-limits.js';
import { Envelope, ErrorBody, ok } from '../http/schemas.js';
import type { ZipImportService } from '../services/zip/zip-import-service.js';
import type { ZipService } from '../services/zip/zip-service.js';
import { contentDispositionAttachment } from '../domain/content-disposition.js';
import { ZIP_DOWNLOAD_PATH } from '../zip/download-links.js';
import {
  MAX_DOWNLOAD_IDS,
  ZipDownloadQuery,
  ZipExtractQuery,
  ZipImportBody,
  ZipImportParams,
  ZipImportQuery,
  ZipImportSchema,
  ZipLinkBody,
  ZipLinkSchema,
  ZipListQuery,
  ZipListSchema,
} from '../contracts/zip.js';

const tags = ['zip'];
const NOT_A_ZIP = 'An asset that is not a ZIP archive, or a corrupt or truncated one, is 422 ZIP_INVALID with the reason.';
const SELECTION =
  `Exactly one of asset_ids (up to ${MAX_DOWNLOAD_IDS}), folder_id (its files and every sub-folder, recursively, as ` +
  'directories; empty ones included; the folder\'s own files at the top level) or collection_id. Assets in the trash are left out; ' +
  'an asset id or folder or collection that is not in the workspace is 404. ';

/** ZIP archives (issue #14): downloads of assets as one ZIP, and stored ZIPs listed, extracted and imported. */
export const zipRoutes: FastifyPluginCallbackTypebox<{ zip: ZipService; zipImports: ZipImportService; config: AppConfig }> = (
  app,
  { zip, zipImports, config },
  done,
) => {
  // Signed downloads carry no token for the per-user limit to count: they are counted here, per user the URL was
  // issued to (verified first, so a forged user_id counts nothing), with the same budget (DAM_USER_RATE_LIMIT).
  const perSignedUser = limitCheck(
    app.createRateLimit({
      max: config.userRateLimit,
      timeWindow: config.userRateWindowMs,
      keyGenerator: (req) => `zip-link:${String((req.query as { user_id?: unknown }).user_id)}`,
    }),
    'Too many signed ZIP downloads for this user',
  );

  app.get(
    ZIP_DOWNLOAD_PATH,
    {
      config: { signedUrl: true },
      preHandler: async (req, reply) => {
        if (req.caller) return;
        zip.signedUser(req.query);
        await perSignedUser(req, reply);
      },
      schema: {
        tags,
        summary: 'Download assets, a folder or a collection as one ZIP (members, viewers included)',
        description:
          SELECTION +
          'With a bearer token, or without one through a URL from POST /zip/link (user_id, expires and signature added to ' +
          'the selection): the signature covers workspaceId, the target and user_id, so any change is 403 INVALID_SIGNATURE; ' +
          'after expires, 403 URL_EXPIRED. A signed URL downloads as the user it was issued to, whose membership is checked ' +
          'again when it is used (a member removed since gets 404), as are the targets and the entry limit; it may be used ' +
          'again until it expires, and a download that has started runs to its end. user_id or expires without signature: 400. ' +
          'The ZIP is streamed as it is written ' +
          '(never built in memory or on disk first), reading the files from storage one at a time, with ZIP64 wherever needed, ' +
          'so archives of more than 4 GiB or 65,535 entries are valid. Already compressed media (JPEG, PNG, GIF, WebP, HEIC, ' +
          'AVIF, video, audio other than WAV/AIFF, ZIP and other archives, office files, PDF) are stored; everything else deflated. ' +
          'Entry names are the assets\' display names (with an extension from their type when they have none), sanitised ' +
          '(no `..`, no absolute paths or drive letters, no backslashes or control characters, at most 255 bytes per name) and ' +
          'made unique, ignoring case, with " (2)", " (3)" before the extension. Content-Disposition is an attachment named ' +
          'after the folder or collection (`assets.zip` for a list of several assets), with filename* (RFC 5987) for non-ASCII names. ' +
          'A selection of more files and folders than the instance allows in one download (DAM_ZIP_DOWNLOAD_MAX_ENTRIES) is 422 ' +
          'ZIP_TOO_MANY_ENTRIES. Should a file fail to read once the answer has started, the connection is cut (no final chunk), ' +
          'so the client sees a broken download rather than a valid-looking archive with a file missing.',
        querystring: ZipDownloadQuery,
        produces: ['application/zip'],
        response: {
          200: Type.Any({ description: 'The ZIP archive (application/zip), chunked' }),
          400: ErrorBody,
          401: ErrorBody,
          403: ErrorBody,
          404: ErrorBody,
          422: ErrorBody,
        },
      },
    },
    async (req, reply) => {
      const download = req.caller ? await zip.download(req.caller, req.query, req.log) : await zip.downloadSigned(req.query, req.log);
      return reply
        .headers({
          'content-type': 'application/zip',
          'content-disposition': contentDispositionAttachment(download.fileName),
          'x-content-type-options': 'nosniff',
          'cache-control': 'private, no-store',
        })
        .send(download.stream);
    },
  );

  app.post(
    '/zip/link',
    {
      schema: {
        tags,
        summary: 'A short-lived signed URL of GET /zip/download, followed without a bearer token (members, viewers included)',
        description:
          SELECTION +
          'For browsers, which cannot send the token when they follow a link: navigating to the URL (or an <a download>) ' +
          'streams the archive to disk instead of the page holding it in memory. The selection is checked now as the download ' +
          'checks it (membership, targets, DAM_ZIP_DOWNLOAD_MAX_ENTRIES: 422 ZIP_TOO_MANY_ENTRIES), and again when the URL is used. ' +
          'The URL is valid for DAM_ZIP_LINK_TTL seconds (default 300) and only for this selection and the requesting user: ' +
          'it downloads with that user\'s access, so it stops working once the user is no longer a member of the workspace. ' +
          'Anyone holding the URL can use it until then: hand it to the browser, not to other people (shared links are for that).',
        body: ZipLinkBody,
        response: { 200: Envelope(ZipLinkSchema), 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 422: ErrorBody },
      },
    },
    async (req) => ok(await zip.link(req.caller, req.body)),
  );

  app.get(
    '/zip/list',
    {
      schema: {
        tags,
        summary: 'Entries of a stored ZIP, from its central directory (members, viewers included)',
        description:
          'Reads the end records and the central directory only, by ranged reads (a 5 GiB archive on S3 is not downloaded), and ' +
          'extracts nothing. Entries come in archive order; total is the count the archive declares. Every entry is listed, ' +
          'hostile ones included, with `problem` saying why it would not be extracted. ' +
          NOT_A_ZIP,
        querystring: ZipListQuery,
        response: { 200: Envelope(ZipListSchema), 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 422: ErrorBody, 502: ErrorBody },
      },
    },
    async (req) => ok(await zip.list(req.caller, req.query)),
  );

  app.get(
    '/zip/extract',
    {
      schema: {
        tags,
        summary: 'One entry of a stored ZIP, streamed (members, viewers included)',
        description:
          'path is the entry\'s name exactly as GET /zip/list gives it (unknown: 404). The entry is inflated as it is sent, ' +
          'with a Content-Type guessed from its name, `X-Content-Type-Options: nosniff`, a sandboxing CSP and Content-Disposition ' +
          'attachment. Refused with 422 before the first byte: an encrypted entry (ZIP_ENTRY_ENCRYPTED), a directory, symbolic ' +
          'link, special file, unsafe name or unsupported compression method (ZIP_ENTRY_UNSUPPORTED with problem), a declared ' +
          'size over DAM_ZIP_MAX_UNCOMPRESSED or ratio over DAM_ZIP_MAX_RATIO (ZIP_LIMIT_EXCEEDED). The bytes actually inflated are ' +
          'held to the same limits, and to the declared size and CRC-32; a failure while streaming cuts the connection. ' +
          NOT_A_ZIP,
        querystring: ZipExtractQuery,
        response: {
          200: Type.Any({ description: 'The entry\'s bytes' }),
          400: ErrorBody,
          401: ErrorBody,
          404: ErrorBody,
          422: ErrorBody,
          502: ErrorBody,
        },
      },
    },
    async (req, reply) => {
      const entry = await zip.extract(req.caller, req.query);
      return reply.headers(entry.headers).send(entry.stream);
    },
  );

  app.post(
    '/zip/extract',
    {
      config: { idempotent: true },
      schema: {
        tags,
        summary: 'Import a stored ZIP into the library (managers and admins)',
        description:
          'Checks the archive (a ZIP whose entries do not overlap, at most DAM_ZIP_MAX_ENTRIES entries, declared sizes within ' +
          'DAM_ZIP_MAX_UNCOMPRESSED; otherwise 422 ZIP_INVALID or ZIP_LIMIT_EXCEEDED) and answers 202 with the import job (status ' +
          'queued); poll GET /zip/extract/{jobId}. The job takes the entries in archive order: each directory becomes a folder under folder_id ' +
          '(default the top level; a folder of the same name already there is reused), each file a new asset in its folder, as ' +
          'an upload through this server would (type from its bytes, thumbnails, the asset.upload activity entry by the requester). ' +
          'Entries with an unsafe name, symbolic links, special files, encrypted entries and unsupported compression methods are ' +
          'skipped and reported, never followed. Bytes are counted as they are inflated: a file past the largest file size is ' +
          'skipped (too_large), one past the compression-ratio cap or the import\'s byte budget is skipped (limit), one whose CRC or ' +
          'size does not match is failed (corrupt); the rest goes on. The byte budget is DAM_ZIP_MAX_UNCOMPRESSED, or ' +
          'DAM_ZIP_MAX_RATIO times the archive\'s size (at least 1 MiB) when that is less: the ratio cap holds for the whole ' +
          'archive, not only per entry. Each file\'s declared size is reserved from the workspace\'s storage quota before it is ' +
          'inflated, and no more is written: a file that does not fit is skipped (quota) and the import goes on with the next. ' +
          'Entries that overlap (share bytes, so that one stored entry would be imported many times) make the archive invalid: ' +
          '422 ZIP_INVALID at once, or, should the archive have changed since, a failed import before anything is written. ' +
          'Viewers: 403; an asset of another workspace: 404.',
        body: ZipImportBody,
        response: { 202: Envelope(ZipImportSchema), 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 422: ErrorBody, 502: ErrorBody },
      },
    },
    async (req, reply) => reply.status(202).send(ok(await zipImports.start(req.caller, req.body))),
  );

  app.get(
    '/zip/extract/:jobId',
    {
      schema: {
        tags,
        summary: 'Status, progress and per-entry results of a ZIP import (members of its workspace)',
        description:
          'status is queued (also between retries, with that attempt\'s error), running, succeeded or failed (error says why; ' +
          'entries imported before stay). progress is processed_entries / total_entries. entries pages through what became of ' +
          'each entry so far, in archive order (page, per_page). Not a member of the workspace: 404.',
        params: ZipImportParams,
        querystring: ZipImportQuery,
        response: { 200: Envelope(ZipImportSchema), 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
      },
    },
    async (req) => ok(await zipImports.get(req.caller, req.params.jobId, req.query)),
  );
  done();
};
