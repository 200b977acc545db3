import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { notFound } from '../errors.js';
import { ErrorBody, Id } from '../http/schemas.js';
import { GRANT_PATTERN } from '../media/links.js';
import { iconSvg, isFileType } from '../media/icons.js';
import { downloadConditions } from '../services/downloads.js';
import type { MediaService } from '../services/media-service.js';
import { ConditionalHeaders, DownloadResponses, RESUME_NOTE } from '../contracts/downloads.js';

/**
 * Public media routes (no bearer token): the signed URLs of version files and renditions
 * (thumbnail_url, file_url, preview url) and the generic file-type icons.
 */
export const mediaRoutes: FastifyPluginAsyncTypebox<{ media: MediaService }> = async (app, { media }) => {
  const tags = ['versions'];

  app.get(
    '/media/versions/:id/:kind',
    {
      config: { public: true },
      schema: {
        tags,
        summary: 'A version\'s file, thumbnail, preview or video preview, by signed URL',
        description:
          'The URLs come from version objects and the preview endpoint; the signature covers the path and the expiry. ' +
          'A tampered signature is 403 INVALID_SIGNATURE, an expired one 403 URL_EXPIRED. Range requests are answered with 206. ' +
          'Served inline only for raster images, audio and video (by the recorded, sniffed type); HTML, SVG, XML and JavaScript, ' +
          'and everything else, as an attachment; always with `X-Content-Type-Options: nosniff` and a sandboxing CSP. ' +
          'For an asset in the trash only the thumbnail is served (the trash lists it); its file and preview answer 404. ' +
          '`grant` (signed with the rest) says what the URL was handed out under, checked on every use: `u<id>`, a member, served ' +
          'while that user still sees the asset (a private asset: its uploader, managers and admins of its workspace); `s<id>`, ' +
          'a shared link, served while that link is active (not revoked or expired) and still shows this version of a public ' +
          'asset that is not in the trash. Otherwise 404. A shared link\'s answer may be reused for up to 5 seconds per process, ' +
          'so its revocation takes at most that long to reach a URL already used. ' +
          RESUME_NOTE,
        params: Type.Object({
          id: Id('Version id'),
          kind: Type.Union([Type.Literal('file'), Type.Literal('thumbnail'), Type.Literal('preview'), Type.Literal('video')], {
            description: 'video: the web-playable MP4 preview of a video version (its video_preview.url)',
          }),
        }),
        querystring: Type.Object({
          expires: Type.Optional(Type.String({ maxLength: 20 })),
          signature: Type.Optional(Type.String({ maxLength: 128 })),
          grant: Type.Optional(Type.String({ pattern: GRANT_PATTERN, maxLength: 20, description: 'u<user id> (a member) or s<link id> (a shared link)' })),
        }),
        headers: Type.Object(ConditionalHeaders),
        response: { ...DownloadResponses, 403: ErrorBody, 404: ErrorBody, 502: ErrorBody },
      },
    },
    async (req, reply) => {
      const result = await media.serve(
        { versionId: req.params.id, kind: req.params.kind, grant: req.query.grant, expires: req.query.expires, signature: req.query.signature },
        downloadConditions(req.headers),
      );
      return reply.status(result.status).headers(result.headers).send(result.stream);
    },
  );

  app.get(
    '/media/icons/:file',
    {
      config: { public: true },
      schema: {
        tags,
        summary: 'Generic icon of a file type (thumbnail of versions without a preview)',
        description:
          'An SVG (image/svg+xml, cached for a day) for image, video, audio, document, archive or other: `<type>.svg`. ' +
          'Another `<name>.svg` is 404. No token needed.',
        params: Type.Object({ file: Type.String({ pattern: '^[a-z]+\\.svg$', maxLength: 40 }) }),
        response: { 200: Type.String(), 404: ErrorBody },
      },
    },
    async (req, reply) => {
      const type = req.params.file.slice(0, -'.svg'.length);
      if (!isFileType(type)) throw notFound('Icon');
      return reply
        .header('content-type', 'image/svg+xml')
        .header('cache-control', 'public, max-age=86400')
        .header('x-content-type-options', 'nosniff')
        .send(iconSvg(type));
    },
  );
};
