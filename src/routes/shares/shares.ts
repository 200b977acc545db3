import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox';
import { Envelope, ErrorBody, IdParams, ok } from '../../http/schemas.js';
import type { ShareService } from '../../services/shares/share-service.js';
import {
  AccessLogPageSchema,
  AccessLogQuery,
  ShareCreateBody,
  ShareListQuery,
  SharePageSchema,
  SharePatchBody,
  ShareSchema,
} from '../../contracts/shares.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody };

const WHO = 'Managers and admins of the workspace; viewers get 403. A link of a workspace the caller is not a member of answers 404, as a missing one.';

/** Shared links, the managing side (issue #14); the public side is ./share-public.ts. */
export const shareRoutes: FastifyPluginCallbackTypebox<{ shares: ShareService }> = (app, { shares }, done) => {
  const tags = ['shared links'];

  app.post(
    '/shared',
    {
      config: { idempotent: true },
      schema: {
        tags,
        summary: 'Create a shared link: a public URL to assets, a folder, a collection or one version (managers and admins)',
        description:
          'Exactly one target: asset_ids (those assets, in that order), folder_id (the folder and every folder below it), ' +
          'collection_id, or version_id (that version of its asset, still shown after newer versions are uploaded). The target ' +
          'must be in the workspace and not in the trash (else 400 naming the field). Anyone with the answered url can open the ' +
          'link without an account until it expires or is revoked; give a password to require it as well. Items deleted or moved ' +
          'to the trash later disappear from the link; a link whose folder, collection or version is deleted or in the trash ' +
          'answers 404 until it is restored. Only public assets (visibility 0) reach a link: asset_ids or a version_id naming a ' +
          'private asset is 400 VALIDATION_ERROR with field and private_asset_ids (the private ones); a folder or collection ' +
          'shows only its public assets, and an asset made private later leaves the link (its media URLs stop too; a version ' +
          'link then answers 404). expires_at defaults to 30 days from now; null (never) only for workspace admins, and managers ' +
          "may set it at most the workspace's share_max_expiry_days ahead (default 90; later is 403 FORBIDDEN). " +
          'Records share.create in the activity log. ' +
          WHO,
        body: ShareCreateBody,
        response: { 201: Envelope(ShareSchema), ...errors },
      },
    },
    async (req, reply) => reply.status(201).send(ok(await shares.create(req.caller, req.body))),
  );

  app.get(
    '/shared',
    {
      schema: {
        tags,
        summary: "A workspace's shared links, newest first (managers and admins)",
        description: 'Revoked and expired links stay listed (status says which) with their counters; `status` selects one state. ' + WHO,
        querystring: ShareListQuery,
        response: { 200: Envelope(SharePageSchema), ...errors },
      },
    },
    async (req) => ok(await shares.list(req.caller, req.query)),
  );

  app.get(
    '/shared/:id',
    {
      schema: {
        tags,
        summary: 'One shared link with its key, url, settings and counters (managers and admins)',
        description:
          'The key is kept so the link can be copied again at any time. has_password says whether a password is set; the ' +
          'password itself is never answered. ' +
          WHO,
        params: IdParams,
        response: { 200: Envelope(ShareSchema), ...errors },
      },
    },
    async (req) => ok(await shares.get(req.caller, req.params.id)),
  );

  app.patch(
    '/shared/:id',
    {
      schema: {
        tags,
        summary: "Change a shared link's settings: expiry, password, downloads, limit, description (managers and admins)",
        description:
          'Only the settings sent change; null removes the expiry (admins only), the password, the download limit or the ' +
          'description. A new or removed password ends every share-access token issued before. The target cannot change (make a ' +
          'new link). A revoked link cannot be changed: 409 CONFLICT. Records share.update with the settings that changed ' +
          '(has_password, never the password). ' +
          WHO,
        params: IdParams,
        body: SharePatchBody,
        response: { 200: Envelope(ShareSchema), ...errors },
      },
    },
    async (req) => ok(await shares.update(req.caller, req.params.id, req.body)),
  );

  app.delete(
    '/shared/:id',
    {
      schema: {
        tags,
        summary: 'Revoke a shared link at once (managers and admins)',
        description:
          'From the next request its public routes answer 404, as for an unknown key. The link stays listed as revoked, with ' +
          'its access log; revoking it again changes nothing. Downloads stop at once; thumbnail, preview and video URLs ' +
          'already handed out are bound to the link and answer 404 within 5 seconds. ' +
          'Records share.revoke. ' +
          WHO,
        params: IdParams,
        response: { 200: Envelope(ShareSchema), ...errors },
      },
    },
    async (req) => ok(await shares.revoke(req.caller, req.params.id)),
  );

  app.get(
    '/shared/:id/access-log',
    {
      schema: {
        tags,
        summary: "A shared link's access log, newest first (managers and admins)",
        description:
          'One entry per visit (the first page of items read), counted download, ZIP, and unlock attempt, right or wrong, ' +
          'with time, client address and user agent. A download resumed with its download grant (issue #28) is not counted ' +
          'again and not logged. ' +
          WHO,
        params: IdParams,
        querystring: AccessLogQuery,
        response: { 200: Envelope(AccessLogPageSchema), ...errors },
      },
    },
    async (req) => ok(await shares.accessLog(req.caller, req.params.id, req.query)),
  );
  done();
};
