import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppAssociationConfig } from '../config.js';
import { androidAssetLinks, appleAppSiteAssociation } from '../domain/app-association.js';
import { appError } from '../errors.js';
import { ErrorBody } from '../http/schemas.js';

const AppleAppSiteAssociation = Type.Object({
  applinks: Type.Object({
    details: Type.Array(
      Type.Object({
        appIDs: Type.Array(Type.String(), { description: 'TEAMID.bundle.id of each app' }),
        components: Type.Array(Type.Object({ '/': Type.String(), comment: Type.String() })),
      }),
    ),
  }),
  webcredentials: Type.Object({ apps: Type.Array(Type.String()) }),
});

const AssetLinks = Type.Array(
  Type.Object({
    relation: Type.Array(Type.String()),
    target: Type.Object({
      namespace: Type.Literal('android_app'),
      package_name: Type.String(),
      sha256_cert_fingerprints: Type.Array(Type.String()),
    }),
  }),
);

/** The platforms fetch these files through their own CDNs and caches; an hour keeps a changed config from lagging long. */
function asAssociationFile(reply: FastifyReply): void {
  reply.header('cache-control', 'public, max-age=3600');
}

/**
 * Exactly `application/json`, as Apple's and Google's documentation write it: Fastify appends
 * `; charset=utf-8` to JSON it serialises (a parameter RFC 8259 does not define), so the type is
 * set again once the body is serialised. Errors keep the API's usual type.
 */
async function plainJsonType(_request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  if (reply.statusCode === 200) reply.header('content-type', 'application/json');
  return payload;
}

const AASA_DESCRIPTION =
  'The apple-app-site-association file of iOS universal links (iOS 13+ format): the apps of DAM_IOS_APP_IDS may open ' +
  'the share pages (/s/*) and the asset pages (/asset/*) of this site, and use the passwords saved for it ' +
  '(webcredentials). Served as application/json without a redirect or sign-in, cacheable for an hour. ' +
  'Answers the file itself, not an envelope. 404 when no iOS app is configured.';

/** iOS universal links and Android App Links (issue #13); not configured: 404. */
export const appAssociationRoutes: FastifyPluginAsyncTypebox<{ config: AppAssociationConfig }> = async (app, { config }) => {
  const aasa = appleAppSiteAssociation(config);
  const assetLinks = androidAssetLinks(config);

  for (const url of ['/.well-known/apple-app-site-association', '/ios-association']) {
    app.get(
      url,
      {
        config: { public: true },
        onSend: plainJsonType,
        schema: {
          tags: ['app-links'],
          summary: url === '/ios-association' ? 'iOS universal links (the same file as /.well-known/apple-app-site-association)' : 'iOS universal links',
          description: AASA_DESCRIPTION,
          response: { 200: AppleAppSiteAssociation, 404: ErrorBody },
        },
      },
      async (_request, reply) => {
        if (!aasa) throw appError('NOT_FOUND', 'No iOS app is associated with this site');
        asAssociationFile(reply);
        return aasa;
      },
    );
  }

  app.get(
    '/.well-known/assetlinks.json',
    {
      config: { public: true },
      onSend: plainJsonType,
      schema: {
        tags: ['app-links'],
        summary: 'Android App Links (Digital Asset Links)',
        description:
          'The assetlinks.json statement for the Android app of DAM_ANDROID_APP: it may open this site\'s links without a ' +
          'chooser (delegate_permission/common.handle_all_urls) and use the passwords saved for it (get_login_creds). ' +
          'Served as application/json without a redirect or sign-in, cacheable for an hour. 404 when no Android app is configured.',
        response: { 200: AssetLinks, 404: ErrorBody },
      },
    },
    async (_request, reply) => {
      if (!assetLinks) throw appError('NOT_FOUND', 'No Android app is associated with this site');
      asAssociationFile(reply);
      return assetLinks;
    },
  );
};
