import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { SharesConfig } from '../../config.js';
import { AppError } from '../../errors.js';
import { limitCheck } from '../../http/rate-limits.js';
import { Envelope, ErrorBody, ok } from '../../http/schemas.js';
import type { ShareAccessService, ShareClient } from '../../services/shares/share-access-service.js';
import { readCookie } from '../../domain/cookies.js';
import { DOWNLOAD_GRANT_COOKIE } from '../../services/shares/download-grants.js';
import { downloadConditions } from '../../services/downloads.js';
import { DownloadResponses, RESUME_NOTE } from '../../contracts/downloads.js';
import {
  DownloadHeaders,
  KeyAssetParams,
  KeyParams,
  PublicFileQuery,
  PublicItemsQuery,
  PublicShareSchema,
  ShareTokenHeaders,
  UNLOCK_RULES,
  UnlockBody,
  UnlockSchema,
} from '../../contracts/shares.js';
import { SMALL_BODY_LIMIT } from '../../http/json-body.js';
import { addressKey } from '../../domain/client-address.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 429: ErrorBody };

const PUBLIC =
  'No bearer token: the key is the credential. An unknown, revoked or expired key (or a link whose folder, collection or ' +
  'version was deleted or is in the trash) answers 404 with the same body. A password-protected link answers 401 ' +
  'SHARE_PASSWORD_REQUIRED until POST /shared/public/{key}/unlock gives a share-access token, sent as the X-Share-Token ' +
  'header or the st query parameter (links followed by a browser, such as downloads, use st). Requests are limited per ' +
  'client address (DAM_SHARE_RATE_LIMIT a minute) and per link (DAM_SHARE_LINK_RATE_LIMIT a minute): over either, 429 ' +
  'RATE_LIMITED with Retry-After.';

const DOWNLOAD_RULES =
  'Downloads must be allowed by the link (else 403 SHARE_DOWNLOADS_DISABLED). With max_downloads, each counted download ' +
  'takes one slot atomically (two requests for the last slot: one gets the file, the other 410), and once all are taken ' +
  'every new download answers 410 SHARE_DOWNLOAD_LIMIT.';

/**
 * The caller as the access log records it, the share-access token it sent (header first, then ?st=) and the
 * download grant (header first, then the cookie, which is scoped to the one file's download path).
 */
function clientOf(req: FastifyRequest): ShareClient {
  const header = req.headers['x-share-token'];
  const grant = req.headers['x-download-grant'];
  return {
    address: req.ip,
    userAgent: req.headers['user-agent'],
    token: (typeof header === 'string' ? header : undefined) ?? (req.query as { st?: string } | undefined)?.st,
    downloadGrant: (typeof grant === 'string' ? grant : undefined) ?? readCookie(req.headers.cookie, DOWNLOAD_GRANT_COOKIE),
  };
}

