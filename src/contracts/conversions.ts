import { Type, type Static } from 'typebox';
import { FITS, GIF_MAX_SECONDS, IMAGE_FORMATS, MAX_EDGE, MAX_SECONDS, TARGETS, VIDEO_FORMATS } from '../domain/conversions.js';
import { Id } from '../http/schemas.js';

/** Bodies and answers of the conversion endpoints (issue #15), declared once. */

const strict = { additionalProperties: false };
const literals = <const T extends string>(values: readonly T[], options: Record<string, unknown>) => Type.Enum(values as T[], options);

const TargetSchema = literals(TARGETS, {
  default: 'new_asset',
  description:
    "new_asset (default): a new asset in the source's folder, named after it with the new extension, with the source's tags, " +
    'visibility and metadata plus metadata.converted_from. new_version: a new version of the source asset, as a version upload makes it',
});

export const ConvertImageBody = Type.Object(
  {
    assetId: Id('The asset to convert (its current version)'),
    format: literals(IMAGE_FORMATS, { description: 'Output format' }),
    width: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_EDGE, description: 'Output width in pixels; alone, the height follows the aspect ratio' })),
    height: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_EDGE, description: 'Output height in pixels; alone, the width follows the aspect ratio' })),
    fit: Type.Optional(
      literals(FITS, {
        default: 'inside',
        description:
          'With width and height: inside (default) keeps the aspect ratio within the box; cover fills the box and crops the centre; ' +
          'contain fits the whole picture and pads the rest (transparent, white for jpeg). Ignored with one dimension',
      }),
    ),
    enlarge: Type.Optional(Type.Boolean({ default: false, description: 'Allow a result larger than the source (default false: a smaller source stays its size)' })),
    quality: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100,
        description: 'jpeg, webp (default 80), avif (default 50), tiff (JPEG-compressed; without it tiff is lossless LZW). png and gif take none (400)',
      }),
    ),
    strip_metadata: Type.Optional(Type.Boolean({ default: false, description: 'Leave out EXIF, ICC, XMP and IPTC (default false: kept)' })),
    target: Type.Optional(TargetSchema),
  },
  strict,
);
export type ConvertImageInput = Static<typeof ConvertImageBody>;

export const ConvertVideoBody = Type.Object(
  {
    assetId: Id('The video or audio asset to convert (its current version)'),
    format: literals(VIDEO_FORMATS, {
      description:
        `mp4 (H.264 + AAC, +faststart), webm (VP9 + Opus), gif (palette-optimised, 12 frames/s, at most ${GIF_MAX_SECONDS} s), ` +
        'mp3 or m4a (sound only; the only formats of audio assets)',
    }),
    max_height: Type.Optional(
      Type.Integer({ minimum: 16, maximum: 4320, description: 'Output height at most this (never enlarged; width follows, even); gif defaults to 480. Not for mp3/m4a' }),
    ),
    video_bitrate: Type.Optional(
      Type.Integer({ minimum: 100, maximum: 100_000, description: 'Video bitrate in kbit/s (default: constant quality, CRF 23 for mp4, 33 for webm). mp4 and webm only' }),
    ),
    // No schema default: it depends on the format (gif has no sound), and the validator would fill it in.
    audio: Type.Optional(Type.Boolean({ description: 'Keep the sound (default true; gif has none). false is refused for mp3/m4a' })),
    start: Type.Optional(Type.Number({ minimum: 0, maximum: MAX_SECONDS, description: 'Start of the clip, seconds from the beginning (default 0)' })),
    duration: Type.Optional(
      Type.Number({ minimum: 0.1, maximum: MAX_SECONDS, description: `Length of the clip in seconds (default: to the end; gif: at most ${GIF_MAX_SECONDS})` }),
    ),
    target: Type.Optional(TargetSchema),
  },
  strict,
);
export type ConvertVideoInput = Static<typeof ConvertVideoBody>;

export const CONVERSION_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'canceled'] as const;

export const ConversionSchema = Type.Object({
  id: Id(),
  kind: literals(['image', 'video'] as const, { description: 'image: POST /convert/image (sharp); video: POST /convert/video (ffmpeg)' }),
  workspace_id: Id(),
  asset_id: Id('The source asset'),
  source_version_id: Id('The version converted: the current one when asked'),
  params: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]), {
    description:
      'Every parameter with its default filled in (null: none, e.g. no resize, to the end); two requests with the same source version ' +
      'and the same params are the same conversion',
  }),
  status: literals(CONVERSION_STATUSES, {
    description:
      'queued (also between retries, with that attempt\'s error), running, succeeded (see result_*), failed (see error) or canceled',
  }),
  progress: Type.Integer({ minimum: 0, maximum: 100, description: "0-100; a video's is read from ffmpeg as it goes, an image's jumps to 100" }),
  result_asset_id: Type.Union([Id(), Type.Null()], { description: 'The new asset (new_asset) or the source asset (new_version); null until succeeded' }),
  result_version_id: Type.Union([Id(), Type.Null()], { description: 'The version holding the result; null until succeeded' }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Why it failed, in words (e.g. the file could not be decoded)' }),
  requested_by: Type.Object({
    id: Type.Union([Id(), Type.Null()], { description: 'null once the account is deleted' }),
    name: Type.String(),
  }),
  created_at: Type.Integer({ description: 'Unix seconds' }),
  started_at: Type.Union([Type.Integer(), Type.Null()], { description: 'Unix seconds of the first run; null while queued' }),
  finished_at: Type.Union([Type.Integer(), Type.Null()], { description: 'Unix seconds it succeeded, failed or was canceled' }),
});
export type ConversionView = Static<typeof ConversionSchema>;

export const MAX_CONVERSION_LIMIT = 200;

export const ConversionListQuery = Type.Object(
  {
    workspaceId: Id('The workspace whose conversions to list'),
    asset_id: Type.Optional(Id('Only conversions of this source asset')),
    status: Type.Optional(literals(CONVERSION_STATUSES, { description: 'Only conversions in this status' })),
    before: Type.Optional(Id('Cursor: only conversions older than this id (next_before of the previous page)')),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_CONVERSION_LIMIT, default: 50, description: 'Conversions per page' })),
  },
  strict,
);
export type ConversionListInput = Static<typeof ConversionListQuery>;

export const ConversionPageSchema = Type.Object({
  items: Type.Array(ConversionSchema, { description: 'Newest first' }),
  next_before: Type.Union([Type.Integer(), Type.Null()], { description: 'Pass as `before` for the next page; null on the last page' }),
});
export type ConversionPageView = Static<typeof ConversionPageSchema>;
