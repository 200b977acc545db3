import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { GIF_MAX_SECONDS } from '../domain/conversions.js';
import { Envelope, ErrorBody, IdParams, ok } from '../http/schemas.js';
import type { ConversionService, Requested } from '../services/conversions/conversion-service.js';
import { ConversionListQuery, ConversionPageSchema, ConversionSchema, ConvertImageBody, ConvertVideoBody } from '../contracts/conversions.js';

const tags = ['conversions'];

/** The envelope with a description of what the status means. */
const Answer = (description: string) => Type.Object({ success: Type.Literal(true), data: ConversionSchema }, { description });
const created = { 202: Answer('A new conversion, queued'), 200: Answer('The same conversion, asked before (queued, running or succeeded)') };

const COMMON =
  'Managers and admins of the asset\'s workspace (viewers 403; another workspace\'s asset, or one in the trash, 404). The current version is ' +
  'converted on the job queue: the answer is 202 with `Location: /convert/status/{id}` and the conversion (status queued); poll that URL ' +
  '(progress 0-100) until status is succeeded (result_asset_id, result_version_id), failed (error says why, e.g. a file the tool cannot ' +
  'decode) or canceled. The same asset version with the same parameters (defaults filled in) while such a conversion is queued, running ' +
  'or succeeded answers that conversion with 200 instead, so a double click or a retry never converts twice (a succeeded one whose result ' +
  'was deleted or trashed no longer counts). target new_asset (default) makes a new asset in the source\'s folder named after it with the ' +
  'new extension, with its tags, visibility and metadata plus metadata.converted_from {asset_id, version_id, version, conversion_id, ' +
  'format}; new_version adds a version to the source asset as a version upload does (if the asset got another version meanwhile, the ' +
  'conversion fails rather than hide it). Either way the result gets thumbnails, its type sniffed from its bytes, its embedded metadata ' +
  'read and an activity entry by the requester, like any upload. A parameter that does not fit the format is 400 naming it; a format this ' +
  'asset cannot give is 422 CONVERSION_UNSUPPORTED.';

function answer(reply: { status(code: number): unknown; header(name: string, value: string): unknown }, result: Requested) {
  reply.header('location', `/convert/status/${result.conversion.id}`);
  reply.status(result.created ? 202 : 200);
  return ok(result.conversion);
}

/** Image and video conversions on the job queue (seed 4.6 /convert, issue #15). */
export const conversionRoutes: FastifyPluginCallbackTypebox<{ conversions: ConversionService }> = (app, { conversions }, done) => {
  const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

  app.post(
    '/convert/image',
    {
      config: { idempotent: true },
      schema: {
        tags,
        summary: 'Convert an image asset to JPEG, PNG, WebP, AVIF, TIFF or GIF, optionally resized',
        description:
          'Done with sharp: the EXIF orientation applied, never enlarged unless enlarge is true, metadata kept unless strip_metadata. ' +
          'Animated GIF and WebP stay animated as gif or webp. An image larger than DAM_CONVERT_MAX_PIXELS (width x height, also of the ' +
          'result) is refused before any pixel is decoded: 422 when the upload measured it, else the conversion fails. SVG is not ' +
          'rasterised (422). ' +
          COMMON,
        body: ConvertImageBody,
        response: { ...created, ...errors, 422: ErrorBody },
      },
    },
    async (req, reply) => answer(reply, await conversions.convertImage(req.caller, req.body)),
  );

  app.post(
    '/convert/video',
    {
      config: { idempotent: true },
      schema: {
        tags,
        summary: 'Convert a video or audio asset to MP4, WebM, GIF, MP3 or M4A, optionally a clip of it',
        description:
          'Done with ffmpeg: mp4 is H.264 + AAC with +faststart (plays while it downloads), webm VP9 + Opus, gif a palette-optimised ' +
          `clip at 12 frames/s (480 px high unless max_height says otherwise; at most ${GIF_MAX_SECONDS} s), mp3 and m4a the sound only. ` +
          'Audio assets give mp3 and m4a; a video without sound cannot give them (the conversion fails saying so). Progress is read ' +
          "from ffmpeg as it goes, against the clip's length. " +
          COMMON,
        body: ConvertVideoBody,
        response: { ...created, ...errors, 422: ErrorBody },
      },
    },
    async (req, reply) => answer(reply, await conversions.convertVideo(req.caller, req.body)),
  );

  app.get(
    '/convert/status/:id',
    {
      schema: {
        tags,
        summary: 'A conversion: status, progress and result (members of its workspace)',
        description:
          'status is queued (also between retries after a failed attempt, with that attempt\'s error), running, succeeded, failed or ' +
          'canceled; progress 0-100. Viewers may read it; not a member of the workspace: 404.',
        params: IdParams,
        response: { 200: Envelope(ConversionSchema), 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
      },
    },
    async (req) => ok(await conversions.get(req.caller, req.params.id)),
  );

  app.post(
    '/convert/status/:id/cancel',
    {
      schema: {
        tags,
        summary: 'Cancel a queued or running conversion (managers and admins)',
        description:
          'A queued conversion will not run; a running one is stopped: its ffmpeg is killed (at once when this process runs it, within a ' +
          'second when another process does, which watches the conversion while ffmpeg runs), its temporary files and any half-stored ' +
          'result removed. Answers the conversion, status canceled (again for one already canceled). A conversion that already ' +
          'succeeded or failed is 409 CONFLICT.',
        params: IdParams,
        response: { 200: Envelope(ConversionSchema), ...errors, 409: ErrorBody },
      },
    },
    async (req) => ok(await conversions.cancel(req.caller, req.params.id)),
  );

  app.get(
    '/convert/jobs',
    {
      schema: {
        tags,
        summary: "A workspace's conversions, newest first (viewers and up)",
        description:
          'Optionally only those of one source asset (asset_id) or in one status. Paged by cursor: pass next_before as `before`. ' +
          'Not a member of the workspace: 404.',
        querystring: ConversionListQuery,
        response: { 200: Envelope(ConversionPageSchema), 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
      },
    },
    async (req) => ok(await conversions.list(req.caller, req.query)),
  );
  done();
};