/** Shared links, the public side (issue #14): no bearer token, rate limited per address and per link. */
export const sharePublicRoutes: FastifyPluginAsyncTypebox<{ access: ShareAccessService; config: SharesConfig }> = async (app, { access, config }) => {
  const tags = ['shared links (public)'];
  const perAddress = limitCheck(
    app.createRateLimit({ max: config.rateLimit, timeWindow: 60_000, keyGenerator: (req) => `share-ip:${addressKey(req.ip)}` }),
    'Too many shared-link requests from this address',
  );
  const perLink = limitCheck(
    app.createRateLimit({
      max: config.linkRateLimit,
      timeWindow: 60_000,
      keyGenerator: (req) => `share-link:${(req.params as { key: string }).key}`,
    }),
    'Too many requests for this shared link',
  );
  // After validation (a malformed request costs nothing more and is not counted), before any database read.
  const limited = async (req: FastifyRequest, reply: FastifyReply) => {
    await perAddress(req, reply);
    await perLink(req, reply);
  };
  const noStore = (reply: FastifyReply) => reply.header('cache-control', 'private, no-store');

  app.get(
    '/shared/public/:key',
    {
      config: { public: true },
      preHandler: limited,
      schema: {
        tags,
        summary: "A shared link's description, settings and items (paged)",
        description:
          "Items are the link's assets that still exist outside the trash, with the version the link shows (the current one, " +
          'or the pinned version of a version link) and signed, expiring thumbnail and preview URLs that need no token. A folder ' +
          "link includes every sub-folder's files (folder_path names where each lies). Reading page 1 counts a visit " +
          '(view_count, access log). ' +
          PUBLIC,
        params: KeyParams,
        querystring: PublicItemsQuery,
        headers: ShareTokenHeaders,
        response: { 200: Envelope(PublicShareSchema), ...errors },
      },
    },
    async (req, reply) => {
      noStore(reply);
      return ok(await access.view(req.params.key, req.query, clientOf(req), req.method === 'GET'));
    },
  );

  app.post(
    '/shared/public/:key/unlock',
    {
      config: { public: true },
      // Issue #28: a small body, refused with 413 before it is read in full.
      bodyLimit: SMALL_BODY_LIMIT,
      preHandler: limited,
      schema: {
        tags,
        summary: 'Unlock a password-protected shared link: a short-lived share-access token',
        description:
          'The right password answers a token valid for DAM_SHARE_TOKEN_TTL seconds (default an hour) and for this link only; ' +
          'changing or removing the password ends it. A wrong password is 401 SHARE_PASSWORD_WRONG with attempts_left. ' +
          UNLOCK_RULES +
          ' Every try is recorded in the link\'s access log (unlock, unlock-failed). A link without a password answers a ' +
          'token too (it is not needed). ' +
          PUBLIC,
        params: KeyParams,
        body: UnlockBody,
        response: { 200: Envelope(UnlockSchema), ...errors },
      },
    },
    async (req, reply) => {
      noStore(reply);
      try {
        return ok(await access.unlock(req.params.key, req.body.password, clientOf(req)));
      } catch (err) {
        const retryAfter = err instanceof AppError ? err.details?.retry_after : undefined;
        if (typeof retryAfter === 'number') reply.header('retry-after', String(retryAfter));
        throw err;
      }
    },
  );

  app.get(
    '/shared/public/:key/assets/:assetId/download',
    {
      config: { public: true },
      preHandler: limited,
      schema: {
        tags,
        summary: 'Download one item of a shared link (Range supported)',
        description:
          'Streams the file of the version the link shows, as an attachment with its name (RFC 6266, UTF-8 names as ' +
          'filename*). A single byte range is answered with 206. Every GET counts one download and is logged, whatever range ' +
          'it asks for, and answers a download grant for this file: the X-Download-Grant header, and the same value as the ' +
          'dam_dl cookie (HttpOnly, scoped to this download path). A request that sends the grant back (the header, or the ' +
          'cookie a browser returns by itself) is that download resumed: not counted again, and served even once the limit is ' +
          'reached, for a day and for this file and version only. HEAD counts nothing and answers no grant. An asset that is ' +
          'not an item of the link (another asset, deleted, in the trash) is 404. A 304 counts nothing. A link to a version ' +
          'always serves that version; the other links serve each asset\'s current version. ' +
          RESUME_NOTE +
          ' ' +
          DOWNLOAD_RULES +
          ' ' +
          PUBLIC,
        params: KeyAssetParams,
        querystring: PublicFileQuery,
        headers: DownloadHeaders,
        response: { ...DownloadResponses, 403: ErrorBody, 410: ErrorBody, 502: ErrorBody, ...errors },
      },
    },
    async (req, reply) => {
      const result = await access.download(req.params.key, req.params.assetId, clientOf(req), downloadConditions(req.headers), req.method === 'GET');
      return reply.status(result.status).headers(result.headers).send(result.stream);
    },
  );

  app.get(
    '/shared/public/:key/zip',
    {
      config: { public: true },
      preHandler: limited,
      schema: {
        tags,
        summary: 'Download every item of a shared link as one ZIP',
        description:
          'Streamed as it is written (ZIP64 when needed), named after the folder or collection; a folder link keeps its ' +
          'sub-folders as directories. Media already compressed is stored, the rest deflated. Counts one download (a link ' +
          'without items answers an empty archive and counts none); ranges are not answered, so every GET is a new archive and ' +
          'counts. A failure after the first byte aborts the connection, so a ' +
          'broken archive never looks complete. ' +
          DOWNLOAD_RULES +
          ' ' +
          PUBLIC,
        params: KeyParams,
        querystring: PublicFileQuery,
        headers: ShareTokenHeaders,
        response: { 200: Type.Any(), 403: ErrorBody, 410: ErrorBody, ...errors },
      },
    },
    async (req, reply) => {
      const result = await access.zip(req.params.key, clientOf(req), req.log, req.method === 'GET');
      reply.status(200).headers(result.headers);
      return result.stream ? reply.send(result.stream) : reply.send();
    },
  );
};
